package dev.durable.test;

import java.time.Duration;
import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * How the kit knows that running nodes use a schema: every engine registers itself in {@code durable_node} when it
 * starts and renews its row's {@code seen_at} on every heartbeat (at most a third of a lease apart), and deletes it
 * when it stops. A row renewed within the last lease, by the database's real {@code now()} (not the kit's shifted
 * time), is a live node's. Rows of nodes named {@value DurableTestEngine#NODE_NAME} are the kit's own (a kit that
 * was killed leaves its row, which must not lock the schema for the next run).
 */
final class LiveNodes {

    private LiveNodes() {
    }

    /** @throws IllegalStateException naming the live nodes, if any use {@code schema} */
    static void refuseIfAny(JdbcTemplate jdbc, String schema, Duration lease) {
        List<String> live = jdbc.queryForList("SELECT id || ' (seen ' || round(extract(epoch FROM now() - seen_at)"
                + "::numeric, 1) || ' s ago)' FROM " + schema + ".durable_node"
                + " WHERE seen_at > now() - ? * interval '1 millisecond' AND id NOT LIKE ? ORDER BY id",
                String.class, lease.toMillis(), DurableTestEngine.NODE_NAME + ":%");
        if (!live.isEmpty()) {
            throw new IllegalStateException("durable-test refuses schema '" + schema + "': running nodes use it "
                    + live + " (their registrations in " + schema + ".durable_node were renewed within the last lease"
                    + " of " + lease + "). The kit moves durable's time for the whole schema and runs no reaper or"
                    + " heartbeat; give the tests a schema of their own.");
        }
    }
}
