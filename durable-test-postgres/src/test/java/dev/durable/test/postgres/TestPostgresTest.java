package dev.durable.test.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The PostgreSQL the tests find is the one the build asked for: the {@code postgres14} and {@code postgres18}
 * profiles choose the embedded binaries of a major version, and every test JVM checks it (docs/COMPATIBILITY.md).
 */
class TestPostgresTest {

    @Test
    void theTestsRunOnThePostgresVersionTheBuildAsksFor() {
        TestPostgres postgres = TestPostgres.get();
        String version = postgres.version();
        System.out.println("PostgreSQL under test (" + postgres.source() + "): " + version);

        assertThat(version).startsWith("PostgreSQL " + postgres.majorVersion() + ".");
        String expected = System.getenv(TestPostgres.MAJOR_VARIABLE);
        if (expected != null && !expected.isBlank()) {
            assertThat(postgres.majorVersion()).isEqualTo(Integer.parseInt(expected.trim()));
        }
    }
}
