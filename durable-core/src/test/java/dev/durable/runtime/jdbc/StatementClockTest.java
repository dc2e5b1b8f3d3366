package dev.durable.runtime.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.jdbc.DurableSchema;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The clock seam (docs/DESIGN.md, "Time in tests"): every statement of every repository, as a production engine sends
 * it, is the text as written with only its schema filled in, so its plan is the one it had before the seam; under the
 * test kit's movable clock, each {@code now()} and {@code clock_timestamp()} reads the schema's test clock instead.
 * The statements are the repositories' static texts, found on the compiled classes.
 */
class StatementClockTest {

    private static final DurableSchema SCHEMA = DurableSchema.named("durable_it");
    /** No connection is made: qualify only writes text. */
    private static final DriverManagerDataSource NO_DATABASE = new DriverManagerDataSource("jdbc:postgresql://none/x");

    private static Map<String, String> statements;

    @BeforeAll
    static void findEveryRepositorysStatements() throws Exception {
        statements = new TreeMap<>();
        Path classes = Path.of(StatementPlanning.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        for (Class<?> repository : repositories(classes)) {
            for (Field field : repository.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
                    field.setAccessible(true);
                    String text = (String) field.get(null);
                    if (text != null && text.contains("{schema}")) {
                        statements.put(repository.getSimpleName() + "." + field.getName(), text);
                    }
                }
            }
        }
    }

    @Test
    void productionSendsEveryStatementAsWritten() {
        StatementPlanning production = new StatementPlanning(NO_DATABASE, SCHEMA);
        List<String> timed = new ArrayList<>();
        statements.forEach((name, text) -> {
            assertThat(production.qualify(text)).as(name).isEqualTo(text.replace("{schema}", "durable_it"));
            if (text.contains("now()") || text.contains("clock_timestamp()")) {
                timed.add(name);
            }
        });
        assertThat(production.movableClock()).isFalse();
        assertThat(statements).as("the repositories' statements").hasSizeGreaterThan(40);
        assertThat(timed).as("statements that read the time")
                .contains("ClaimRepository.PICK", "ClaimRepository.HEARTBEAT", "ClaimRepository.REAP")
                .hasSizeGreaterThan(20);
        assertThat(statements.get("ClaimRepository.PICK")).as("the pick, rendered from the text of its variants")
                .startsWith("/* durable: pick */\n").doesNotContain("-- in:").doesNotContain("i.id = :id");
    }

    @Test
    void theMovableClockShiftsEveryReadOfTheTimeAndNothingElse() {
        StatementPlanning driven = new StatementPlanning(NO_DATABASE, SCHEMA, true);
        String shift = "(SELECT shift FROM durable_it.durable_test_clock)";
        statements.forEach((name, text) -> {
            String sent = driven.qualify(text);
            String expected = text.replace("now()", "(now() + " + shift + ")")
                    .replace("clock_timestamp()", "(clock_timestamp() + " + shift + ")")
                    .replace("{schema}", "durable_it");
            assertThat(sent).as(name).isEqualTo(expected);
            assertThat(count(sent, "now()") + count(sent, "clock_timestamp()")).as(name)
                    .isEqualTo(count(sent, shift));
        });
        assertThat(driven.qualify(statements.get("ClaimRepository.PICK"))).contains("i.eligible_at <= (now() + " + shift + ")");
    }

    private static int count(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length())) {
            count++;
        }
        return count;
    }

    private static List<Class<?>> repositories(Path classes) throws IOException, ClassNotFoundException {
        List<Class<?>> found = new ArrayList<>();
        Path runtime = classes.resolve("dev/durable/runtime");
        try (Stream<Path> walk = Files.walk(runtime)) {
            for (Path file : walk.filter(f -> f.getFileName().toString().endsWith("Repository.class")).toList()) {
                String name = classes.relativize(file).toString().replace('/', '.').replaceAll("\\.class$", "");
                found.add(Class.forName(name));
            }
        }
        assertThat(found).as("repository classes").hasSizeGreaterThan(10);
        return found;
    }
}
