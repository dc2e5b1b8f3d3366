package dev.durable.runtime;

import static org.awaitility.Awaitility.await;

import dev.durable.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Forcing the order of two statements that race for one instance row: a connection holds the row lock in an open
 * transaction while the statements queue up behind it (PostgreSQL grants a row lock to its waiters in arrival order),
 * and a probe of {@code pg_stat_activity} says when a statement has reached the lock.
 */
final class RowLocks {

    private RowLocks() {
    }

    /** A connection in an open transaction (the caller commits or closes it). */
    static Connection openTransaction(DataSource dataSource) throws Exception {
        Connection connection = dataSource.getConnection();
        connection.setAutoCommit(false);
        return connection;
    }

    /** A connection holding the lock of instance {@code id}'s row in an open transaction. */
    static Connection lockRow(DataSource dataSource, long id) throws Exception {
        Connection connection = openTransaction(dataSource);
        try (PreparedStatement lock = connection.prepareStatement(
                "SELECT id FROM " + TestDatabase.SCHEMA + ".durable_instance WHERE id = ? FOR NO KEY UPDATE")) {
            lock.setLong(1, id);
            lock.executeQuery().close();
        }
        return connection;
    }

    /** Waits until some backend running a statement containing {@code queryPart} waits for a lock. */
    static void awaitLockWait(String queryPart) {
        awaitLockWaits(queryPart, 1);
    }

    /** Waits until exactly {@code count} backends running a statement containing {@code queryPart} wait for a lock. */
    static void awaitLockWaits(String queryPart, int count) {
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.jdbc().queryForObject("""
                SELECT count(*) FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock' AND position(? IN query) > 0
                """, Long.class, queryPart) == count);
    }
}
