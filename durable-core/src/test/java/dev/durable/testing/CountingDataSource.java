package dev.durable.testing;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that records every SQL statement executed through it (and every commit), for tests that
 * hold the engine to a statement budget.
 */
public final class CountingDataSource {

    private final List<String> statements = new CopyOnWriteArrayList<>();
    private final List<String> commits = new CopyOnWriteArrayList<>();
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final DataSource proxy;

    public CountingDataSource(DataSource target) {
        this.proxy = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DataSource.class}, (self, method, args) -> {
                    Object result = invoke(target, method, args);
                    return result instanceof Connection connection ? connection(connection) : result;
                });
    }

    public DataSource dataSource() {
        return proxy;
    }

    /** The statements executed since the last {@link #reset()}, as their SQL text. */
    public List<String> statements() {
        return List.copyOf(statements);
    }

    public List<String> commits() {
        return List.copyOf(commits);
    }

    /** The statements and the commits ({@link #COMMIT}) since the last {@link #reset()}, in the order they ran. */
    public List<String> log() {
        return List.copyOf(log);
    }

    /** How a commit appears in {@link #log()}. */
    public static final String COMMIT = "COMMIT";

    public void reset() {
        statements.clear();
        commits.clear();
        log.clear();
    }

    private Connection connection(Connection target) {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (self, method, args) -> {
                    if (method.getName().equals("commit")) {
                        commits.add("commit");
                        log.add(COMMIT);
                    }
                    Object result = invoke(target, method, args);
                    if (result instanceof Statement statement && method.getName().startsWith("prepare")) {
                        return statement(statement, (String) args[0]);
                    }
                    if (result instanceof Statement statement) {
                        return statement(statement, null);
                    }
                    return result;
                });
    }

    private Object statement(Statement target, String preparedSql) {
        Class<?> type = target instanceof CallableStatement ? CallableStatement.class
                : target instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
        InvocationHandler handler = (self, method, args) -> {
            if (method.getName().startsWith("execute")) {
                String sql = preparedSql != null ? preparedSql : String.valueOf(args == null ? "" : args[0]);
                statements.add(sql);
                log.add(sql);
            }
            return invoke(target, method, args);
        };
        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, handler);
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
