package dev.durable.jdbc;

import java.io.OutputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import liquibase.Scope;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The PostgreSQL schema that holds durable's tables: its validated name, the SQL that checks it is there, and the
 * shipped Liquibase changelog that creates it.
 *
 * <p>The name is an SQL identifier, validated here once and then written into the engine's SQL text when a
 * repository is built (identifiers cannot be bound as parameters); values never are.
 */
public final class DurableSchema {

    /** The schema used when none is configured. */
    public static final String DEFAULT_NAME = "public";

    /** The shipped changelog, on the classpath. Each version is also published as plain SQL next to it. */
    public static final String CHANGELOG = "dev/durable/db/changelog.xml";

    /**
     * The schema as plain SQL, on the classpath, for applications running their own migrations: the versions in
     * order, each applied once.
     */
    public static final List<String> SQL_SCRIPTS = List.of("dev/durable/db/V1__durable_schema.sql",
            "dev/durable/db/V2__durable_nodes.sql", "dev/durable/db/V3__durable_await_deadlines.sql",
            "dev/durable/db/V4__durable_schedules.sql", "dev/durable/db/V5__durable_retention.sql",
            "dev/durable/db/V6__durable_cancel.sql", "dev/durable/db/V7__durable_business_keys.sql",
            "dev/durable/db/V8__durable_children.sql", "dev/durable/db/V9__durable_history.sql");

    /** Liquibase's tracking tables for durable's changelog, apart from any of the application's. */
    public static final String CHANGELOG_TABLE = "durable_changelog";
    public static final String CHANGELOG_LOCK_TABLE = "durable_changelog_lock";

    // The lock that serializes migrate() across nodes, keyed by the schema's name (bound as "durable-schema:<name>").
    // Tried, not waited for: a backend waiting for an advisory lock holds a snapshot, and CREATE INDEX CONCURRENTLY
    // in the holder's changeset waits for every older snapshot, so waiting nodes would deadlock with the installing
    // one. A node that does not get the lock retries after a pause.
    private static final String TRY_LOCK = "SELECT pg_try_advisory_lock(hashtextextended(?, 0))";
    private static final Duration LOCK_RETRY = Duration.ofMillis(100);
    private static final Logger log = LoggerFactory.getLogger(DurableSchema.class);
    private static final String UNLOCK = "SELECT pg_advisory_unlock(hashtextextended(?, 0))";

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    private final String name;

    private DurableSchema(String name) {
        this.name = name;
    }

    /**
     * The schema called {@code name}: a lower-case unquoted PostgreSQL identifier.
     *
     * @throws IllegalArgumentException naming the value if it is not one
     */
    public static DurableSchema named(String name) {
        Objects.requireNonNull(name, "schema name must not be null");
        if (!IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException("Schema name '" + name + "' is not a lower-case PostgreSQL identifier"
                    + " (letters a-z, digits and _, not starting with a digit, at most 63 characters)");
        }
        return new DurableSchema(name);
    }

    public String name() {
        return name;
    }

    /** Whether durable's tables exist in this schema. */
    public boolean isInstalled(DataSource dataSource) {
        Boolean installed = new JdbcTemplate(dataSource).queryForObject(
                "SELECT to_regclass(?) IS NOT NULL AND to_regclass(?) IS NOT NULL", Boolean.class,
                name + ".durable_instance", name + ".durable_signal");
        return Boolean.TRUE.equals(installed);
    }

    /**
     * Creates the schema if needed and applies the shipped changelog to it with Liquibase (which must be on the
     * classpath). Safe to call on every start and from many nodes at once: the whole step runs under a PostgreSQL
     * advisory lock keyed by the schema's name, so nodes started together install the schema one after the other
     * and the later ones find nothing left to apply. (Liquibase's own lock does not suffice: it creates its
     * tracking tables before it takes that lock, and two nodes doing so at once collide.)
     */
    public void migrate(DataSource dataSource) {
        migrate(dataSource, CHANGELOG);
    }

