package dev.durable.runtime.step;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A row this node has just claimed: everything its step needs, read in the statement that claimed it (the pick of
 * {@code ClaimRepository}, or the inline continuation of {@code TransitionRepository}).
 *
 * @param leaseToken the token of this claim; every write that ends the step is fenced on it
 * @param awaits         the signal names the instance was parked on (empty if it was not parked); a signal of any
 *                       of them in the inbox is an awaited one
 * @param deadlinePassed whether the park had a deadline that has passed (at pick)
 * @param inbox          the instance's signals at pick, ordered by arrival
 * @param children       the instance's place among parents and children at pick
 */
public record ClaimedStep(long id, String machine, int version, String step, @Nullable String stateJson,
        List<String> awaits, boolean deadlinePassed, int attempt, long leaseToken, String queue,
        @Nullable String partitionKey, List<SignalRow> inbox, Family children, @Nullable String traceContext) {

    /**
     * A claimed row's parent and children (docs/DESIGN.md, "Children").
     *
     * @param parentId       the instance whose step started this one, if any
     * @param started        how many children this instance's outcomes started
     * @param ended          how many of them had ended
     * @param awaitsChildren the {@code ended} count a join on the children waits for; null if the instance was not
     *                       parked on its children
     */
    public record Family(@Nullable Long parentId, int started, int ended, @Nullable Integer awaitsChildren) {

        public static final Family NONE = new Family(null, 0, 0, null);

        /** Whether the instance was parked on its children and they reached the count it waited for. */
        boolean joined() {
            return awaitsChildren != null && ended >= awaitsChildren;
        }
    }

    public ClaimedStep {
        awaits = List.copyOf(awaits);
    }

    /** Whether a signal of this name is one the instance awaited. */
    public boolean awaits(String signalName) {
        return awaits.contains(signalName);
    }

    public Claim claim() {
        return new Claim(id, leaseToken);
    }

    /** This claim as its step runs after {@code upgrade}: on the version and under the step name it brings. */
    ClaimedStep upgradedTo(Upgrade upgrade) {
        return new ClaimedStep(id, machine, upgrade.version(), upgrade.step(), stateJson, awaits, deadlinePassed,
                attempt, leaseToken, queue, partitionKey, inbox, children, traceContext);
    }

    /**
     * The claimed row as both claiming statements return it: the row's columns ({@code awaits} and
     * {@code awaits_set}, the names of an await on one and on several, {@code deadline_passed}, and the family
     * columns {@code parent_id}, {@code children_started}, {@code children_ended}, {@code awaits_children}), and its
     * unconsumed signals as parallel arrays in id order ({@code signal_ids}, {@code signal_names}, ...; all NULL for
     * an empty inbox).
     */
    public static ClaimedStep read(ResultSet rs, int rowNum) throws SQLException {
        List<SignalRow> inbox = List.of();
        Array idArray = rs.getArray("signal_ids");
        if (idArray != null) {
            Long[] ids = (Long[]) idArray.getArray();
            String[] names = (String[]) rs.getArray("signal_names").getArray();
            String[] payloads = (String[]) rs.getArray("signal_payloads").getArray();
            String[] dedupKeys = (String[]) rs.getArray("signal_dedup_keys").getArray();
            Timestamp[] created = (Timestamp[]) rs.getArray("signal_created").getArray();
            SignalRow[] signals = new SignalRow[ids.length];
            for (int k = 0; k < ids.length; k++) {
                signals[k] = new SignalRow(ids[k], names[k], payloads[k], dedupKeys[k], created[k].toInstant());
            }
            inbox = List.of(signals);
        }
        List<String> awaits;
        Array awaitsSet = rs.getArray("awaits_set");
        if (awaitsSet != null) {
            awaits = List.of((String[]) awaitsSet.getArray());
        } else {
            String awaited = rs.getString("awaits");
            awaits = awaited == null ? List.of() : List.of(awaited);
        }
        return new ClaimedStep(rs.getLong("id"), rs.getString("machine"), rs.getInt("machine_version"),
                rs.getString("step"), rs.getString("state"), awaits, rs.getBoolean("deadline_passed"),
                rs.getInt("attempt"), rs.getLong("lease_token"), rs.getString("queue"), rs.getString("partition_key"),
                inbox, family(rs), rs.getString("trace_context"));
    }

    private static Family family(ResultSet rs) throws SQLException {
        long parent = rs.getLong("parent_id");
        Long parentId = rs.wasNull() ? null : parent;
        int started = rs.getInt("children_started");
        int ended = rs.getInt("children_ended");
        int awaiting = rs.getInt("awaits_children");
        Integer awaitsChildren = rs.wasNull() ? null : awaiting;
        if (parentId == null && started == 0 && awaitsChildren == null) {
            return Family.NONE;
        }
        return new Family(parentId, started, ended, awaitsChildren);
    }
}
