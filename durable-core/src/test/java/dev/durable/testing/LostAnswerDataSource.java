package dev.durable.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that makes chosen commits ambiguous, as a connection dying at the wrong moment does: the
 * statement (or the transaction it ran in) is committed by the server, and the client then gets a connection
 * failure (SQL state {@code 08006}) instead of the answer; or the connection fails before the statement is sent,
 * and nothing is committed. Either way the writer cannot tell which happened. Each rule applies once, to the
 * {@code nth} execution of a statement whose SQL contains its marker.
 */
public final class LostAnswerDataSource {

    /** What a rule does to the statement it matches. */
    public enum Loss {
        /** The statement, or its transaction, commits on the server; its answer is lost. */
        AFTER_COMMIT,
        /** The connection fails before the statement is sent: nothing is committed. */
        BEFORE_SENDING
    }

    private record Rule(String marker, int nth, Loss loss, AtomicInteger seen) {
    }

    private final List<Rule> rules = new CopyOnWriteArrayList<>();
    private final List<String> lost = new CopyOnWriteArrayList<>();
    private final DataSource proxy;

    public LostAnswerDataSource(DataSource target) {
        this.proxy = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DataSource.class}, (self, method, args) -> {
                    Object result = invoke(target, method, args);
                    return result instanceof Connection connection ? connection(connection) : result;
                });
    }

    public DataSource dataSource() {
        return proxy;
    }

    /** Makes the {@code nth} (1-based) execution of a statement containing {@code marker} ambiguous, once. */
    public LostAnswerDataSource lose(String marker, int nth, Loss loss) {
        rules.add(new Rule(marker, nth, loss, new AtomicInteger()));
        return this;
    }

    /** The markers of the statements whose answers were lost so far, each with its loss, in order. */
    public List<String> lost() {
        return List.copyOf(lost);
    }

    private Connection connection(Connection target) {
        // A transaction whose commit must lose its answer: set by a statement matched inside it.
        AtomicInteger loseCommit = new AtomicInteger();
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (self, method, args) -> {
                    if (method.getName().equals("commit") && loseCommit.getAndSet(0) == 1) {
                        target.commit();
                        throw connectionFailure("the answer to COMMIT");
                    }
                    Object result = invoke(target, method, args);
                    if (result instanceof PreparedStatement statement && method.getName().equals("prepareStatement")) {
                        return statement(target, statement, (String) args[0], loseCommit);
                    }
                    return result;
                });
    }

    private Object statement(Connection connection, PreparedStatement target, String sql, AtomicInteger loseCommit) {
        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {PreparedStatement.class},
                (self, method, args) -> {
                    if (!method.getName().startsWith("execute")) {
                        return invoke(target, method, args);
                    }
                    Rule rule = null;
                    for (Rule candidate : rules) {
                        if (sql.contains(candidate.marker()) && candidate.seen().incrementAndGet() == candidate.nth()
                                && rule == null) {
                            rule = candidate;
                        }
                    }
                    if (rule == null) {
                        return invoke(target, method, args);
                    }
                    lost.add(rule.marker() + " " + rule.loss());
                    if (rule.loss() == Loss.BEFORE_SENDING) {
                        throw connectionFailure("sending " + rule.marker());
                    }
                    Object result = invoke(target, method, args);
                    if (connection.getAutoCommit()) {
                        // Committed by the server along with the statement: only the answer goes missing.
                        throw connectionFailure("the answer to " + rule.marker());
                    }
                    loseCommit.set(1);
                    return result;
                });
    }

    private static SQLException connectionFailure(String what) {
        return new SQLException("An I/O error occurred while waiting for " + what + " (lost by the test)", "08006");
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
