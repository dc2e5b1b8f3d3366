package dev.durable.sample.database;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.test.postgres.TestPostgres;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** The startup check of whether the database commits durably. */
@ExtendWith(OutputCaptureExtension.class)
class DurabilityCheckTest {

    @Test
    void sessionsWithSynchronousCommitOffAreReportedAsNotDurable(CapturedOutput output) {
        // The setting of the application's sessions counts, not the server's default.
        DriverManagerDataSource dataSource = dataSource("-c synchronous_commit=off");

        assertThat(new DurabilityCheck(JdbcClient.create(dataSource)).check()).contains("synchronous_commit=off");
        assertThat(output).contains("WARN").contains("PostgreSQL does not commit durably: ")
                .contains("synchronous_commit=off").doesNotContain(DurabilityCheck.DURABLE);
    }

    @Test
    void serverDefaultsAreDurable() {
        assertThat(DurabilityCheck.notDurable(
                Map.of("fsync", "on", "synchronous_commit", "on", "full_page_writes", "on"))).isEmpty();
        assertThat(DurabilityCheck.notDurable(
                Map.of("fsync", "on", "synchronous_commit", "remote_apply", "full_page_writes", "on"))).isEmpty();
        assertThat(DurabilityCheck.notDurable(
                Map.of("fsync", "on", "synchronous_commit", "local", "full_page_writes", "on"))).isEmpty();
    }

    @Test
    void eachSettingThatIsOffIsNamed() {
        assertThat(DurabilityCheck.notDurable(
                Map.of("fsync", "off", "synchronous_commit", "off", "full_page_writes", "off")))
                .containsExactly("fsync=off", "synchronous_commit=off", "full_page_writes=off");
        assertThat(DurabilityCheck.notDurable(
                Map.of("fsync", "on", "synchronous_commit", "on", "full_page_writes", "off")))
                .containsExactly("full_page_writes=off");
        assertThat(DurabilityCheck.notDurable(Map.of("synchronous_commit", "on", "full_page_writes", "on")))
                .containsExactly("fsync=unknown");
    }

    private static DriverManagerDataSource dataSource(String options) {
        TestPostgres postgres = TestPostgres.get();
        DriverManagerDataSource dataSource = new DriverManagerDataSource(postgres.jdbcUrl(), postgres.username(),
                postgres.password());
        Properties properties = new Properties();
        properties.setProperty("options", options);
        dataSource.setConnectionProperties(properties);
        return dataSource;
    }
}
