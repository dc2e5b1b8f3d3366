package dev.durable.runtime.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.durable.testing.TestDatabase;
import java.net.SocketException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.TransactionTemplate;

/** How failures are sorted into "retry later" and "will fail again". */
class DatabaseErrorsTest {

    /**
     * The shape {@code TransactionTemplate} throws when the connection dies inside a transaction: the statement's
     * failure is replaced by the rollback's ("Connection is closed", no SQL state) and kept as the application
     * exception. Taken for a refusal, it turned a finished step's outcome into a failed instance.
     */
    @Test
    void aRollbackThatFailedAfterTheConnectionDiedIsUnreachableNotARefusal() {
        TransactionSystemException rollbackFailed = new TransactionSystemException("JDBC rollback failed",
                new SQLException("Connection is closed"));
        rollbackFailed.initApplicationException(new DataAccessResourceFailureException("statement failed",
                new SQLException("An I/O error occurred while sending to the backend.", "08006",
                        new SocketException("Connection reset by peer"))));

        assertThat(DatabaseErrors.isUnreachable(rollbackFailed)).isTrue();
        assertThat(DatabaseErrors.isTransient(rollbackFailed)).isTrue();
    }

    @Test
    void aCommitThatCouldNotCompleteIsUnreachable() {
        assertThat(DatabaseErrors.isUnreachable(new TransactionSystemException("JDBC commit failed",
                new SQLException("Connection is closed")))).isTrue();
    }

    /**
     * A write on a connection to a server that takes no writes (a standby, a demoted primary whose sessions lived on)
     * is PostgreSQL's SQL state 25006, here from the real server in a read-only transaction. Taken for a refusal, a
     * finished step's outcome would fail its instance; it is the database being unreachable for writing
     * (docs/RELIABILITY.md, "Running on a highly available PostgreSQL").
     */
    @Test
    void aWriteOnAServerThatTakesNoWritesIsUnreachable() {
        TransactionTemplate readOnly = new TransactionTemplate(
                new DataSourceTransactionManager(TestDatabase.dataSource()));
        readOnly.setReadOnly(true);

        Throwable refused = catchThrowable(() -> readOnly.executeWithoutResult(status -> TestDatabase.jdbc()
                .update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance SET attempt = attempt WHERE id = -1")));

        assertThat(refused).isInstanceOf(DataAccessException.class);
        assertThat(DatabaseErrors.isUnreachable(refused)).as(String.valueOf(refused)).isTrue();
        assertThat(DatabaseErrors.isTransient(refused)).isTrue();
    }

    @Test
    void aConstraintViolationIsNeitherUnreachableNorTransient() {
        DataIntegrityViolationException violation = new DataIntegrityViolationException("duplicate",
                new SQLException("duplicate key value violates unique constraint", "23505"));

        assertThat(DatabaseErrors.isUnreachable(violation)).isFalse();
        assertThat(DatabaseErrors.isTransient(violation)).isFalse();
    }

    @Test
    void aSerializationFailureIsTransientButNotUnreachable() {
        SQLException serialization = new SQLException("could not serialize access", "40001");

        assertThat(DatabaseErrors.isUnreachable(serialization)).isFalse();
        assertThat(DatabaseErrors.isTransient(serialization)).isTrue();
    }

    @Test
    void aCyclicCauseChainEnds() {
        SQLException first = new SQLException("first", "22000");
        SQLException second = new SQLException("second", "22000");
        first.setNextException(second);
        second.setNextException(first);

        assertThat(DatabaseErrors.isTransient(first)).isFalse();
    }
}
