package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.jdbc.DurableSchema;
import dev.durable.runtime.control.StartRepository;
import dev.durable.runtime.jdbc.History;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.runtime.step.ClaimedStep;
import dev.durable.runtime.step.NewInstance;
import dev.durable.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Pitfall P6 (docs/DESIGN.md): inserting a signal takes a foreign-key KEY SHARE lock on its instance row until the
 * sender commits. A picker using FOR UPDATE SKIP LOCKED would skip that row as locked; FOR NO KEY UPDATE does not
 * conflict with KEY SHARE, so the row is claimed.
 */
class ForeignKeyLockTest {

    private final DataSource dataSource = TestDatabase.dataSource();
    private final StatementPlanning planning = new StatementPlanning(dataSource,
            DurableSchema.named(TestDatabase.SCHEMA));

    @Test
    void aRunnableRowHeldByAnOpenSignalInsertIsStillPicked() throws Exception {
        TestDatabase.clean();
        long id = new StartRepository(planning, "test-node", java.time.Duration.ofMinutes(1)).insert(List.of(new NewInstance("m", 1, "s", "{}", "q", (short) 0, null, 0, null,
                "{runnable,executing,awaiting_signal}"))).get(0).id();

        try (Connection sender = dataSource.getConnection()) {
            sender.setAutoCommit(false);
            try (PreparedStatement insert = sender.prepareStatement(
                    "INSERT INTO durable_it.durable_signal (instance_id, name) VALUES (?, 'hello')")) {
                insert.setLong(1, id);
                insert.executeUpdate();
            }
            assertThat(TestDatabase.jdbc().queryForObject("""
                    SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                    WHERE c.relname = 'durable_instance' AND l.mode = 'RowShareLock' AND l.granted
                    """, Long.class)).as("the sender holds a lock on the instance table").isPositive();

            List<ClaimedStep> claimed = new ClaimRepository(planning, History.off()).pick("q", Map.of("m", List.of(1)), 10, "node:1",
                    Duration.ofMinutes(1));

            assertThat(claimed).extracting(ClaimedStep::id).containsExactly(id);
            sender.rollback();
        }
    }
}
