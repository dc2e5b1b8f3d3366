package dev.durable.test.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A main class of the test class path in a JVM of its own, for crash tests that kill a real process with
 * {@code SIGKILL} (or stop it with {@code SIGTERM}). Its output is read line by line so that a test can wait for a
 * line, and shown whole when the line does not come.
 */
public final class ChildJvm implements AutoCloseable {

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();

    private ChildJvm(Process process) {
        this.process = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the process is gone; nothing more to read
            }
        }, "child-jvm-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code mainClass} with {@code args}: same JDK, test class path, time zone of the tests, 256 MB heap. */
    public static ChildJvm start(Class<?> mainClass, String... args) throws IOException {
        return start(List.of(), mainClass, args);
    }

    /** {@link #start(Class, String...)} with more JVM options, e.g. {@code -Dspring.aot.enabled=true}. */
    public static ChildJvm start(List<String> jvmOptions, Class<?> mainClass, String... args) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m",
                "-Duser.timezone=" + System.getProperty("user.timezone")));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classpath, mainClass.getName()));
        command.addAll(List.of(args));
        return new ChildJvm(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    /** Waits for an output line starting with {@code prefix} and returns it. */
    public String awaitLineStartingWith(String prefix, Duration timeout) throws InterruptedException {
        return awaitLine(line -> line.startsWith(prefix), "starting with '" + prefix + "'", timeout);
    }

    /** Waits for an output line containing {@code text} and returns it. */
    public String awaitLineContaining(String text, Duration timeout) throws InterruptedException {
        return awaitLine(line -> line.contains(text), "containing '" + text + "'", timeout);
    }

    private String awaitLine(Predicate<String> wanted, String description, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
            if (line == null) {
                throw new AssertionError("No line " + description + " within " + timeout + "; the child printed:\n"
                        + String.join("\n", seen)
                        + (process.isAlive() ? "" : "\n(child exited with " + process.exitValue() + ")"));
            }
            seen.add(line);
            if (wanted.test(line)) {
                return line;
            }
        }
    }

    public long pid() {
        return process.pid();
    }

    /** {@code SIGKILL}: no shutdown hook, no finally block runs. Waits until the process is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("child " + pid() + " did not die");
        }
    }

    /** {@code SIGTERM}: the JVM's shutdown hooks run (Spring's graceful shutdown). Whether it ended in time. */
    public boolean stop(Duration timeout) throws InterruptedException {
        process.destroy();
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Stops the child if it still runs: {@code SIGTERM} first, so it can clean up, then {@code SIGKILL}. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive() && !stop(Duration.ofSeconds(30))) {
            kill();
        }
    }
}
