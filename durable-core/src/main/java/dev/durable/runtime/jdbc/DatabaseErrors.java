package dev.durable.runtime.jdbc;

import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLTransientException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.TransactionTemplate;

/** Sorts database failures into "try again later" and "this will fail again". */
public final class DatabaseErrors {

    private DatabaseErrors() {
    }

    /** The database cannot be reached (down, restarting, network cut, pool exhausted). */
    public static boolean isUnreachable(Throwable error) {
        for (Throwable t : chain(error)) {
            if (t instanceof DataAccessResourceFailureException
                    || t instanceof CannotCreateTransactionException
                    // a commit or rollback that could not complete: the connection is gone (and a failed commit
                    // is ambiguous: the retry must check what was written)
                    || t instanceof TransactionSystemException
                    || t instanceof SQLTransientConnectionException
                    || t instanceof SQLNonTransientConnectionException
                    || t instanceof SQLRecoverableException
                    || t instanceof IOException) {
                return true;
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                // 08: connection exception; 57P01-57P03: admin shutdown, crash shutdown, cannot connect now;
                // 25006: read-only SQL transaction: the connection reached a server that takes no writes (a standby,
                // or a primary demoted by a failover while its sessions lived on), so for writing the database is
                // not reachable through it; an outcome refused so must wait, not fail its instance
                if (state.startsWith("08") || state.startsWith("57P") || state.equals("25006")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Worth retrying: unreachable, or a transient conflict (serialization failure, deadlock, lock timeout). */
    public static boolean isTransient(Throwable error) {
        if (isUnreachable(error)) {
            return true;
        }
        for (Throwable t : chain(error)) {
            if (t instanceof TransientDataAccessException || t instanceof SQLTransientException) {
                return true;
            }
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                String state = sql.getSQLState();
                // 40: transaction rollback (serialization failure, deadlock); 55P03: lock not available;
                // 53: insufficient resources
                if (state.startsWith("40") || state.equals("55P03") || state.startsWith("53")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A deadlock PostgreSQL broke by aborting this transaction (SQL state 40P01): the work may be tried again. */
    public static boolean isDeadlock(Throwable error) {
        for (Throwable t : chain(error)) {
            if (t instanceof SQLException sql && "40P01".equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code error} and everything behind it: causes, chained SQL exceptions, and the exception a failed rollback
     * replaced ({@link TransactionTemplate} throws the rollback's failure, carrying the original as its application
     * exception, when the connection died under a transaction).
     */
    private static List<Throwable> chain(Throwable error) {
        List<Throwable> chain = new ArrayList<>();
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> todo = new ArrayDeque<>(List.of(error));
        while (!todo.isEmpty()) {
            Throwable t = todo.pop();
            if (!seen.add(t)) {
                continue;
            }
            chain.add(t);
            addIfPresent(todo, t.getCause());
            if (t instanceof SQLException sql) {
                addIfPresent(todo, sql.getNextException());
            }
            if (t instanceof TransactionSystemException tx) {
                addIfPresent(todo, tx.getApplicationException());
            }
        }
        return chain;
    }

    private static void addIfPresent(Deque<Throwable> todo, @Nullable Throwable t) {
        if (t != null) {
            todo.add(t);
        }
    }
}
