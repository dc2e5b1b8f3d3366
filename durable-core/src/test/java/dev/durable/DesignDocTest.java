package dev.durable;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The design lives in the repository: comments and documents cite {@code docs/DESIGN.md} by section
 * ({@code (docs/DESIGN.md, "Fencing")}) or by pitfall ({@code pitfall P7}), never a document outside it, and every
 * citation names a section or pitfall that exists. The pitfall table keeps its numbers consecutive, and every test it
 * names as the proof of a pitfall exists. Checked on every source and document of every module.
 */
class DesignDocTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path DESIGN = ROOT.resolve("docs/DESIGN.md");
    private static final Set<String> SCANNED = Set.of("java", "sql", "xml", "md", "yml", "yaml", "properties");

    /** A citation of the old, outside specification: its name in capitals, or a section sign. */
    private static final Pattern OUTSIDE_SPEC = Pattern.compile("\\bS[P]EC\\b|\\u00a7");
    /** "pitfall P3", "pitfalls P1 and P2", "pitfalls P7, P11 and P12"; bare numbers are the old, outside ones. */
    private static final Pattern PITFALLS = Pattern.compile(
            "(?i)\\bpitfalls?\\s+(P?\\d+(?:\\s*(?:,\\s*and|,|and)\\s*P?\\d+)*)");
    private static final Pattern LIST_SEPARATOR = Pattern.compile("\\s*(?:,\\s*and|,|and)\\s*");
    /** "(docs/DESIGN.md, "Fencing")", "(docs/DESIGN.md, "Stored values" and "Outcomes"; pitfall P1)". */
    private static final Pattern SECTION_CITATION = Pattern.compile("\\(docs/DESIGN\\.md\\b([^)]*)\\)");
    private static final Pattern QUOTED = Pattern.compile("\"([^\"]+)\"");
    /** In a Markdown document, a link to a heading of the design (by its anchor). */
    private static final Pattern ANCHOR_LINK = Pattern.compile("\\]\\((?:docs/)?DESIGN\\.md#([^)\\s]+)\\)");
    /** A line break inside a comment, with the next line's indentation and comment marker. */
    private static final Pattern COMMENT_LINE_BREAK = Pattern.compile("\\R[ \\t]*(?://+|\\*(?!/))?[ \\t]*");
    private static final Pattern PITFALL_ROW = Pattern.compile("^\\| P(\\d+) \\|(.*)$", Pattern.MULTILINE);
    private static final Pattern PROOF = Pattern.compile("`([A-Z]\\w*Tests?)(?:\\.(\\w+))?`");

    private static Set<String> sections;
    private static Map<Integer, String> pitfallRows;
    private static List<Path> files;

    @BeforeAll
    static void readTheDesignAndTheSources() throws IOException {
        assertThat(ROOT.resolve("pom.xml")).as("the project root").exists();
        assertThat(DESIGN).as("the design document").exists();
        String design = Files.readString(DESIGN);
        sections = new LinkedHashSet<>();
        design.lines().filter(line -> line.startsWith("## ")).forEach(line -> sections.add(line.substring(3).strip()));
        pitfallRows = new LinkedHashMap<>();
        Matcher row = PITFALL_ROW.matcher(design);
        while (row.find()) {
            pitfallRows.put(Integer.parseInt(row.group(1)), row.group(2));
        }
        try (Stream<Path> walk = Files.walk(ROOT)) {
            files = walk.filter(path -> !isSkipped(ROOT.relativize(path)))
                    .filter(Files::isRegularFile)
                    .filter(path -> SCANNED.contains(extension(path)))
                    .filter(path -> !path.equals(DESIGN))
                    .toList();
        }
        assertThat(files).as("the scanned files").hasSizeGreaterThan(100);
    }

    @Test
    void noSourceOrDocumentCitesADocumentOutsideTheRepository() {
        List<String> offenders = new ArrayList<>();
        for (Path file : files) {
            List<String> lines = lines(file);
            for (int i = 0; i < lines.size(); i++) {
                if (OUTSIDE_SPEC.matcher(lines.get(i)).find()) {
                    offenders.add(where(file, i) + lines.get(i).strip());
                }
            }
            Matcher pitfalls = PITFALLS.matcher(joined(file));
            while (pitfalls.find()) {
                for (String item : LIST_SEPARATOR.split(pitfalls.group(1))) {
                    if (!item.startsWith("P")) {
                        offenders.add(ROOT.relativize(file) + ": \"" + pitfalls.group() + "\" numbers a pitfall"
                                + " without the P of docs/DESIGN.md's table");
                    }
                }
            }
        }
        assertThat(offenders).as("citations of a document outside the repository").isEmpty();
    }

    @Test
    void everyCitedSectionIsAHeadingOfTheDesign() {
        List<String> missing = new ArrayList<>();
        Set<String> anchors = new TreeSet<>();
        sections.forEach(section -> anchors.add(anchor(section)));
        for (Path file : files) {
            String text = joined(file);
            Matcher citation = SECTION_CITATION.matcher(text);
            while (citation.find()) {
                Matcher quoted = QUOTED.matcher(citation.group(1));
                while (quoted.find()) {
                    if (!sections.contains(quoted.group(1))) {
                        missing.add(ROOT.relativize(file) + " cites \"" + quoted.group(1) + "\"");
                    }
                }
            }
            Matcher link = ANCHOR_LINK.matcher(text);
            while (extension(file).equals("md") && link.find()) {
                if (!anchors.contains(link.group(1))) {
                    missing.add(ROOT.relativize(file) + " links #" + link.group(1));
                }
            }
        }
        assertThat(missing).as("citations of sections docs/DESIGN.md does not have; its sections: " + sections)
                .isEmpty();
    }

    @Test
    void everyCitedPitfallIsARowOfTheTable() {
        List<String> missing = new ArrayList<>();
        int citations = 0;
        for (Path file : files) {
            Matcher pitfalls = PITFALLS.matcher(joined(file));
            while (pitfalls.find()) {
                for (String item : LIST_SEPARATOR.split(pitfalls.group(1))) {
                    citations++;
                    if (item.startsWith("P") && !pitfallRows.containsKey(Integer.parseInt(item.substring(1)))) {
                        missing.add(ROOT.relativize(file) + " cites " + item);
                    }
                }
            }
        }
        assertThat(citations).as("pitfall citations found").isGreaterThan(20);
        assertThat(missing).as("citations of pitfalls docs/DESIGN.md does not list; it lists P"
                + pitfallRows.keySet()).isEmpty();
    }

    @Test
    void thePitfallsAreNumberedWithoutGapsAndEachNamesTestsThatExist() throws IOException {
        assertThat(pitfallRows).as("pitfall rows").hasSizeGreaterThanOrEqualTo(12);
        assertThat(List.copyOf(pitfallRows.keySet()))
                .as("pitfall numbers: P1, P2, ... in order, never renumbered")
                .isEqualTo(IntStream.rangeClosed(1, pitfallRows.size()).boxed().toList());
        Map<String, Path> testClasses = new LinkedHashMap<>();
        for (Path file : files) {
            if (file.toString().contains("/src/test/java/") && extension(file).equals("java")) {
                testClasses.put(file.getFileName().toString().replace(".java", ""), file);
            }
        }
        List<String> problems = new ArrayList<>();
        pitfallRows.forEach((number, row) -> {
            String[] cells = row.split("\\|"); // the pitfall, its defence, the tests that prove it
            String provedBy = cells.length >= 3 ? cells[2] : "";
            Matcher proof = PROOF.matcher(provedBy);
            boolean any = false;
            while (proof.find()) {
                any = true;
                Path test = testClasses.get(proof.group(1));
                if (test == null) {
                    problems.add("P" + number + ": no test class " + proof.group(1));
                } else if (proof.group(2) != null && !read(test).contains("void " + proof.group(2) + "(")) {
                    problems.add("P" + number + ": " + proof.group(1) + " has no test " + proof.group(2));
                }
            }
            if (!any) {
                problems.add("P" + number + ": names no test that proves it");
            }
        });
        assertThat(problems).isEmpty();
    }

    /** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens. */
    static String anchor(String heading) {
        return heading.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
    }

    private static boolean isSkipped(Path relative) {
        for (Path part : relative) {
            String name = part.toString();
            if (name.equals("target") || name.equals("node_modules") || name.startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    private static String extension(Path path) {
        String name = path.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return dot < 0 ? "" : name.substring(dot + 1);
    }

    /** The file with comment lines joined, so that a citation broken over two lines reads as one. */
    private static String joined(Path file) {
        return COMMENT_LINE_BREAK.matcher(read(file)).replaceAll(" ");
    }

    private static List<String> lines(Path file) {
        return read(file).lines().toList();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String where(Path file, int index) {
        return ROOT.relativize(file) + ":" + (index + 1) + ": ";
    }
}
