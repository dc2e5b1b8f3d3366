package dev.durable.runtime.node;

import dev.durable.runtime.jdbc.WakeUpChannel;
import dev.durable.runtime.queue.QueueOwners;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's ear for other nodes' work and cancels (docs/DESIGN.md, "Wake-ups"): one thread that holds one dedicated
 * connection, taken from the engine's {@code DataSource} and never handed back to it while it listens, runs
 * {@code LISTEN} on the schema's channel and blocks in the driver's wait for notifications. A queue's notification
 * wakes the queue's owner ({@link QueueOwners#wake}); a cancel's drops or interrupts the claim this node holds of the
 * instance ({@link QueueOwners#cancelled}). Polling goes on beside it, unchanged.
 *
 * <p>A lost connection is opened again after a back-off (doubling from 100 ms up to the engine's
 * {@code maxRetryBackoff}); once it listens again every queue's owner is woken once, since a notification may have
 * been missed meanwhile. Where {@code LISTEN} cannot work — the JDBC URL is a pooler's, or the server refuses it — the
 * thread says so in one WARN and ends: the node polls only. PostgreSQL's driver is reached by reflection, as the
 * engine's other use of it ({@code FreshlyPlannedJdbcTemplate}): durable-core does not depend on it at compile time.
 */
public final class WakeUpListener {

    public static final String NAME = "durable-wake-ups";

    private static final Logger log = LoggerFactory.getLogger(WakeUpListener.class);
    /**
     * How long one wait for notifications blocks before the thread looks whether the node stops: a stop waits for the
     * wait under way (an interrupt does not cut the driver's read short). The wait reads the socket and sends nothing.
     */
    static final int WAIT_MILLIS = 100;
    /** After this long without a notification the connection is checked: a network can die silently. */
    static final Duration CHECK_AFTER_SILENCE = Duration.ofSeconds(30);
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    /** Host and port lists of a PostgreSQL JDBC URL. */
    private static final Pattern HOSTS = Pattern.compile("^jdbc:postgresql://([^/?]*)");

    private static final @Nullable Class<?> PG_CONNECTION = load("org.postgresql.PGConnection");
    private static final @Nullable Method GET_NOTIFICATIONS = PG_CONNECTION == null ? null
            : method(PG_CONNECTION, "getNotifications", int.class);

    /** False in poll-only mode: the listener never starts. */
    private final boolean listen;
    private final DataSource dataSource;
    private final String channel;
    private final QueueOwners owners;
    private final Duration maxBackoff;
    private final AtomicLong connects = new AtomicLong();
    private final AtomicLong heard = new AtomicLong();
    private volatile boolean running;
    private volatile boolean listening;
    private @Nullable Thread thread;

    /**
     * @param listen     false in poll-only mode, where {@link #start()} does nothing
     * @param channel    the schema's channel ({@link WakeUpChannel#of(String)})
     * @param maxBackoff the longest pause between attempts to listen again
     */
    public WakeUpListener(boolean listen, DataSource dataSource, String channel, QueueOwners owners,
            Duration maxBackoff) {
        this.listen = listen;
        this.dataSource = dataSource;
        this.channel = channel;
        this.owners = owners;
        this.maxBackoff = maxBackoff;
    }

    /** Starts the listening thread; a no-op while it runs, and in poll-only mode. */
    public synchronized void start() {
        if (thread != null || !listen) {
            return;
        }
        running = true;
        Thread listener = new Thread(this::run, NAME);
        listener.setDaemon(true);
        thread = listener;
        listener.start();
    }

    /** Stops listening and closes the connection (after {@code UNLISTEN}); waits up to {@code timeout}. */
    public synchronized void stop(Duration timeout) {
        running = false;
        Thread listener = thread;
        thread = null;
        if (listener != null) {
            listener.interrupt();
            try {
                listener.join(timeout.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Whether the node listens now: its connection is open and {@code LISTEN} was run on it. */
    public boolean listening() {
        return listening;
    }

    /** How many times the node began to listen: 1 after its start, one more after each reconnection. */
    public long connects() {
        return connects.get();
    }

    /** How many notifications of this schema the node heard. */
    public long heard() {
        return heard.get();
    }

    private void run() {
        Duration backoff = FIRST_BACKOFF;
        boolean warned = false;
        while (running) {
            Connection connection = null;
            try {
                connection = dataSource.getConnection();
                if (!listen(connection)) {
                    return; // poll only, said in one WARN
                }
                long count = connects.incrementAndGet();
                log.info(count == 1 ? "Listening for wake-ups on channel {}" : "Listening for wake-ups on channel {} "
                        + "again, after a lost connection; every queue looks for work once", channel);
                warned = false;
                backoff = FIRST_BACKOFF;
                owners.wakeAll(); // a notification may have been missed while the node did not listen
                listenUntilStopped(connection);
            } catch (SQLException | RuntimeException e) {
                listening = false;
                if (!running) {
                    break;
                }
                if (!warned) {
                    log.warn("The wake-up connection on channel {} failed ({}); the node polls and tries to listen "
                            + "again, backing off up to {}", channel, e.toString(), maxBackoff);
                    warned = true;
                } else {
                    log.debug("The wake-up connection on channel {} failed again", channel, e);
                }
                if (!pause(backoff)) {
                    break;
                }
                backoff = backoff.multipliedBy(2).compareTo(maxBackoff) > 0 ? maxBackoff : backoff.multipliedBy(2);
            } finally {
                listening = false;
                close(connection);
            }
        }
    }

    /** Runs {@code LISTEN}; false (after one WARN) where it cannot work, so the node polls only. */
    private boolean listen(Connection connection) throws SQLException {
        String pooler = poolerHint(connection.getMetaData().getURL());
        if (pooler != null) {
            log.warn("durable.wake-ups=listen, but the JDBC URL looks like a connection pooler's ({}): LISTEN does "
                    + "not work through a pooler in transaction mode, so this node polls only (set durable.wake-ups="
                    + "poll to say so)", pooler);
            return false;
        }
        if (GET_NOTIFICATIONS == null || PG_CONNECTION == null || !connection.isWrapperFor(PG_CONNECTION)) {
            log.warn("durable.wake-ups=listen, but the connection is not PostgreSQL's JDBC driver's; this node polls "
                    + "only");
            return false;
        }
        if (!connection.getAutoCommit()) {
            connection.setAutoCommit(true); // LISTEN takes effect at commit
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("LISTEN " + WakeUpChannel.quoted(channel));
        } catch (SQLException e) {
            if (connection.isValid(2)) {
                log.warn("durable.wake-ups=listen, but the server refused LISTEN ({}); this node polls only (behind a "
                        + "pooler in transaction mode set durable.wake-ups=poll)", e.getMessage());
                return false;
            }
            throw e;
        }
        listening = true;
        return true;
    }

    /** Waits for notifications and hands them on until the node stops or the connection fails. */
    private void listenUntilStopped(Connection connection) throws SQLException {
        Object pg = connection.unwrap(PG_CONNECTION);
        long quietSince = System.nanoTime();
        while (running) {
            Object[] notifications = notifications(pg);
            if (notifications.length > 0) {
                for (Object notification : notifications) {
                    deliver(notification);
                }
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince > CHECK_AFTER_SILENCE.toNanos()) {
                if (!connection.isValid(5)) {
                    throw new SQLException("The wake-up connection no longer answers");
                }
                quietSince = System.nanoTime();
            }
        }
        // Stopping: the connection goes back to its DataSource, maybe a pool, without the session's LISTEN.
        try (Statement statement = connection.createStatement()) {
            statement.execute("UNLISTEN *");
        }
    }

    private Object[] notifications(Object pg) throws SQLException {
        try {
            Object found = Objects.requireNonNull(GET_NOTIFICATIONS).invoke(pg, WAIT_MILLIS);
            if (found == null) {
                return new Object[0];
            }
            Object[] each = new Object[Array.getLength(found)];
            for (int i = 0; i < each.length; i++) {
                each[i] = Array.get(found, i);
            }
            return each;
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof SQLException failure) {
                throw failure;
            }
            throw new IllegalStateException("Waiting for notifications failed", e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("Could not wait for notifications", e);
        }
    }

    private void deliver(Object notification) {
        String name;
        String payload;
        try {
            name = (String) notification.getClass().getMethod("getName").invoke(notification);
            payload = (String) notification.getClass().getMethod("getParameter").invoke(notification);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Could not read a notification", e);
        }
        if (!channel.equals(name) || payload == null) {
            return;
        }
        heard.incrementAndGet();
        if (payload.startsWith(WakeUpChannel.QUEUE)) {
            owners.wake(payload.substring(WakeUpChannel.QUEUE.length()));
        } else if (payload.startsWith(WakeUpChannel.CANCELLED)) {
            try {
                owners.cancelled(Long.parseLong(payload.substring(WakeUpChannel.CANCELLED.length())));
            } catch (NumberFormatException e) {
                log.debug("Ignored the wake-up {}", payload);
            }
        }
    }

    /**
     * Why {@code url} looks like a transaction pooler's, or null: it sets {@code prepareThreshold=0} (what a
     * connection through such a pooler must set, docs/DESIGN.md, "Connection poolers"), its port is PgBouncer's 6432,
     * or a host's name says pooler, pgbouncer or an RDS Proxy ({@code .proxy-}).
     */
    public static @Nullable String poolerHint(@Nullable String url) {
        if (url == null) {
            return null;
        }
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.matches(".*[?&]preparethreshold=0(&.*)?$")) {
            return "it sets prepareThreshold=0";
        }
        Matcher hosts = HOSTS.matcher(lower);
        if (hosts.find()) {
            for (String host : hosts.group(1).split(",")) {
                if (host.endsWith(":6432")) {
                    return "port 6432, PgBouncer's";
                }
                if (host.contains("pgbouncer") || host.contains("pooler") || host.contains(".proxy-")) {
                    return "the host " + host + " names a pooler";
                }
            }
        }
        return null;
    }

    private boolean pause(Duration backoff) {
        try {
            TimeUnit.MILLISECONDS.sleep(backoff.toMillis());
            return running;
        } catch (InterruptedException e) {
            return false;
        }
    }

    private static void close(@Nullable Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException | RuntimeException e) {
                log.debug("Closing the wake-up connection failed", e);
            }
        }
    }

    private static @Nullable Class<?> load(String name) {
        try {
            return Class.forName(name, false, WakeUpListener.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    private static @Nullable Method method(Class<?> type, String name, Class<?>... parameters) {
        try {
            return type.getMethod(name, parameters);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }
}
