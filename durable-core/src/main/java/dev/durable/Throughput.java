package dev.durable;

import java.time.Instant;
import java.util.Objects;

/**
 * How many transitions every node together wrote in one minute, as {@link DurableClient#throughput(Instant)} reads
 * them from the history: an estimate from the history's ids, which also counts the ids of transactions that rolled
 * back (docs/DESIGN.md, "Dashboard").
 *
 * @param minute      the start of the minute
 * @param transitions how many transitions were written in it (so far, for the current minute)
 */
public record Throughput(Instant minute, long transitions) {

    public Throughput {
        Objects.requireNonNull(minute, "minute");
    }
}
