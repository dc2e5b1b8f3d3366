package dev.durable.runtime.jdbc;

import java.lang.reflect.Method;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A {@link JdbcTemplate} whose statements PostgreSQL plans at every execution, for the table as it is then.
 *
 * <p>Once the JDBC driver prepares a statement on the server (from its fifth execution on one connection),
 * PostgreSQL may settle on a generic plan and keeps it until the table's statistics change. A generic plan made
 * while the statistics describe {@code durable_instance} as empty or tiny (a fresh deployment, a burst that comes
 * before autovacuum's next analyze, a server without autovacuum) scans the table inside nested loops; a pick on a
 * table that had meanwhile grown to 100,000 rows took seconds instead of a millisecond ({@code StalePlanTest}).
 * A statement the driver does not prepare on the server is planned each time from the table's real size, for
 * about a millisecond of the database's time. {@link StatementPlanning} sends the hot statements through here
 * only while the statistics say the table is small. Parameters stay bound as before.
 *
 * <p>Applies to PostgreSQL's own driver (unwrapped through any pool); other drivers' statements are left alone.
 */
public final class FreshlyPlannedJdbcTemplate extends JdbcTemplate {

    private static final @Nullable Class<?> PG_STATEMENT = load("org.postgresql.PGStatement");
    private static final @Nullable Method SET_PREPARE_THRESHOLD = PG_STATEMENT == null ? null
            : method(PG_STATEMENT);

    public FreshlyPlannedJdbcTemplate(DataSource dataSource) {
        super(dataSource);
    }

    @Override
    protected void applyStatementSettings(Statement statement) throws SQLException {
        super.applyStatementSettings(statement);
        if (SET_PREPARE_THRESHOLD != null && statement.isWrapperFor(PG_STATEMENT)) {
            try {
                SET_PREPARE_THRESHOLD.invoke(statement.unwrap(PG_STATEMENT), 0); // 0: never prepare on the server
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("Could not configure a PostgreSQL statement", e);
            }
        }
    }

    private static @Nullable Class<?> load(String name) {
        try {
            return Class.forName(name, false, FreshlyPlannedJdbcTemplate.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    private static @Nullable Method method(Class<?> type) {
        try {
            return type.getMethod("setPrepareThreshold", int.class);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }
}
