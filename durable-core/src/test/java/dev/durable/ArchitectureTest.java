package dev.durable;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineSettings;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The runtime's internal packages ({@code dev.durable.runtime.<concern>}, docs/DESIGN.md, "Public API") hold public
 * classes that are not API: a class is public there because a sibling package or the engine uses it. This test is
 * their fence, on the compiled main classes of this module: the internal packages form no cycle, nothing outside the
 * runtime reaches into them, and none of them reaches back to the engine that assembles them.
 */
class ArchitectureTest {

    private static final String RUNTIME = "dev.durable.runtime";
    private static final Path MAIN_SOURCES = Path.of("src/main/java");
    private static final Path RUNTIME_SOURCES = MAIN_SOURCES.resolve("dev/durable/runtime");
    private static final int MOST_FILES_PER_PACKAGE = 20;
    private static final int MOST_LINES_PER_FILE = 600;

    private static JavaClasses core;

    @BeforeAll
    static void importTheMainClasses() throws URISyntaxException {
        Path classes = Path.of(DurableClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        core = new ClassFileImporter().importPath(classes);
    }

    @Test
    void theInternalPackagesOfTheRuntimeFormNoCycle() {
        internalPackagesFreeOfCycles(RUNTIME).check(core);
    }

    @Test
    void nothingOutsideTheRuntimeUsesItsInternalPackages() {
        noClasses().that().resideOutsideOfPackage(RUNTIME + "..")
                .should().dependOnClassesThat(internal(RUNTIME))
                .because("the internal packages are the engine's parts, reached only through DurableEngine and the"
                        + " API types of " + RUNTIME)
                .check(core);
    }

    @Test
    void noInternalPackageDependsOnTheEngine() {
        noClasses().that(internal(RUNTIME))
                .should().dependOnClassesThat().belongToAnyOf(DurableEngine.class)
                .because("the engine assembles its parts; a part that called back into it would tie every package"
                        + " to the facade")
                .check(core);
    }

    @Test
    void thePartsTakeTheSettingsTheyUseNotEngineSettingsWhole() {
        // Each part is built with the values it reads (a record of them, or parameters), so that a reader sees what a
        // part depends on; only the checks of the settings take them whole. Its constants and enums may be read.
        Set<String> checks = Set.of("SettingsChecks", "NodeMachines");
        List<String> offenders = new ArrayList<>();
        core.stream().filter(internal(RUNTIME)).filter(part -> !checks.contains(part.getSimpleName()))
                .forEach(part -> {
                    part.getFields().stream().filter(field -> field.getRawType().isEquivalentTo(EngineSettings.class))
                            .forEach(field -> offenders.add(field.getFullName()));
                    part.getCodeUnits().stream()
                            .filter(unit -> unit.getRawParameterTypes().stream()
                                    .anyMatch(type -> type.isEquivalentTo(EngineSettings.class)))
                            .forEach(unit -> offenders.add(unit.getFullName()));
                });
        assertThat(offenders).as("parts of the runtime that take EngineSettings whole").isEmpty();
    }

    @Test
    void theRulesSeeTheRuntimesParts() {
        long parts = core.stream().filter(internal(RUNTIME)).count();
        assertThat(parts).as("classes in the internal packages of " + RUNTIME).isGreaterThan(50);
        assertThat(core.get(DurableEngine.class).getPackageName()).isEqualTo(RUNTIME);
    }

    /** The rule that guards the runtime fails on a cycle: two packages of test fixtures that use each other. */
    @Test
    void theCycleRuleReportsAPlantedCycle() {
        String fixture = "dev.durable.fixture.cycle";
        JavaClasses planted = new ClassFileImporter().importPackages(fixture);
        assertThat(planted.stream().map(JavaClass::getSimpleName)).contains("First", "Second");

        EvaluationResult result = internalPackagesFreeOfCycles(fixture).evaluate(planted);

        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().toString())
                .contains("Cycle detected")
                .contains(fixture + ".first.First")
                .contains(fixture + ".second.Second");
    }

    /** Issue 28's bound: a package a reader can take in at once. */
    @Test
    void noPackageOfTheRuntimeHoldsMoreThanTwentyFiles() throws IOException {
        Map<String, Long> filesPerPackage;
        try (Stream<Path> walk = Files.walk(RUNTIME_SOURCES)) {
            filesPerPackage = walk.filter(file -> file.toString().endsWith(".java"))
                    .collect(Collectors.groupingBy(file -> RUNTIME_SOURCES.relativize(file.getParent()).toString(),
                            TreeMap::new, Collectors.counting()));
        }
        assertThat(filesPerPackage).hasSizeGreaterThan(5);
        assertThat(filesPerPackage).allSatisfy((directory, files) -> assertThat(files)
                .as("files in " + RUNTIME + (directory.isEmpty() ? "" : "." + directory.replace('/', '.')))
                .isLessThanOrEqualTo(MOST_FILES_PER_PACKAGE));
    }

    /** Issue 28's other bound: a file a reader can take in, split by concern when it grows past it. */
    @Test
    void noMainFileOfThisModuleIsLongerThanSixHundredLines() throws IOException {
        Map<String, Long> longFiles = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(MAIN_SOURCES)) {
            for (Path file : walk.filter(file -> file.toString().endsWith(".java")).toList()) {
                long lines = Files.readAllLines(file).size();
                if (lines > MOST_LINES_PER_FILE) {
                    longFiles.put(MAIN_SOURCES.relativize(file).toString(), lines);
                }
            }
        }
        assertThat(longFiles).as("main files of durable-core over " + MOST_LINES_PER_FILE + " lines").isEmpty();
    }

    /** The packages under {@code root} (not {@code root} itself), each a slice, free of cycles among them. */
    private static ArchRule internalPackagesFreeOfCycles(String root) {
        return slices().matching(root + ".(*)..").namingSlices("$1")
                .should().beFreeOfCycles()
                .because("each internal package of " + root + " is a layer a reader can take in without the others"
                        + " above it");
    }

    /** Classes in a package under {@code root}, not in {@code root} itself. */
    private static DescribedPredicate<JavaClass> internal(String root) {
        return DescribedPredicate.describe("are in an internal package of " + root,
                type -> type.getPackageName().startsWith(root + "."));
    }
}