    /** {@link #migrate(DataSource)} with another changelog: the upgrade test installs an older version this way. */
    void migrate(DataSource dataSource, String changelog) {
        if (!liquibaseAvailable(DurableSchema.class.getClassLoader())) {
            throw new IllegalStateException("Liquibase is not on the classpath, so durable's changelog cannot run:"
                    + " add org.liquibase:liquibase-core, or create the tables with your own migrations from "
                    + SQL_SCRIPTS);
        }
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(true);
            // A session-level lock on the connection Liquibase then uses: it outlives Liquibase's own commits,
            // needs no second connection (a pool of one suffices), and dies with the session if the node does.
            takeLock(connection);
            try {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("CREATE SCHEMA IF NOT EXISTS " + name);
                    // The session's own search_path, for the changesets that run outside a transaction: Liquibase
                    // 5.0.3 sets its default schema with SET LOCAL, which such a changeset does not see (its issue
                    // 7791). Reset below, as the connection goes back to the application's pool.
                    statement.execute("SET search_path TO " + name);
                }
                update(connection, changelog);
                if (!connection.getAutoCommit()) {
                    connection.commit();
                }
            } finally {
                connection.setAutoCommit(true);
                try (Statement statement = connection.createStatement()) {
                    statement.execute("RESET search_path");
                }
                releaseLock(connection);
                connection.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not install durable's schema '" + name + "': " + e.getMessage(), e);
        }
    }

    /**
     * Takes the lock that serializes {@link #migrate} across nodes for this schema, trying again every
     * {@code LOCK_RETRY} while another node holds it.
     */
    private void takeLock(Connection connection) throws SQLException {
        boolean logged = false;
        while (true) {
            try (PreparedStatement statement = connection.prepareStatement(TRY_LOCK)) {
                statement.setString(1, lockKey());
                try (ResultSet result = statement.executeQuery()) {
                    if (result.next() && result.getBoolean(1)) {
                        return;
                    }
                }
            }
            if (!logged) {
                log.info("Another node is installing durable's schema '{}'; waiting for it to finish", name);
                logged = true;
            }
            try {
                Thread.sleep(LOCK_RETRY.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting to install durable's schema '" + name
                        + "'", e);
            }
        }
    }

    private void releaseLock(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(UNLOCK)) {
            statement.setString(1, lockKey());
            statement.execute();
        }
    }

    private String lockKey() {
        return "durable-schema:" + name;
    }

    /** Whether {@code classLoader} can load Liquibase, which {@link #migrate(DataSource)} runs. */
    public static boolean liquibaseAvailable(@Nullable ClassLoader classLoader) {
        try {
            Class.forName("liquibase.command.CommandScope", false, classLoader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private void update(Connection connection, String changelog) {
        try {
            Database database = DatabaseFactory.getInstance()
                    .findCorrectDatabaseImplementation(new JdbcConnection(connection));
            database.setDefaultSchemaName(name);
            database.setLiquibaseSchemaName(name);
            database.setDatabaseChangeLogTableName(CHANGELOG_TABLE);
            database.setDatabaseChangeLogLockTableName(CHANGELOG_LOCK_TABLE);
            Map<String, Object> scope = new LinkedHashMap<>();
            scope.put(Scope.Attr.resourceAccessor.name(),
                    new ClassLoaderResourceAccessor(DurableSchema.class.getClassLoader()));
            // No usage reports to the vendor from a library's migration, and messages to the log, not stdout.
            scope.put("liquibase.analytics.enabled", false);
            scope.put(Scope.Attr.ui.name(), new LoggerUIService());
            Scope.child(scope, () -> new CommandScope(UpdateCommandStep.COMMAND_NAME)
                    .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                    .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, changelog)
                    .setOutput(OutputStream.nullOutputStream())
                    .execute());
        } catch (Exception e) {
            throw new IllegalStateException("Liquibase could not apply " + changelog + " to schema '" + name + "': "
                    + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
