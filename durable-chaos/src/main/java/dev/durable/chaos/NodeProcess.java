package dev.durable.chaos;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One chaos node as the orchestrator sees it: a {@link ChaosNode} JVM that can be started, killed with SIGKILL,
 * stopped with SIGTERM, paused with SIGSTOP and continued with SIGCONT — real processes, real signals. Its output
 * goes to a log file (all starts of one node append to the same file) and each line is handed to a consumer that
 * parses the node's events. A stopped node can be given another command before its next start: a deploy of other code.
 */
final class NodeProcess {

    private final String name;
    private List<String> command;
    private final Path logFile;
    private final LineListener lines;
    private @Nullable Process process;
    private @Nullable OutputStream stdin;
    private volatile CountDownLatch ready = new CountDownLatch(1);
    private volatile boolean paused;
    private int starts;

    /** Hears each line a node prints, with the pid of the JVM that printed it. */
    @FunctionalInterface
    interface LineListener {
        void line(NodeProcess node, long pid, String line);
    }

    NodeProcess(String name, List<String> command, Path logFile, LineListener lines) {
        this.name = name;
        this.command = List.copyOf(command);
        this.logFile = logFile;
        this.lines = lines;
    }

    String name() {
        return name;
    }

    synchronized long pid() {
        return process == null ? -1 : process.pid();
    }

    synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    boolean isPaused() {
        return paused;
    }

    /**
     * The command of this node's next starts: the node is deployed with other code. Only while it is stopped (killed or
     * terminated), as a rolling deploy replaces one node at a time.
     */
    synchronized void redeploy(List<String> newCommand) {
        if (isAlive()) {
            throw new IllegalStateException(name + " is running; stop it before deploying other code to it");
        }
        command = List.copyOf(newCommand);
    }

    /** Starts the JVM and waits for its READY line. */
    void start(Duration timeout) throws IOException, InterruptedException {
        Process started;
        synchronized (this) {
            if (isAlive()) {
                throw new IllegalStateException(name + " is already running");
            }
            starts++;
            ready = new CountDownLatch(1);
            Files.writeString(logFile, "===== start " + starts + " of " + name + " at " + Instant.now() + "\n",
                    StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            started = new ProcessBuilder(command).redirectErrorStream(true).start();
            process = started;
            stdin = started.getOutputStream(); // kept open: the node exits when it closes
        }
        Thread reader = new Thread(() -> pump(started), "output-of-" + name + "-" + started.pid());
        reader.setDaemon(true);
        reader.start();
        if (!ready.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(name + " (pid " + started.pid() + ") printed no READY line within "
                    + timeout + "; see " + logFile);
        }
    }

    /**
     * SIGKILL: no shutdown hook, no finally block; waits until the process is gone. Sent through the process
     * handle: {@code Process.destroyForcibly()} would also close our end of its output pipe and lose its last lines.
     */
    void kill() throws InterruptedException {
        Process p = current();
        p.toHandle().destroyForcibly();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " did not die of SIGKILL");
        }
        paused = false;
    }

    /**
     * SIGTERM: the node drains and releases; waits up to {@code timeout}, then kills. Sent through the process
     * handle: {@code Process.destroy()} sends SIGTERM too, but also closes the pipes, so everything the node prints
     * while it drains (its fenced outcomes, its STATS) would be lost and it would read end-of-input at once.
     */
    boolean terminate(Duration timeout) throws IOException, InterruptedException {
        Process p = current();
        if (paused) {
            resume();
        }
        p.toHandle().destroy();
        if (p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            return true;
        }
        kill();
        return false;
    }

    /** SIGSTOP: the whole JVM freezes, steps, heartbeats and all. */
    void pause() throws IOException, InterruptedException {
        ChaosPostgres.signal("STOP", current().pid());
        paused = true;
    }

    /** SIGCONT. */
    void resume() throws IOException, InterruptedException {
        ChaosPostgres.signal("CONT", current().pid());
        paused = false;
    }

    /** Closes the node's standard input, which makes an orphan exit. */
    synchronized void closeStdin() {
        if (stdin != null) {
            try {
                stdin.close();
            } catch (IOException e) {
                // already gone
            }
        }
    }

    private synchronized Process current() {
        if (process == null) {
            throw new IllegalStateException(name + " was never started");
        }
        return process;
    }

    private void pump(Process p) {
        long pid = p.pid();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8));
                BufferedWriter log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                log.write(line);
                log.newLine();
                if (!in.ready()) {
                    log.flush();
                }
                if (line.startsWith("READY ")) {
                    ready.countDown();
                }
                lines.line(this, pid, line);
            }
        } catch (IOException e) {
            // the process is gone
        }
        try {
            Files.writeString(logFile, "===== pid " + pid + " exited with " + exitCode(p) + "\n",
                    StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            // the log is best effort
        }
    }

    private static String exitCode(Process p) {
        try {
            return p.waitFor(5, TimeUnit.SECONDS) ? Integer.toString(p.exitValue()) : "?";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "?";
        }
    }

    @Override
    public String toString() {
        return name + "(pid " + pid() + ")";
    }
}
