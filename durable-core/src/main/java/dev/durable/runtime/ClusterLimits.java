package dev.durable.runtime;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The limits of one queue across every node that works it (docs/DESIGN.md, "Cluster-wide limits"), enforced by each
 * node's pick in the database, on the database's clock. Every node that works the queue must be given the same
 * limits: a node without them picks as if there were none.
 *
 * @param concurrency at most this many of the queue's rows claimed at once on all nodes (waiting for a slot, running
 *                    or committing their outcome); {@code null} for no such limit
 * @param rate        at most this many steps started per window, as a token bucket; {@code null} for no such limit
 */
public record ClusterLimits(@Nullable Integer concurrency, @Nullable Rate rate) {

    /** No limit: the queue's picks are those of a queue without limits, at no cost. */
    public static final ClusterLimits NONE = new ClusterLimits(null, null);

    /** Whether any limit is set. */
    public boolean any() {
        return concurrency != null || rate != null;
    }

    /**
     * A token bucket of {@code starts} tokens, refilled at {@code starts} per {@code window}: each step start takes a
     * token. Over any span of time t, at most {@code starts × (1 + t / window)} steps start (a full bucket, then its
     * refill), and in the long run {@code starts} per window.
     */
    public record Rate(int starts, Duration window) {

        private static final Pattern TEXT = Pattern.compile("\\s*(\\d{1,9})\\s*/\\s*(\\d{1,9})?\\s*(ms|s|m|h)\\s*");

        /**
         * A rate written as {@code <starts>/<window>}: {@code 200/1s}, {@code 50/100ms}, {@code 1000/m}; the window's
         * unit is {@code ms}, {@code s}, {@code m} or {@code h}, its number 1 when left out.
         *
         * @throws IllegalArgumentException saying what is wrong with {@code text}
         */
        public static Rate parse(String text) {
            Matcher matcher = TEXT.matcher(text.toLowerCase(Locale.ROOT));
            if (!matcher.matches()) {
                throw new IllegalArgumentException("'" + text
                        + "' is not a rate: write <starts>/<window>, e.g. 200/1s, 50/100ms or 1000/1m");
            }
            int starts = Integer.parseInt(matcher.group(1));
            long amount = matcher.group(2) == null ? 1 : Long.parseLong(matcher.group(2));
            Duration window = switch (matcher.group(3)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                default -> Duration.ofHours(amount);
            };
            return new Rate(starts, window);
        }

        /** Tokens added per millisecond. */
        public double perMilli() {
            return (double) starts / window.toMillis();
        }

        @Override
        public String toString() {
            return starts + "/" + window.toMillis() + "ms";
        }
    }
}
