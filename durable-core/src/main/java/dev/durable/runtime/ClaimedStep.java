package dev.durable.runtime;

import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A row this node has just claimed: everything its step needs, read in the statement that claimed it (the pick of
 * {@link ClaimRepository}, or the inline continuation of {@link TransitionRepository}).
 *
 * @param leaseToken the token of this claim; every write that ends the step is fenced on it
 * @param awaits     the signal name the instance was parked on when it woke, if it was woken by a signal
 * @param inbox      the instance's signals at pick, ordered by arrival
 */
record ClaimedStep(long id, String machine, int version, String step, @Nullable String stateJson,
        @Nullable String awaits, int attempt, long leaseToken, String queue, @Nullable String partitionKey,
        List<SignalRow> inbox) {

    Claim claim() {
        return new Claim(id, leaseToken);
    }

    /**
     * The claimed row as both claiming statements return it: the row's columns, and its unconsumed signals as
     * parallel arrays in id order ({@code signal_ids}, {@code signal_names}, ...; all NULL for an empty inbox).
     */
    static ClaimedStep read(ResultSet rs, int rowNum) throws SQLException {
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
        return new ClaimedStep(rs.getLong("id"), rs.getString("machine"), rs.getInt("machine_version"),
                rs.getString("step"), rs.getString("state"), rs.getString("awaits"), rs.getInt("attempt"),
                rs.getLong("lease_token"), rs.getString("queue"), rs.getString("partition_key"), inbox);
    }
}
