package dev.durable;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * All SQL lives in the repository classes of the runtime's packages (and the schema's own few statements in
 * {@code DurableSchema}), as text blocks with bound parameters; no value is ever concatenated into SQL. Checked on
 * the main sources.
 */
class SqlHygieneTest {

    private static final Path MAIN = Path.of("src/main/java/dev/durable");
    private static final Path RUNTIME = MAIN.resolve("runtime");
    private static final Pattern SQL = Pattern.compile(
            "\\b(SELECT\\s+\\S|INSERT\\s+INTO|UPDATE\\s+\\S+\\s+SET|DELETE\\s+FROM|CREATE\\s+(TABLE|INDEX|SCHEMA))");
    /** A string literal or text block end followed by concatenation, or concatenation followed by a literal. */
    private static final Pattern CONCATENATION = Pattern.compile("(\"\\s*\\+)|(\\+\\s*\")");

    @Test
    void sqlAppearsOnlyInTheRepositories() throws IOException {
        List<String> offenders = new ArrayList<>();
        for (Path file : javaFiles()) {
            if (!holdsSql(file) && SQL.matcher(Files.readString(file)).find()) {
                offenders.add(file.toString());
            }
        }
        assertThat(offenders).isEmpty();
    }

    @Test
    void sqlTextIsNeverBuiltByConcatenation() throws IOException {
        List<String> offenders = new ArrayList<>();
        for (Path file : javaFiles()) {
            if (!holdsSql(file)) {
                continue;
            }
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (SQL.matcher(line).find() && CONCATENATION.matcher(line).find()
                        && !line.contains("CREATE SCHEMA IF NOT EXISTS \" + name")) {
                    offenders.add(file.getFileName() + ":" + (i + 1) + ": " + line.strip());
                }
            }
        }
        // The one exception, an identifier: DurableSchema creates its schema by a name validated against
        // [a-z_][a-z0-9_]* (identifiers cannot be bound as parameters).
        assertThat(offenders).isEmpty();
    }

    @Test
    void everyRepositoryStatementIsATextBlock() throws IOException {
        List<Path> repositories = javaFiles().stream().filter(SqlHygieneTest::holdsSql)
                .filter(file -> file.getFileName().toString().endsWith("Repository.java")).toList();
        assertThat(repositories).hasSizeGreaterThanOrEqualTo(2);
        for (Path file : repositories) {
            String repository = file.getFileName().toString();
            String source = Files.readString(file);
            long statements = Pattern.compile("static final String [A-Z_]+ = \"\"\"").matcher(source).results().count();
            long oneLiners = Pattern.compile("static final String [A-Z_]+ = \"[^\"]").matcher(source).results()
                    .filter(match -> SQL.matcher(source.substring(match.start(), source.indexOf(';', match.start())))
                            .find())
                    .count();
            assertThat(statements).as(repository).isPositive();
            assertThat(oneLiners).as(repository + ": SQL outside text blocks").isZero();
        }
    }

    /**
     * A reader sees each statement whole in its text block: none is assembled from fragments spliced in by name. The
     * only placeholders are the schema's name (an identifier cannot be bound), a limit written into the text
     * ({@code {limit}}, {@code LiteralLimits}) and the literal of a statement written once for its variants
     * ({@code {status}}, {@code StatementVariants}); a value is always bound ({@code :name}), never written in.
     */
    @Test
    void everyStatementIsWrittenOutInFull() throws IOException {
        Pattern placeholder = Pattern.compile("\\{(?!schema\\}|limit\\}|status\\})[A-Za-z]+\\}");
        List<String> offenders = new ArrayList<>();
        for (Path file : javaFiles()) {
            if (holdsSql(file)) {
                String source = Files.readString(file);
                placeholder.matcher(source).results()
                        .forEach(match -> offenders.add(file.getFileName() + ": " + match.group()));
            }
        }
        assertThat(offenders).isEmpty();
    }

    /** A name spelled like a bind parameter is always bound: no source writes a value in place of one. */
    @Test
    void nothingSpelledLikeABindParameterIsWrittenIntoAStatement() throws IOException {
        Pattern splice = Pattern.compile("\\.replace(All|First)?\\(\"[^\"]*:[A-Za-z]");
        List<String> offenders = new ArrayList<>();
        for (Path file : javaFiles()) {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                if (splice.matcher(lines.get(i)).find()) {
                    offenders.add(file.getFileName() + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        assertThat(offenders).isEmpty();
    }

    /** The classes allowed to hold SQL: the repositories, the planning policy, and the schema. */
    private static boolean holdsSql(Path file) {
        String name = file.getFileName().toString();
        return file.startsWith(RUNTIME)
                        && (name.endsWith("Repository.java") || name.equals("StatementPlanning.java"))
                || file.equals(MAIN.resolve("jdbc").resolve("DurableSchema.java"));
    }

    private static List<Path> javaFiles() throws IOException {
        try (Stream<Path> files = Files.walk(MAIN)) {
            return files.filter(file -> file.toString().endsWith(".java")).toList();
        }
    }
}
