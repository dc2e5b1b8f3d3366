package dev.durable.boot.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.FileVisitResult;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The code examples of the documentation compile: every {@code ```java} block of the project's Markdown files and
 * every {@code <pre>{@code ...}</pre>} block in the javadoc of durable-core's and the starter's main sources has a
 * compiled copy under this package (so {@code ./mvnw verify} compiles it), and this test keeps the two from drifting
 * apart.
 *
 * <p>A block has a copy when its non-blank lines, each stripped of leading and trailing blanks, appear in that order
 * in one {@code .java} file here. The copy may add lines in between: the fields, imports and declarations a snippet
 * leaves out. Copies are kept one class per README section or documented type (see the classes of {@code readme},
 * {@code starter} and {@code javadoc}); they name the section they copy.
 */
class ExamplesTest {

    private static final Path ROOT = projectRoot();
    private static final Path EXAMPLES =
            ROOT.resolve("durable-spring-boot-starter/src/test/java/dev/durable/boot/docs");
    private static final List<Path> DOCUMENTED_SOURCES = List.of(
            ROOT.resolve("durable-core/src/main/java"),
            ROOT.resolve("durable-spring-boot-starter/src/main/java"));

    private static final Pattern MARKDOWN_HEADING = Pattern.compile("^#{1,6}\\s+(.*)$");
    private static final Pattern JAVADOC_LINE = Pattern.compile("^\\s*\\*( ?)(.*)$");

    /** A block of documentation: where it is, and its lines. */
    record Block(String where, List<String> lines) {
    }

    @TestFactory
    Stream<DynamicTest> everyJavaBlockOfTheMarkdownFilesHasACompiledCopy() {
        return markdownBlocks().stream().map(block -> DynamicTest.dynamicTest(block.where(), () -> assertCopied(block)));
    }

    @TestFactory
    Stream<DynamicTest> everyCodeBlockOfThePublicJavadocHasACompiledCopy() {
        return javadocBlocks().stream().map(block -> DynamicTest.dynamicTest(block.where(), () -> assertCopied(block)));
    }

    /** The extraction works: the blocks known today are found, so the tests above are not vacuous. */
    @Test
    void findsTheBlocksOfTheReadmesAndTheJavadoc() {
        assertThat(markdownBlocks()).extracting(Block::where)
                .anyMatch(where -> where.startsWith("README.md, section 'durable'"))
                .anyMatch(where -> where.startsWith("durable-spring-boot-starter/README.md, section 'Write a machine'"));
        assertThat(javadocBlocks()).extracting(Block::where)
                .anyMatch(where -> where.startsWith("durable-core/src/main/java/dev/durable/StartOptions.java"))
                .anyMatch(where -> where.startsWith(
                        "durable-spring-boot-starter/src/main/java/dev/durable/boot/DurableMachine.java"));
    }

    @Test
    void aBlockWhoseLinesAreMissingOrOutOfOrderHasNoCopy() {
        List<String> source = List.of("class A {", "  void a() {", "    int x = 1;", "  }", "}");
        assertThat(isSubsequence(List.of("void a() {", "int x = 1;"), stripped(source))).isTrue();
        assertThat(isSubsequence(List.of("int x = 1;", "void a() {"), stripped(source))).isFalse();
        assertThat(isSubsequence(List.of("void a() {", "int x = 2;"), stripped(source))).isFalse();
    }

    private static void assertCopied(Block block) {
        List<String> wanted = stripped(block.lines());
        assertThat(wanted).as("%s is empty", block.where()).isNotEmpty();
        Map<Path, List<String>> copies = exampleSources();
        boolean copied = copies.values().stream().anyMatch(source -> isSubsequence(wanted, source));
        assertThat(copied)
                .as("%s has no compiled copy: no .java file under %s holds its lines in order. Copy the example"
                        + " there (or fix it there and copy it back):%n%s", block.where(), ROOT.relativize(EXAMPLES),
                        String.join(System.lineSeparator(), block.lines()))
                .isTrue();
    }

    private static boolean isSubsequence(List<String> wanted, List<String> source) {
        int next = 0;
        for (String line : source) {
            if (next < wanted.size() && line.equals(wanted.get(next))) {
                next++;
            }
        }
        return next == wanted.size();
    }

    private static List<String> stripped(List<String> lines) {
        return lines.stream().map(String::strip).filter(line -> !line.isEmpty()).toList();
    }

    /** Every {@code ```java} block of every Markdown file of the project, named by file and section. */
    private static List<Block> markdownBlocks() {
        List<Block> blocks = new ArrayList<>();
        for (Path file : files(ROOT, ".md")) {
            List<String> lines = read(file);
            String section = "(top)";
            int number = 0;
            for (int i = 0; i < lines.size(); i++) {
                Matcher heading = MARKDOWN_HEADING.matcher(lines.get(i));
                if (heading.matches()) {
                    section = heading.group(1).strip();
                    number = 0;
                } else if (lines.get(i).strip().equals("```java")) {
                    int start = i + 1;
                    int end = start;
                    while (end < lines.size() && !lines.get(end).strip().startsWith("```")) {
                        end++;
                    }
                    number++;
                    blocks.add(new Block(ROOT.relativize(file) + ", section '" + section + "', java block " + number
                            + " (line " + (i + 1) + ")", lines.subList(start, end)));
                    i = end;
                }
            }
        }
        return blocks;
    }

    /** Every {@code <pre>{@code ...}</pre>} block in the javadoc of the documented sources, named by file and line. */
    private static List<Block> javadocBlocks() {
        List<Block> blocks = new ArrayList<>();
        for (Path directory : DOCUMENTED_SOURCES) {
            for (Path file : files(directory, ".java")) {
                List<String> lines = read(file);
                for (int i = 0; i < lines.size(); i++) {
                    int open = lines.get(i).indexOf("<pre>{@code");
                    if (open < 0) {
                        continue;
                    }
                    List<String> code = new ArrayList<>();
                    String rest = lines.get(i).substring(open + "<pre>{@code".length());
                    if (!rest.isBlank()) {
                        code.add(rest);
                    }
                    int j = i + 1;
                    for (; j < lines.size(); j++) {
                        String line = javadocText(lines.get(j));
                        int close = line.indexOf("}</pre>");
                        if (close >= 0) {
                            code.add(line.substring(0, close));
                            break;
                        }
                        code.add(line);
                    }
                    blocks.add(new Block(ROOT.relativize(file) + ", javadoc block at line " + (i + 1), code));
                    i = j;
                }
            }
        }
        return blocks;
    }

    /** A javadoc line without its leading {@code *} and the one blank after it. */
    private static String javadocText(String line) {
        Matcher matcher = JAVADOC_LINE.matcher(line);
        return matcher.matches() ? matcher.group(2) : line;
    }

    /** The stripped non-blank lines of every example source, by file; this test's own source excluded. */
    private static Map<Path, List<String>> exampleSources() {
        Map<Path, List<String>> sources = new TreeMap<>();
        for (Path file : files(EXAMPLES, ".java")) {
            if (!file.getFileName().toString().equals(ExamplesTest.class.getSimpleName() + ".java")) {
                sources.put(file, stripped(read(file)));
            }
        }
        return sources;
    }

    /** The files under {@code directory} named {@code *suffix}, skipping build output and hidden directories. */
    private static List<Path> files(Path directory, String suffix) {
        List<Path> found = new ArrayList<>();
        try {
            Files.walkFileTree(directory, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                    String name = dir.getFileName().toString();
                    boolean skipped = !dir.equals(directory)
                            && (name.equals("target") || name.equals("node_modules") || name.startsWith("."));
                    return skipped ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    if (file.getFileName().toString().endsWith(suffix)) {
                        found.add(file);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        found.sort(null);
        return found;
    }

    private static List<String> read(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The directory of the parent pom: the tests run in the starter's directory, but look up to be sure. */
    private static Path projectRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("durable-core")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("No project root (a directory with durable-core and a pom.xml) above "
                + Path.of("").toAbsolutePath());
    }
}
