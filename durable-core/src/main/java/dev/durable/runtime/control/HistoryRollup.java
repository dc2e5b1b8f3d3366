package dev.durable.runtime.control;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Counts the history's entries by machine and closed minute into {@code durable_history_minute}, so that a machine's
 * diagram reads a long window's whole minutes from their counts instead of every entry (docs/DESIGN.md,
 * "Dashboard"). Off the step path: a transition writes only its history entry, as before; this loop reads the entries
 * a minute after they were written. Every node runs it and one at a time counts, the one holding the rollup's row
 * (the others skip their turn, SKIP LOCKED), so no node leads. The counted minutes older than the longest retention are
 * deleted by the same turn (docs/DESIGN.md, "Retention").
 */
public final class HistoryRollup {

    public static final String NAME = "durable-history-rollup";

    /**
     * The most entries one turn counts, in one transaction: about 70 ms of reads on the 10,000,000-row history of
     * docs/PERFORMANCE.md, so that a backlog (a whole history after the upgrade to schema version 18) is counted in
     * short transactions.
     */
    public static final int ENTRIES_PER_TURN = 50_000;

    /** While a backlog lasts the loop pauses this many times as long as a turn took, as the retention sweep does. */
    static final int PAUSE_PER_TURN_TIME = 4;

    /** A minute closes once a minute: caught up, the loop looks again a minute later. */
    static final Duration INTERVAL = Duration.ofMinutes(1);

    private final DiagramRepository repository;
    /** How long the counted minutes are kept: the longest retention, when every ended status has one; else for ever. */
    private final @Nullable Duration keep;

    /** @param keep how long the counted minutes are kept ({@link Retention#longestKept()}); null: for ever */
    public HistoryRollup(DiagramRepository repository, @Nullable Duration keep) {
        this.repository = repository;
        this.keep = keep;
    }

    /** One turn; returns the pause before the next. */
    public Duration roll() {
        long begin = System.nanoTime();
        boolean more = repository.rollUp(ENTRIES_PER_TURN, keep);
        return more ? Duration.ofNanos(Math.max(1, System.nanoTime() - begin) * PAUSE_PER_TURN_TIME) : INTERVAL;
    }

    /**
     * Turns one after the other, without pausing, until one leaves nothing to do at once (the counts reached the last
     * closed minute, or another node holds the rollup's row); returns how many. For the dashboard's scale check, which
     * counts a filled history before it measures, and for tests.
     */
    public int catchUp() {
        int turns = 1;
        while (repository.rollUp(ENTRIES_PER_TURN, keep)) {
            turns++;
        }
        return turns;
    }
}
