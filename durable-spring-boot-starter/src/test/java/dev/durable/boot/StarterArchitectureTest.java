package dev.durable.boot;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.durable.boot.autoconfigure.DurableAutoConfiguration;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The starter is a user of {@code durable-core} like any application: it reaches the runtime through its public types
 * ({@code DurableEngine}, {@code EngineSettings}, ...), never through the runtime's internal packages
 * ({@code dev.durable.runtime.<concern>}, docs/DESIGN.md, "Public API"), whose classes may be public for one another.
 * Checked on the starter's compiled main classes; durable-core's {@code ArchitectureTest} checks its own.
 */
class StarterArchitectureTest {

    private static final String RUNTIME = "dev.durable.runtime";

    @Test
    void theStarterUsesNoInternalPackageOfTheRuntime() throws Exception {
        Path classes = Path.of(DurableAutoConfiguration.class.getProtectionDomain().getCodeSource().getLocation()
                .toURI());
        JavaClasses starter = new ClassFileImporter().importPath(classes);
        assertThat(starter.stream().filter(type -> type.getPackageName().startsWith("dev.durable.boot")).count())
                .as("the starter's classes").isGreaterThan(20);

        noClasses().should().dependOnClassesThat(DescribedPredicate.describe(
                        "are in an internal package of " + RUNTIME,
                        (JavaClass type) -> type.getPackageName().startsWith(RUNTIME + ".")))
                .check(starter);
    }
}
