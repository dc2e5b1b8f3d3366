package dev.durable.test.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy in front of a database, for tests of what happens while the database cannot be reached: point the
 * code under test at {@link #jdbcUrl(String)}, then {@link #cut()} to reset every open connection and refuse new
 * ones (each is accepted and closed at once, as a dead server would), and {@link #restore()} to let connections
 * through again. Nothing is mocked: the PostgreSQL driver sees real resets and real failed connection attempts.
 *
 * <pre>{@code
 * try (TcpProxy proxy = TcpProxy.forJdbcUrl(postgres.jdbcUrl())) {
 *     HikariDataSource dataSource = ...proxy.jdbcUrl(postgres.jdbcUrl())...;
 *     proxy.cut();      // the database is "down"
 *     proxy.restore();  // and back
 * }
 * }</pre>
 *
 * <p>Each connection costs two platform threads, which is fine for the few connections of a test.
 */
public final class TcpProxy implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TcpProxy.class);
    private static final Pattern JDBC_URL = Pattern.compile("^(jdbc:postgresql://)([^/:?\\[\\]]+)(?::(\\d+))?(.*)$");
    private static final int POSTGRES_PORT = 5432;
    private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

    private final InetSocketAddress target;
    private final ServerSocket server;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final AtomicLong refused = new AtomicLong();
    private volatile boolean cut;
    private volatile boolean closed;

    private TcpProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A proxy on a free loopback port forwarding to {@code host:port}. */
    public static TcpProxy to(String host, int port) {
        try {
            return new TcpProxy(new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not open a proxy port", e);
        }
    }

    /** A proxy forwarding to the host and port of a {@code jdbc:postgresql://host[:port]/...} URL. */
    public static TcpProxy forJdbcUrl(String jdbcUrl) {
        Matcher url = parse(jdbcUrl);
        return to(url.group(2), url.group(3) == null ? POSTGRES_PORT : Integer.parseInt(url.group(3)));
    }

    /** {@code jdbcUrl} with its host and port replaced by this proxy's. */
    public String jdbcUrl(String jdbcUrl) {
        Matcher url = parse(jdbcUrl);
        return url.group(1) + "127.0.0.1:" + port() + url.group(4);
    }

    /** The loopback port this proxy listens on. */
    public int port() {
        return server.getLocalPort();
    }

    /** Resets every open connection and refuses new ones until {@link #restore()}. */
    public void cut() {
        cut = true;
        for (Socket socket : open) {
            reset(socket);
        }
        log.info("Proxy {} -> {} cut: connections reset, new ones refused", port(), target);
    }

    /** Lets new connections through again. */
    public void restore() {
        cut = false;
        log.info("Proxy {} -> {} restored", port(), target);
    }

    /** Connection attempts refused while cut. */
    public long connectionsRefused() {
        return refused.get();
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        for (Socket socket : open) {
            reset(socket);
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("Proxy {} could not accept a connection", port(), e);
                }
                continue;
            }
            if (cut) {
                refused.incrementAndGet();
                reset(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(target, CONNECT_TIMEOUT_MILLIS);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
            } catch (IOException e) {
                log.debug("Proxy {} could not reach {}: {}", port(), target, e.toString());
                reset(client);
                closeQuietly(upstream);
                continue;
            }
            open.add(client);
            open.add(upstream);
            if (cut) { // cut while connecting: cut() may have missed this pair
                refused.incrementAndGet();
                reset(client);
                reset(upstream);
                continue;
            }
            pump(client, upstream);
            pump(upstream, client);
        }
    }

    private void pump(Socket from, Socket to) {
        Thread pump = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // reset or closed: the pair ends
            } finally {
                reset(from);
                reset(to);
            }
        }, "tcp-proxy-pump-" + port());
        pump.setDaemon(true);
        pump.start();
    }

    /** Closes with a TCP reset, as a failing network or a killed server would. */
    private void reset(Socket socket) {
        open.remove(socket);
        try {
            socket.setSoLinger(true, 0);
        } catch (IOException e) {
            // already closed
        }
        closeQuietly(socket);
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            // nothing to do
        }
    }

    private static Matcher parse(String jdbcUrl) {
        Matcher url = JDBC_URL.matcher(jdbcUrl);
        if (!url.matches()) {
            throw new IllegalArgumentException("Not a jdbc:postgresql://host[:port]/... URL with a single host: "
                    + jdbcUrl);
        }
        return url;
    }

    @Override
    public String toString() {
        return "TcpProxy[" + port() + " -> " + target + (cut ? ", cut" : "") + "]";
    }
}
