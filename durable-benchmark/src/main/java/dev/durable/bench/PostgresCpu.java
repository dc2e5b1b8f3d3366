package dev.durable.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The CPU time the PostgreSQL server of the benchmark has used, read from {@code /proc}: its postmaster's own time and
 * that of its children it has reaped, plus each live child's (its backends and background processes). Only for a
 * server on this host whose data directory the benchmark can read; null otherwise. A private server gives figures
 * that nothing else running on the machine mixes into.
 */
final class PostgresCpu {

    /** The kernel's clock ticks per second ({@code USER_HZ}), 100 on Linux. */
    private static final double TICKS_PER_SECOND = 100.0;

    private final long postmaster;

    private PostgresCpu(long postmaster) {
        this.postmaster = postmaster;
    }

    /** The server {@code jdbc} is connected to, if it runs on this host and its pid file can be read. */
    static @Nullable PostgresCpu of(JdbcTemplate jdbc) {
        try {
            String dataDirectory = jdbc.queryForObject("SHOW data_directory", String.class);
            Path pidFile = Path.of(dataDirectory, "postmaster.pid");
            long pid = Long.parseLong(Files.readAllLines(pidFile).get(0).trim());
            PostgresCpu cpu = new PostgresCpu(pid);
            cpu.seconds(); // readable?
            return cpu;
        } catch (RuntimeException | IOException e) {
            return null;
        }
    }

    /** The server's CPU time so far, in seconds. */
    double seconds() {
        long[] own = stat(postmaster);
        if (own == null) {
            throw new IllegalStateException("the postmaster " + postmaster + " is gone");
        }
        long ticks = own[1] + own[2] + own[3] + own[4];
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            for (Path process : (Iterable<Path>) processes::iterator) {
                String name = process.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                long[] child = stat(Long.parseLong(name));
                if (child != null && child[0] == postmaster) {
                    ticks += child[1] + child[2];
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return ticks / TICKS_PER_SECOND;
    }

    /** {ppid, utime, stime, cutime, cstime} of a process, or null if it is gone. */
    private static long @Nullable [] stat(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // The command name (field 2) is in parentheses and may hold spaces: fields count from after it.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return new long[] {Long.parseLong(fields[1]), Long.parseLong(fields[11]), Long.parseLong(fields[12]),
                    Long.parseLong(fields[13]), Long.parseLong(fields[14])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
