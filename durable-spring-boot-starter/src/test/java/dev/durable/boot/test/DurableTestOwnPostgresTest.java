package dev.durable.boot.test;

import static dev.durable.test.DurableAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.test.DurableTestEngine;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A {@code @DurableTest} whose application configures no database ({@code spring.datasource.url} unset) gets a
 * PostgreSQL of its own: with no Docker engine answering (the build's machine has none), the embedded one, which the
 * kit then drives a day on. With Docker, the Testcontainers route is taken instead ({@link DurableTestContainerTest}).
 */
@SpringBootTest(properties = {"durable.schema=own_postgres_test", "durable.queues.reminders.concurrency=2"})
@DurableTest
class DurableTestOwnPostgresTest {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Reminder.class)
    static class Application {
    }

    @Autowired
    DurableTestEngine durable;

    @Autowired
    DataSource dataSource;

    @Autowired
    JdbcConnectionDetails database;

    @Test
    void withNoDatabaseConfiguredTheTestBringsItsOwnPostgreSql() {
        if (!DurableTestPostgres.dockerAnswers(getClass().getClassLoader())) {
            assertThat(database.getJdbcUrl()).as("the embedded server's")
                    .isEqualTo(DurableTestPostgres.EmbeddedServer.get().getJdbcUrl("postgres", "postgres"));
        }
        assertThat(new JdbcTemplate(dataSource).queryForObject("SELECT version()", String.class))
                .startsWith("PostgreSQL ");

        long id = durable.client().start(Reminder.class, new Reminder.Call("ada")).id();
        durable.runDue();
        assertThat(durable.instance(id)).waitsFor("called", durable.instance(id).deadline());
        durable.advance(Duration.ofDays(1));
        assertThat(durable.instance(id)).isDone().hasResult("rang ada");
    }
}
