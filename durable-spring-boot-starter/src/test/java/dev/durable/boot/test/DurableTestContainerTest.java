package dev.durable.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * With a Docker engine answering, a {@code @DurableTest} with no database configured runs on a Testcontainers
 * PostgreSQL through Spring Boot's {@code @ServiceConnection}. Skipped where no Docker engine answers (the condition
 * is evaluated before any context is built, so nothing tries to reach Docker then).
 */
@EnabledIf("dockerAnswers")
@SpringBootTest(properties = {"durable.schema=container_postgres_test", "durable.queues.reminders.concurrency=2"})
@DurableTest
class DurableTestContainerTest {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Reminder.class)
    static class Application {
    }

    static boolean dockerAnswers() {
        return DurableTestPostgres.dockerAnswers(DurableTestContainerTest.class.getClassLoader());
    }

    @Autowired
    PostgreSQLContainer container;

    @Autowired
    JdbcConnectionDetails database;

    @Test
    void theDatabaseIsTheContainersThroughItsServiceConnection() {
        assertThat(container.isRunning()).isTrue();
        assertThat(container.getDockerImageName()).isEqualTo(DurableTestPostgres.IMAGE);
        assertThat(database.getJdbcUrl()).isEqualTo(container.getJdbcUrl());
    }
}
