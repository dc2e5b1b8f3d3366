package dev.durable.chaos;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL primary and a streaming-replication standby on free local ports in a temporary directory, built with the
 * machine's PostgreSQL binaries ({@code initdb}, {@code pg_basebackup}, {@code pg_ctl}: Debian's under
 * {@code /usr/lib/postgresql/<version>/bin}, or the directory named by {@code DURABLE_PG_BIN}). PostgreSQL refuses to
 * run as root, so when this JVM is root every binary runs as the {@code postgres} user ({@code runuser}) on
 * directories that user owns.
 *
 * <p>Replication is {@link Mode#SYNC} ({@code synchronous_standby_names} naming the standby's
 * {@code application_name}, {@code synchronous_commit = on}: a commit is acknowledged once the standby has flushed its
 * WAL) or {@link Mode#ASYNC} (no synchronous standby: a commit is acknowledged once the primary has written it). The
 * failover is {@link #killPrimary()} (SIGKILL to the postmaster; its backends notice and exit, nothing is flushed or
 * shipped after it) and then {@link #promoteStandby()} ({@code pg_ctl promote}). The old primary is never started
 * again: the machine it ran on is gone, as far as the nodes can tell.
 */
final class ReplicatedPostgres implements AutoCloseable {

    /** How commits wait for the standby. */
    enum Mode { SYNC, ASYNC }

    static final String STANDBY_NAME = "durable_standby";

    private final Path bin;
    private final Path root;
    private final Mode mode;
    private final int primaryPort;
    private final int standbyPort;
    private boolean primaryKilled;
    private long frozenWalSender = -1;
    private boolean promoted;

    private ReplicatedPostgres(Path bin, Path root, Mode mode, int primaryPort, int standbyPort) {
        this.bin = bin;
        this.root = root;
        this.mode = mode;
        this.primaryPort = primaryPort;
        this.standbyPort = standbyPort;
    }

    /**
     * The directory of the machine's PostgreSQL binaries with {@code pg_basebackup}, or empty when there is none (the
     * failover run cannot run here).
     */
    static Optional<Path> binaries() {
        String named = System.getenv("DURABLE_PG_BIN");
        if (named != null && !named.isBlank()) {
            return Optional.of(Path.of(named)).filter(ReplicatedPostgres::complete);
        }
        Path debian = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(debian)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(debian)) {
            return versions.map(version -> version.resolve("bin")).filter(ReplicatedPostgres::complete)
                    .max(Comparator.comparingInt(ReplicatedPostgres::majorVersion));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static boolean complete(Path bin) {
        return Stream.of("initdb", "pg_ctl", "pg_basebackup", "postgres")
                .allMatch(tool -> Files.isExecutable(bin.resolve(tool)));
    }

    private static int majorVersion(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Builds and starts the primary, takes the standby from it with {@code pg_basebackup} and starts it. */
    static ReplicatedPostgres start(Mode mode) throws IOException, InterruptedException {
        Path bin = binaries().orElseThrow(() -> new IllegalStateException("No PostgreSQL binaries with pg_basebackup"
                + " under /usr/lib/postgresql/*/bin; install Debian's postgresql package or set DURABLE_PG_BIN"));
        Path root = Files.createTempDirectory("durable-failover-");
        ReplicatedPostgres pair = new ReplicatedPostgres(bin, root, mode, freePort(), freePort());
        try {
            pair.build();
        } catch (IOException | InterruptedException | RuntimeException e) {
            pair.close();
            throw e;
        }
        return pair;
    }

    private void build() throws IOException, InterruptedException {
        ownedByPostgres(root);
        run(Duration.ofSeconds(60), bin.resolve("initdb").toString(), "-D", primary().toString(), "-U", "postgres",
                "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C");
        List<String> conf = new ArrayList<>(List.of(
                "port = " + primaryPort,
                "listen_addresses = '127.0.0.1'",
                "unix_socket_directories = '" + root + "'",
                "max_connections = 300",
                "shared_buffers = '64MB'",
                // Only processes are killed, never the machine: what PostgreSQL wrote reaches the disk through the
                // operating system even without fsync (ChaosPostgres says the same for the single server).
                "fsync = off",
                "wal_level = replica",
                "max_wal_senders = 4",
                "wal_keep_size = '256MB'",
                "synchronous_commit = on",
                "log_min_messages = fatal"));
        if (mode == Mode.SYNC) {
            conf.add("synchronous_standby_names = '" + STANDBY_NAME + "'");
        }
        Files.writeString(primary().resolve("postgresql.conf"), String.join("\n", conf) + "\n",
                StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
        pgCtl("start", primary(), "-l", root.resolve("primary.log").toString());
        run(Duration.ofSeconds(120), bin.resolve("pg_basebackup").toString(), "-D", standby().toString(),
                "-h", "127.0.0.1", "-p", Integer.toString(primaryPort), "-U", "postgres", "-X", "stream",
                "-c", "fast", "--no-sync");
        Files.writeString(standby().resolve("postgresql.auto.conf"), String.join("\n",
                "port = " + standbyPort,
                "primary_conninfo = 'host=127.0.0.1 port=" + primaryPort + " user=postgres application_name="
                        + STANDBY_NAME + "'",
                "hot_standby = on",
                // Promoted, the standby is a primary without a standby. Inheriting the primary's synchronous standby
                // (its own name) it would make every commit wait for a standby that will never come; an HA manager
                // clears it when it promotes (Patroni does, unless synchronous_mode_strict), and so does this.
                "synchronous_standby_names = ''") + "\n", StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.APPEND);
        Path signal = standby().resolve("standby.signal");
        Files.createFile(signal);
        ownedByPostgres(signal);
        ownedByPostgres(standby().resolve("postgresql.auto.conf"));
        pgCtl("start", standby(), "-l", root.resolve("standby.log").toString());
        awaitStreaming(Duration.ofSeconds(60));
    }

    /** Waits until the primary sees its standby streaming, and, when synchronous, as its synchronous standby. */
    private void awaitStreaming(Duration timeout) throws InterruptedException {
        String wanted = mode == Mode.SYNC ? "sync" : "async";
        long deadline = System.nanoTime() + timeout.toNanos();
        String seen = "nothing";
        while (System.nanoTime() < deadline) {
            try (Connection c = DriverManager.getConnection(url(primaryPort), "postgres", "");
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT state || '/' || sync_state FROM pg_stat_replication"
                            + " WHERE application_name = '" + STANDBY_NAME + "'")) {
                seen = rs.next() ? rs.getString(1) : "no walsender";
                if (seen.equals("streaming/" + wanted)) {
                    return;
                }
            } catch (SQLException e) {
                seen = e.getMessage();
            }
            Thread.sleep(100); // polling the primary's view of its standby
        }
        throw new IllegalStateException("The standby is not streaming (" + wanted + ") after " + timeout + ": " + seen
                + "; see " + root.resolve("standby.log"));
    }

    Mode mode() {
        return mode;
    }

    int primaryPort() {
        return primaryPort;
    }

    int standbyPort() {
        return standbyPort;
    }

    Path directory() {
        return root;
    }

    /**
     * The nodes' URL: both hosts, and the driver connects only to the one that accepts writes. The connect timeout
     * bounds how long a connection attempt to a host that does not answer at all (a machine gone, packets dropped)
     * may take before the driver tries the next host.
     */
    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + primaryPort + ",127.0.0.1:" + standbyPort
                + "/postgres?targetServerType=primary&connectTimeout=5";
    }

    private static String url(int port) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /** The primary's current WAL position (its insert position: everything it has written so far). */
    String primaryWalPosition() throws SQLException {
        return query(primaryPort, "SELECT pg_current_wal_lsn()::text");
    }

    /** The last WAL position the standby received. */
    String standbyReceivedPosition() throws SQLException {
        return query(standbyPort, "SELECT coalesce(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn())::text");
    }

    /** Bytes between two WAL positions, {@code to - from}. */
    long walBytes(String from, String to) throws SQLException {
        return Long.parseLong(query(standbyPort, "SELECT pg_wal_lsn_diff('" + to + "', '" + from + "')::bigint"));
    }

    /** The pid of the standby's WAL receiver, if one runs. */
    Optional<Long> walReceiverPid() throws SQLException {
        String pid = query(standbyPort, "SELECT coalesce((SELECT pid FROM pg_stat_wal_receiver)::text, '')");
        return pid.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(pid));
    }

    /**
     * Freezes the primary's WAL sender (SIGSTOP): from now on commits reach the primary only, as when the network
     * between the two stalls. With synchronous replication commits would wait for it; so only for {@link Mode#ASYNC}.
     * {@link #killPrimary()} kills it too. Returns its pid.
     */
    synchronized long freezeWalSender() throws SQLException, IOException, InterruptedException {
        if (mode != Mode.ASYNC) {
            throw new IllegalStateException("Freezing the WAL sender of a synchronous primary stops every commit");
        }
        long pid = Long.parseLong(query(primaryPort, "SELECT pid::text FROM pg_stat_replication"
                + " WHERE application_name = '" + STANDBY_NAME + "'"));
        ChaosPostgres.signal("STOP", pid);
        frozenWalSender = pid;
        return pid;
    }

    /**
     * SIGKILL to the primary's postmaster; returns once every process of the primary has exited (its backends and
     * WAL sender notice the postmaster's death and exit by themselves; its port refuses connections at once) with the
     * time the signal was delivered: nothing commits on the primary after it.
     */
    synchronized Instant killPrimary() throws IOException, InterruptedException {
        long postmaster = postmasterPid(primary());
        List<ProcessHandle> children = ProcessHandle.of(postmaster).map(p -> p.children().toList()).orElse(List.of());
        ChaosPostgres.signal("KILL", postmaster);
        Instant killed = Instant.now();
        if (frozenWalSender > 0) {
            // A frozen process does not notice its postmaster's death; woken, it would first send what it holds.
            ChaosPostgres.signal("KILL", frozenWalSender);
        }
        primaryKilled = true;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        for (ProcessHandle process : children) {
            try {
                process.onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new IllegalStateException("Process " + process.pid() + " of the killed primary still runs", e);
            }
        }
        ProcessHandle.of(postmaster).ifPresent(p -> p.onExit().join());
        return killed;
    }

    /** Promotes the standby ({@code pg_ctl promote}, waiting until it accepts writes). */
    synchronized void promoteStandby() throws IOException, InterruptedException {
        pgCtl("promote", standby());
        promoted = true;
    }

    /** Copies both servers' logs into {@code directory} (the temporary directory goes with {@link #close()}). */
    void copyLogsTo(Path directory) {
        for (String log : List.of("primary.log", "standby.log")) {
            try {
                Files.copy(root.resolve(log), directory.resolve("postgres-" + log),
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                // a log that was never written
            }
        }
    }

    @Override
    public synchronized void close() throws IOException {
        try {
            if (Files.exists(standby().resolve("postmaster.pid"))) {
                pgCtl("stop", standby(), "-m", "immediate");
            }
            if (!primaryKilled && Files.exists(primary().resolve("postmaster.pid"))) {
                pgCtl("stop", primary(), "-m", "immediate");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            // the directory goes anyway; a server left behind dies with its data directory's lock file
        }
        ChaosPostgres.deleteRecursively(root);
    }

    boolean promoted() {
        return promoted;
    }

    private Path primary() {
        return root.resolve("primary");
    }

    private Path standby() {
        return root.resolve("standby");
    }

    private String query(int port, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url(port), "postgres", "");
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private void pgCtl(String action, Path dataDirectory, String... more) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(bin.resolve("pg_ctl").toString(), action, "-D",
                dataDirectory.toString(), "-w", "-t", "60"));
        command.addAll(List.of(more));
        run(Duration.ofSeconds(90), command.toArray(String[]::new));
    }

    /** Runs a PostgreSQL tool to its end (as the postgres user when this JVM is root); fails with its output. */
    private void run(Duration timeout, String... command) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (isRoot()) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(List.of(command));
        Path output = Files.createTempFile("durable-failover-tool-", ".log");
        try {
            Process process = new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(output.toFile())
                    .start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish within " + timeout);
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed with " + process.exitValue()
                        + ": " + Files.readString(output, StandardCharsets.UTF_8).strip());
            }
        } finally {
            Files.deleteIfExists(output);
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static void ownedByPostgres(Path path) throws IOException {
        if (isRoot()) {
            UserPrincipal postgres = path.getFileSystem().getUserPrincipalLookupService()
                    .lookupPrincipalByName("postgres");
            Files.setOwner(path, postgres);
        }
    }

    private static long postmasterPid(Path dataDirectory) throws IOException {
        List<String> lines = Files.readAllLines(dataDirectory.resolve("postmaster.pid"));
        if (lines.isEmpty()) {
            throw new IllegalStateException("Empty postmaster.pid in " + dataDirectory);
        }
        return Long.parseLong(lines.get(0).trim());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public String toString() {
        return "primary 127.0.0.1:" + primaryPort + ", standby 127.0.0.1:" + standbyPort + " ("
                + mode.name().toLowerCase(Locale.ROOT) + ") in " + root;
    }
}
