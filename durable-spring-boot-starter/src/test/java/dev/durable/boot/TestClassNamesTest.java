package dev.durable.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * One suffix for test classes in every module: {@code ...Test}. Surefire would also run {@code ...Tests}, but not a
 * class named otherwise, whose tests would silently never run; both show up here.
 */
class TestClassNamesTest {

    private static final Pattern TEST_ANNOTATION =
            Pattern.compile("^\\s*@(Test|TestFactory|ParameterizedTest|RepeatedTest|TestTemplate)\\b",
                    Pattern.MULTILINE);

    @Test
    void everyClassHoldingTestsIsNamedSomethingTest() throws IOException {
        Path root = projectRoot();
        List<Path> testSources = testSources(root);
        assertThat(testSources).as("test sources found").hasSizeGreaterThan(50);

        List<String> misnamed = testSources.stream()
                .filter(file -> TEST_ANNOTATION.matcher(read(file)).find())
                .filter(file -> !file.getFileName().toString().endsWith("Test.java"))
                .map(file -> root.relativize(file).toString())
                .toList();
        assertThat(misnamed).as("classes holding tests, not named ...Test").isEmpty();
    }

    private static List<Path> testSources(Path root) throws IOException {
        try (Stream<Path> modules = Files.list(root)) {
            return modules.map(module -> module.resolve("src/test/java")).filter(Files::isDirectory)
                    .flatMap(TestClassNamesTest::javaFiles).toList();
        }
    }

    private static Stream<Path> javaFiles(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(file -> file.toString().endsWith(".java")).toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

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
