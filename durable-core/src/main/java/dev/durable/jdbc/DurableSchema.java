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
            "dev/durable/db/V8__durable_children.sql", "dev/durable/db/V9__durable_history.sql",
            "dev/durable/db/V10__durable_suspension.sql", "dev/durable/db/V11__durable_in_flight.sql",
            "dev/durable/db/V12__durable_suspension_and_in_flight_complete.sql",
            "dev/durable/db/V13__durable_live_counts.sql", "dev/durable/db/V14__durable_schema_version.sql",
            "dev/durable/db/V15__durable_trace_context.sql",
            "dev/durable/db/V16__durable_history_patches.sql", "dev/durable/db/V17__durable_history_time.sql",
            "dev/durable/db/V18__durable_history_rollup.sql", "dev/durable/db/V19__durable_queue_limits.sql");

    /**
     * The schema version this code knows: the last of {@link #SQL_SCRIPTS}, which the schema records in its table
     * {@code durable_schema_version}. A node refuses to start against a schema of a higher version
     * ({@link #requireKnownVersion}).
     */
    public static final int VERSION = 19;

    /** Liquibase's tracking tables for durable's changelog, apart from any of the application's. */
    public static final String CHANGELOG_TABLE = "durable_changelog";
    public static final String CHANGELOG_LOCK_TABLE = "durable_changelog_lock";

    // The lock that serializes migrate() across nodes, keyed by the schema's name (bound as "durable-schema:<name>").
    // Tried, not waited for: a backend waiting for an advisory lock holds a snapshot, and CREATE INDEX CONCURRENTLY
    // in the holder's changeset waits for every older snapshot, so waiting nodes would deadlock with the installing
    // one. A node that does not get the lock retries after a pause.
    // The lock and the search_path below are the only session state durable ever sets, and only here: each statement
    // that sets or clears them also answers which server process ran it, so that a connection pooler in transaction
    // mode, which hands consecutive statements to different sessions, is noticed instead of stranding the lock
    // (docs/DESIGN.md, "Connection poolers").
    private static final String TRY_LOCK = "SELECT pg_try_advisory_lock(hashtextextended(?, 0)), pg_backend_pid()";
    private static final Duration LOCK_RETRY = Duration.ofMillis(100);
    private static final Logger log = LoggerFactory.getLogger(DurableSchema.class);
    // The session's own search_path, for the changesets that run outside a transaction: Liquibase 5.0.3 sets its
    // default schema with SET LOCAL, which such a changeset does not see (its issue 7791). And no NOTICE: the shipped
    // changesets that may find their work done (IF NOT EXISTS, version 12 after 10 and 11) would print "already
    // exists, skipping" on every install, and so would CREATE SCHEMA IF NOT EXISTS public. Warnings still come.
    private static final String SET_SEARCH_PATH = """
            SELECT set_config('search_path', ?, false), set_config('client_min_messages', 'warning', false),
                   pg_backend_pid()""";
    // Unlocks, and gives the search_path and client_min_messages back their values from before (the connection returns
    // to the application's pool). Run in another session than the lock's, the unlock finds nothing to release (and
    // PostgreSQL warns).
    private static final String RELEASE = """
            SELECT set_config('search_path', (SELECT reset_val FROM pg_settings WHERE name = 'search_path'), false),
                   set_config('client_min_messages',
                              (SELECT reset_val FROM pg_settings WHERE name = 'client_min_messages'), false),
                   pg_advisory_unlock(hashtextextended(?, 0)), pg_backend_pid()""";
    // The version the schema records (version 14 on), read before anything is written; {schema} is the validated name.
    private static final String VERSION_TABLE = "{schema}.durable_schema_version";
    private static final String READ_VERSION = "SELECT max(version) FROM {schema}.durable_schema_version";

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
     * The version the schema records in {@code durable_schema_version}; {@code null} when it records none (not
     * installed, or installed before version 14, which is older than this code anyway).
     */
    public @Nullable Integer installedVersion(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return installedVersion(connection);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not read the version of durable's schema '" + name + "': "
                    + e.getMessage(), e);
        }
    }

    /**
     * Fails unless this code knows the schema's version: a schema newer than {@link #VERSION} was upgraded by newer
     * code, and this node, rolled back past that upgrade, would write beside rows it may not read. Reads only.
     *
     * @throws SchemaTooNewException naming both versions, when the schema is newer than this code
     */
    public void requireKnownVersion(DataSource dataSource) {
        requireKnownVersion(installedVersion(dataSource));
    }

    private void requireKnownVersion(@Nullable Integer installed) {
        if (installed != null && installed > VERSION) {
            throw new SchemaTooNewException(name, installed, VERSION);
        }
    }

    private @Nullable Integer installedVersion(Connection connection) throws SQLException {
        try (PreparedStatement exists = connection.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            exists.setString(1, VERSION_TABLE.replace("{schema}", name));
            try (ResultSet result = exists.executeQuery()) {
                result.next();
                if (!result.getBoolean(1)) {
                    return null;
                }
            }
        }
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(READ_VERSION.replace("{schema}", name))) {
            result.next();
            int version = result.getInt(1);
            return result.wasNull() ? null : version;
        }
    }

    /**
     * Creates the schema if needed and applies the shipped changelog to it with Liquibase (which must be on the
     * classpath). Safe to call on every start and from many nodes at once: the whole step runs under a PostgreSQL
     * advisory lock keyed by the schema's name, so nodes started together install the schema one after the other
     * and the later ones find nothing left to apply. (Liquibase's own lock does not suffice: it creates its
     * tracking tables before it takes that lock, and two nodes doing so at once collide.)
     *
     * <p>The lock and the {@code search_path} the changesets run with belong to a database session, so the data
     * source must reach PostgreSQL directly (or through a pooler in session mode), not through a pooler in
     * transaction mode such as PgBouncer's {@code pool_mode=transaction}: the engine itself runs behind one, its
     * schema is installed over a direct connection.
     *
     * <p>A schema newer than this code ({@link #VERSION}) is refused before anything is created or locked.
     *
     * @throws SchemaTooNewException naming both versions, if the schema is newer than this code
     * @throws IllegalStateException if the schema cannot be installed, and, naming the server process that keeps
     *                               the lock, when the statements reached PostgreSQL in different sessions (a
     *                               transaction pooler)
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
            int session = takeLock(connection);
            boolean installed = false;
            try {
                // Right after the lock, so that a pooler handing statements to different sessions is caught before
                // anything is created.
                requireSession(session, setSearchPath(connection), "was not installed: setting its search_path");
                // Before anything is written: a schema newer than this code is left as it is, lock tables included.
                requireKnownVersion(installedVersion(connection));
                try (Statement statement = connection.createStatement()) {
                    statement.execute("CREATE SCHEMA IF NOT EXISTS " + name);
                }
                update(connection, changelog);
                if (!connection.getAutoCommit()) {
                    connection.commit();
                }
                installed = true;
            } finally {
                connection.setAutoCommit(true);
                int released = release(connection);
                connection.setAutoCommit(autoCommit);
                if (installed) {
                    // Failing here, after the changesets ran, still tells a transaction pooler apart: the lock was
                    // never released and the search_path of some server session still points at this schema.
                    requireSession(session, released, "was installed, but releasing its lock");
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not install durable's schema '" + name + "': " + e.getMessage(), e);
        }
    }

    /**
     * Fails unless the statement that answered {@code process} ran in the session that took the lock, {@code locked};
     * {@code step} says what the schema's state is and which statement ran elsewhere.
     * A pooler in transaction mode hands each statement to whichever server session is free; the lock then stays
     * with the session that took it, so the message names it and how to end it.
     */
    private void requireSession(int locked, int process, String step) {
        if (process != locked) {
            throw new IllegalStateException("durable's schema '" + name + "' " + step + " ran in"
                    + " PostgreSQL server process " + process + ", not in process " + locked + " that took the"
                    + " installation lock, so the DataSource goes through a connection pooler in transaction mode"
                    + " (PgBouncer's pool_mode=transaction, or a cloud pooler that does not pin sessions). Install the"
                    + " schema over a direct connection (durable.initialize-schema=false and your migration tool, or"
                    + " DurableSchema.migrate on a direct DataSource); the engine itself runs behind the pooler. The"
                    + " lock stays with process " + locked + " until its session ends, which pg_terminate_backend("
                    + locked + ") brings about. See \"Connection poolers\" in durable's docs/DESIGN.md.");
        }
    }

    /** Points the session's search_path at this schema; the server process that ran it. */
    private int setSearchPath(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(SET_SEARCH_PATH)) {
            statement.setString(1, name);
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getInt(3);
            }
        }
    }

    /**
     * Takes the lock that serializes {@link #migrate} across nodes for this schema, trying again every
     * {@code LOCK_RETRY} while another node holds it; the server process whose session holds it.
     */
    private int takeLock(Connection connection) throws SQLException {
        boolean logged = false;
        while (true) {
            try (PreparedStatement statement = connection.prepareStatement(TRY_LOCK)) {
                statement.setString(1, lockKey());
                try (ResultSet result = statement.executeQuery()) {
                    if (result.next() && result.getBoolean(1)) {
                        return result.getInt(2);
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

    /** Releases the lock and resets the search_path; the server process that ran it. */
    private int release(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(RELEASE)) {
            statement.setString(1, lockKey());
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getInt(4);
            }
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
