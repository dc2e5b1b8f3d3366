package dev.durable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * What is in flight: the unfinished instances (runnable, executing, awaiting a signal) grouped by machine, version,
 * step and status, each group with its count, the distinct shapes of its stored states and its pending signals by
 * name; and, apart, the failed instances grouped the same way (docs/DESIGN.md, "What is in flight"). Read with
 * {@link DurableClient#inFlight()}.
 *
 * <p>Failed instances are a part of their own because they run again only if an operator retries them: a deploy
 * that cannot run them should be known, but it endangers nothing until that retry.
 *
 * <p>The report holds no stored value: only the shapes of states (their property paths and JSON types), so it can be
 * kept, for instance by a continuous integration build that checks the next release against it
 * ({@link #write(Path)}, {@link #read(Path)}; the file format is described in docs/DESIGN.md, "The in-flight file").
 *
 * <p>What is exact and what is sampled, so that the report costs the same however many instances are in flight:
 * a group's count is exact up to {@link #countLimit()} and a lower bound beyond ({@link Group#countExact()}); its
 * shapes come from at most {@link #sampleSize()} of its instances, spread over its ids from the oldest to the newest;
 * pending signals are counted from at most {@link #signalLimit()} of them, all when {@link #signalsComplete()}.
 *
 * @param takenAt         when the report was read, by the database's clock
 * @param sampleSize      the most instances of a group whose states were sampled
 * @param countLimit      past this many instances, a group's count is a lower bound
 * @param signalLimit     the most pending signals counted
 * @param signalsComplete whether every pending signal was counted (fewer than {@code signalLimit} were pending)
 * @param groups          the unfinished instances by machine, version, step and status, in that order
 * @param failed          the failed instances by machine, version and step, in that order
 */
public record InFlightReport(Instant takenAt, int sampleSize, long countLimit, int signalLimit,
        boolean signalsComplete, List<Group> groups, List<Group> failed) {

    /**
     * The version of the file format {@link #write(Path)} writes and {@link #read(Path)} reads. It changes when a
     * reader of the previous version could no longer read a file correctly; a property added to the format keeps the
     * version (readers ignore properties they do not know).
     */
    public static final int FORMAT_VERSION = 1;

    /** The value of the {@code "format"} property that marks a file as an in-flight report. */
    public static final String FORMAT = "durable-in-flight";

    public InFlightReport {
        Objects.requireNonNull(takenAt, "takenAt must not be null");
        groups = List.copyOf(groups);
        failed = List.copyOf(failed);
    }

    /**
     * Reads a report that {@link #write(Path)} wrote.
     *
     * @throws UnreadableFileException naming the file, and the line and column of what is wrong in it with what was
     *                                 expected there: no such file, not JSON, not an in-flight report, a format
     *                                 version this durable does not read, a property missing or of the wrong type
     */
    public static InFlightReport read(Path file) {
        Objects.requireNonNull(file, "file must not be null");
        return InFlightReportFile.read(file);
    }

    /** The report as the JSON text of its file: {@value #FORMAT}, format version {@value #FORMAT_VERSION}. */
    public String toJson() {
        return InFlightReportFile.write(this);
    }

    /**
     * Writes the report to {@code file} (created or replaced) as {@link #toJson()}.
     *
     * @throws UncheckedIOException if the file cannot be written
     */
    public void write(Path file) {
        try {
            Files.writeString(file, toJson(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the in-flight report to " + file.toAbsolutePath(), e);
        }
    }

    /**
     * The instances of one machine version at one step in one status.
     *
     * @param count          how many; a lower bound when {@code countExact} is false
     * @param countExact     whether {@code count} is exact (the group holds no more than the report's count limit)
     * @param sampled        how many of its instances' states the shapes were read from
     * @param shapes         the distinct shapes of those states, the most common first
     * @param pendingSignals the signals sent to its instances and not yet consumed, by name (see
     *                       {@link InFlightReport#signalsComplete()})
     */
    public record Group(String machine, int version, String step, InstanceStatus status, long count,
            boolean countExact, int sampled, List<Shape> shapes, Map<String, Long> pendingSignals) {

        public Group {
            Objects.requireNonNull(machine, "machine must not be null");
            Objects.requireNonNull(step, "step must not be null");
            Objects.requireNonNull(status, "status must not be null");
            if (count < 0 || sampled < 0) {
                throw new IllegalArgumentException("A group's count and sample size cannot be negative: count "
                        + count + ", sampled " + sampled);
            }
            shapes = List.copyOf(shapes);
            pendingSignals = java.util.Collections.unmodifiableMap(new TreeMap<>(pendingSignals));
        }

        /** {@code order v1 at step 'pay' (awaiting_signal)}: how messages name the group. */
        public String describe() {
            return machine + " v" + version + " at step '" + step + "' (" + status.label() + ")";
        }

        /** {@code 123}, or {@code at least 1000} when the count is a lower bound. */
        public String describeCount() {
            return countExact ? Long.toString(count) : "at least " + count;
        }
    }

    /**
     * One shape of stored states: every property path with its JSON type, one per line, such as {@code $: object},
     * {@code $.reservation: string}, {@code $.lines[]: object}, {@code $.lines[].sku: string}. A path starts at the
     * state ({@code $}); {@code .name} is a property ({@code ['name']} when the name is not a plain identifier), and
     * {@code []} any element of an array. The types are JSON's: object, array, string, number, boolean, null.
     *
     * @param paths     the paths with their types, in path order
     * @param instances how many of the sampled states have exactly this shape
     */
    public record Shape(List<String> paths, int instances) {

        public Shape {
            paths = List.copyOf(paths);
            if (instances < 1) {
                throw new IllegalArgumentException("A shape is seen in at least one instance, not " + instances);
            }
        }
    }

    /**
     * A file that is not an in-flight report this version of durable can read: missing, not JSON, not an in-flight
     * report, of another format version, or with a property missing or of the wrong type. The message names the file,
     * and where it applies the line and column, and what was expected there.
     */
    public static final class UnreadableFileException extends DurableException {

        private static final long serialVersionUID = 1L;

        private final transient Path file;
        private final int line;
        private final int column;

        public UnreadableFileException(Path file, int line, int column, String message, @Nullable Throwable cause) {
            super(message, cause);
            this.file = file;
            this.line = line;
            this.column = column;
        }

        /** The file that could not be read. */
        public Path file() {
            return file;
        }

        /** The line of the problem, from 1; 0 when the problem has no position (the file is missing). */
        public int line() {
            return line;
        }

        /** The column of the problem, from 1; 0 when the problem has no position. */
        public int column() {
            return column;
        }
    }
}
