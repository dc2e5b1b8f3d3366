package dev.durable.sample.database;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL server on this machine whose data survives restarts of the application, for running the sample
 * without installing a database. The data lives in a directory of the working directory; the port is remembered
 * next to it.
 *
 * <p>The server is a process of its own: when the application is killed ({@code kill -9}) it keeps running. The
 * next start finds it through its {@code postmaster.pid} and uses it (and stops it on a graceful shutdown) instead
 * of starting a second server on the same data.
 *
 * <p>It runs with PostgreSQL's durable defaults ({@code fsync}, {@code synchronous_commit} and
 * {@code full_page_writes} on), not the embedded library's fast, unsafe ones.
 */
final class LocalPostgres implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LocalPostgres.class);

    private final @Nullable EmbeddedPostgres started;
    private final @Nullable ProcessHandle adopted;
    private final int port;

    private LocalPostgres(@Nullable EmbeddedPostgres started, @Nullable ProcessHandle adopted, int port) {
        this.started = started;
        this.adopted = adopted;
        this.port = port;
    }

    static LocalPostgres start(Path dataDirectory) throws IOException {
        Path data = dataDirectory.toAbsolutePath().normalize();
        Files.createDirectories(data);
        Optional<LocalPostgres> running = running(data);
        if (running.isPresent()) {
            return running.get();
        }
        Path portFile = data.resolveSibling(data.getFileName() + ".port");
        int port = Files.exists(portFile) ? Integer.parseInt(Files.readString(portFile).trim()) : 0;
        if (port == 0 || !isFree(port)) {
            port = freePort();
        }
        // The embedded library is made for throw-away test databases: it starts the server with -F (fsync off) and
        // synchronous_commit=off. This server holds the sample's orders across crashes, so it runs with the
        // server's durable defaults instead (a -c given after -F wins). DurabilityCheck reports what is in effect.
        EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                .setDataDirectory(data)
                .setCleanDataDirectory(false)
                .setPort(port)
                .setRegisterShutdownHook(false)
                .setServerConfig("fsync", "on")
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("full_page_writes", "on")
                .start();
        Files.writeString(portFile, Integer.toString(port), StandardCharsets.UTF_8);
        log.info("Started PostgreSQL on port {} with its data in {}", port, data);
        return new LocalPostgres(postgres, null, port);
    }

    String jdbcUrl() {
        return "jdbc:postgresql://localhost:" + port + "/postgres";
    }

    @Override
    public void close() throws IOException {
        if (started != null) {
            started.close();
        } else if (adopted != null) {
            stop(adopted);
        }
    }

    /** The server an earlier run left running on this data directory, if there is one and it answers. */
    private static Optional<LocalPostgres> running(Path data) throws IOException {
        Path pidFile = data.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return Optional.empty();
        }
        List<String> lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
        if (lines.size() < 4) {
            return Optional.empty();
        }
        long pid = Long.parseLong(lines.get(0).trim());
        int port = Integer.parseInt(lines.get(3).trim());
        Optional<ProcessHandle> process = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
        if (process.isEmpty() || !answers(port)) {
            return Optional.empty();
        }
        log.info("Using the PostgreSQL (pid {}, port {}) that an earlier run left running on {}", pid, port, data);
        return Optional.of(new LocalPostgres(null, process.get(), port));
    }

    /** Asks the server for a fast shutdown (SIGINT), as pg_ctl does; SIGTERM if that cannot be sent. */
    private static void stop(ProcessHandle server) {
        try {
            new ProcessBuilder("kill", "-INT", Long.toString(server.pid())).inheritIO().start().waitFor();
        } catch (IOException e) {
            server.destroy();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        try {
            server.onExit().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            log.warn("PostgreSQL (pid {}) did not stop within 30 s", server.pid());
        }
    }

    private static boolean answers(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("localhost", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
