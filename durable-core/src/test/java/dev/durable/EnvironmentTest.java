package dev.durable;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.test.postgres.TestPostgres;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

/**
 * The test environment itself: tests run in a time zone far from UTC with a non-whole-hour offset, on the JVM and
 * in the database session, so that a time bug (a JVM clock compared with the database's, a timestamp read without
 * its zone) shows up as a failure instead of passing by luck.
 */
class EnvironmentTest {

    @Test
    void theJvmAndTheDatabaseSessionRunInANonUtcZone() {
        assertThat(TimeZone.getDefault().getID()).isEqualTo("Pacific/Chatham");
        assertThat(TestDatabase.jdbc().queryForObject("SHOW TimeZone", String.class)).isEqualTo("Pacific/Chatham");
    }

    /** The engine's tests say which PostgreSQL they ran on (docs/COMPATIBILITY.md lists the versions). */
    @Test
    void theEngineTestsRunOnThePostgresVersionTheBuildAsksFor() {
        String version = TestDatabase.jdbc().queryForObject("SELECT version()", String.class);
        System.out.println("Engine tests run on " + version);

        String expected = System.getenv(TestPostgres.MAJOR_VARIABLE);
        assertThat(version).startsWith("PostgreSQL " + (expected == null || expected.isBlank()
                ? TestPostgres.get().majorVersion() : expected.trim()) + ".");
    }

    @Test
    void timestampsReadFromTheDatabaseAreTheRightInstant() {
        Instant database = TestDatabase.jdbc().queryForObject("SELECT now()", OffsetDateTime.class).toInstant();

        assertThat(Duration.between(database, Instant.now()).abs()).isLessThan(Duration.ofSeconds(5));
    }
}
