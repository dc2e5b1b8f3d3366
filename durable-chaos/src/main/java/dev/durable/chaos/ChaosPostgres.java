package dev.durable.chaos;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The orchestrator's own PostgreSQL, which it can restart: an embedded PostgreSQL (zonky) on a fixed data
 * directory and a fixed port, started with {@code cleanDataDirectory(false)} so that a restart keeps the data.
 *
 * <p>Two kinds of restart: {@link #restart()} stops it the way an operator does ({@code pg_ctl stop -m fast}:
 * sessions are terminated, a checkpoint is written) and starts it again; {@link #crash()} kills the postmaster
 * with {@code SIGQUIT} (immediate shutdown, no checkpoint: the next start runs crash recovery) before starting it
 * again.
 */
final class ChaosPostgres implements AutoCloseable {

    private final Path dataDirectory;
    private final int port;
    private @Nullable EmbeddedPostgres postgres;

    private ChaosPostgres(Path dataDirectory, int port) {
        this.dataDirectory = dataDirectory;
        this.port = port;
    }

    /** Starts a fresh PostgreSQL in {@code dataDirectory} (whatever was there before is stopped and removed). */
    static ChaosPostgres start(Path dataDirectory) throws IOException, InterruptedException {
        stopLeftover(dataDirectory);
        deleteRecursively(dataDirectory);
        Files.createDirectories(dataDirectory.getParent());
        ChaosPostgres postgres = new ChaosPostgres(dataDirectory, freePort());
        postgres.startServer();
        return postgres;
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    int port() {
        return port;
    }

    /** A clean stop, {@code downtime} of nothing, and a start on the same data directory and port; the outage. */
    synchronized Duration restart(Duration downtime) throws IOException, InterruptedException {
        long start = System.nanoTime();
        stopServer();
        Thread.sleep(downtime.toMillis());
        startServer();
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /** Kills the postmaster (immediate shutdown), then starts it again with crash recovery; the downtime. */
    synchronized Duration crash(Duration downtime) throws IOException, InterruptedException {
        long start = System.nanoTime();
        Optional<Long> pid = postmasterPid(dataDirectory);
        if (pid.isPresent()) {
            signal("QUIT", pid.get());
            waitGone(pid.get(), Duration.ofSeconds(20));
        }
        stopServer(); // releases the data directory lock; its pg_ctl stop finds no server and says so in the log
        Thread.sleep(downtime.toMillis());
        startServer();
        return Duration.ofNanos(System.nanoTime() - start);
    }

    @Override
    public synchronized void close() throws IOException {
        stopServer();
    }

    private void startServer() throws IOException {
        postgres = EmbeddedPostgres.builder()
                .setDataDirectory(dataDirectory)
                .setCleanDataDirectory(false)
                .setPort(port)
                .setPGStartupWait(Duration.ofSeconds(60))
                .setServerConfig("max_connections", "300")
                // Only the process is ever killed, never the machine: what PostgreSQL wrote reaches the disk through
                // the operating system even without fsync. But commits must be synchronous (zonky's default is
                // off): an asynchronous commit is acknowledged before its WAL is written, so killing the postmaster
                // loses acknowledged transactions - claims and outcomes the nodes were told had committed, and the
                // lease tokens they used, which the sequence then hands out again.
                .setServerConfig("fsync", "off")
                .setServerConfig("full_page_writes", "off")
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("shared_buffers", "64MB")
                .setServerConfig("log_min_messages", "fatal")
                .setLocaleConfig("locale", "C")
                .start();
    }

    private void stopServer() throws IOException {
        EmbeddedPostgres running = postgres;
        postgres = null;
        if (running != null) {
            running.close();
        }
    }

    private static void stopLeftover(Path dataDirectory) throws InterruptedException, IOException {
        Optional<Long> pid = postmasterPid(dataDirectory);
        if (pid.isPresent() && ProcessHandle.of(pid.get()).isPresent()) {
            signal("INT", pid.get()); // fast shutdown of a server an earlier, killed run left behind
            waitGone(pid.get(), Duration.ofSeconds(30));
        }
    }

    private static Optional<Long> postmasterPid(Path dataDirectory) throws IOException {
        Path pidFile = dataDirectory.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return Optional.empty();
        }
        List<String> lines = Files.readAllLines(pidFile);
        return lines.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(lines.get(0).trim()));
    }

    static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + signal + " " + pid + " failed");
        }
    }

    private static void waitGone(long pid, Duration timeout) throws InterruptedException {
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        if (process.isEmpty()) {
            return;
        }
        try {
            process.get().onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("PostgreSQL " + pid + " did not stop within " + timeout, e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    static void deleteRecursively(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException("Could not delete " + path, e);
                }
            }
        }
    }
}
