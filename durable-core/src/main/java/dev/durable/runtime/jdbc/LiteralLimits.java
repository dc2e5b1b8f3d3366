package dev.durable.runtime.jdbc;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A statement whose {@code LIMIT} is written into its text, one text per limit, so that PostgreSQL can cache a
 * generic plan for it (docs/DESIGN.md, "Statement planning").
 *
 * <p>A {@code LIMIT} bound as a parameter is unknown to a generic plan, which PostgreSQL then costs as if it returned
 * a tenth of the rows the scan could find: on a table of 20,000 rows the pick's generic plan cost a thousand times its
 * custom plan, so PostgreSQL never chose it and planned the statement afresh at every execution, about 0.7 ms of the
 * database's time per pick. With the limit in the text, the generic plan costs what a custom plan does and is
 * cached after five executions. Limits taken from settings are constant, so each statement has one text; the
 * pick's limit varies with the free slots, so it writes a bucket into the text and binds the exact limit above it
 * ({@code ClaimRepository.PICK}).
 */
public final class LiteralLimits {

    private static final String LIMIT = "{limit}";

    private final String statement;
    private final Map<Integer, String> byLimit = new ConcurrentHashMap<>();

    /**
     * @param statement a qualified statement with a {@code {limit}} where its literal goes (a literal in braces, so no
     *                  reader takes it for a bind parameter; docs/DESIGN.md, "Where the SQL lives")
     */
    public LiteralLimits(String statement) {
        if (!statement.contains(LIMIT)) {
            throw new IllegalArgumentException("the statement has no " + LIMIT + " to write: " + statement);
        }
        this.statement = statement;
    }

    /** The statement with {@code limit} written in place of its {@code {limit}}. */
    public String with(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("a limit must be positive: " + limit);
        }
        return byLimit.computeIfAbsent(limit, l -> statement.replace(LIMIT, Integer.toString(l)));
    }

    /**
     * The smallest of 16, 64, 256, 1,024 … (a factor of four apart) that is at least {@code limit}: few texts, each
     * within four times the rows asked for, which is all the planner's estimate needs.
     */
    public static int bucket(int limit) {
        int bucket = 16;
        while (bucket < limit) {
            bucket = bucket >= (1 << 28) ? Integer.MAX_VALUE : bucket * 4;
        }
        return bucket;
    }
}
