package dev.durable.boot.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.InstanceStatus;
import dev.durable.boot.autoconfigure.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Starts made in the application's @Transactional methods commit or roll back with them. */
class TransactionalEnqueueTest extends IntegrationTest {

    @Autowired
    Orders orders;

    @Autowired
    DurableClient durable;

    @Test
    void instanceStartedInATransactionThatRollsBackNeverExistsAndNeverRuns() {
        assertThatThrownBy(() -> orders.startAndRollBack("rolled-back"))
                .isInstanceOf(IllegalStateException.class);
        long rolledBack = orders.lastStarted();
        assertThat(rolledBack).isPositive();
        assertThat(durable.find(rolledBack)).isEmpty();
        assertThat(TestDatabase.count()).isZero();

        // A committed start afterwards runs to its first park; the rolled-back one never ran meanwhile.
        long committed = orders.startAndCommit("committed");
        await().atMost(Duration.ofSeconds(20)).until(() -> durable.find(committed)
                .map(instance -> instance.status() == InstanceStatus.AWAITING_SIGNAL).orElse(false));
        assertThat(Workflow.runs).contains("committed:start:0").noneMatch(run -> run.startsWith("rolled-back:"));
        assertThat(TestDatabase.count()).isEqualTo(1);
    }

    @Test
    void instanceStartedInATransactionThatCommitsRuns() {
        long id = orders.startAndCommit("committed-too");
        assertThat(durable.find(id)).isPresent();
        await().atMost(Duration.ofSeconds(20)).until(() -> Workflow.runs.contains("committed-too:start:0"));
    }
}
