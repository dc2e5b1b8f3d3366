package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.StartRequest;
import dev.durable.StartResult;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.LogCapture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rows of a machine version no live node runs are not picked (a node with that version may still come) but made
 * visible: {@link DurableEngine#stranded()}, a WARN once per machine version per node, an INFO when they clear.
 */
class StrandedInstancesTest {

    record Cart(int items) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    private static MachineDefinition cart(int version) {
        return MachineDefinition.builder("cart", version, Cart.class)
                .step("checkout", (state, ctx) -> Outcome.done())
                .build();
    }

    @Test
    void rowsOfAVersionNoLiveNodeRunsAreReportedAndWarnedOnceButNotPicked() {
        DurableEngine oldNode = engines.start("old-node", UnaryOperator.identity(), cart(1));
        // A newer deploy started instances of v2 and went away before running them.
        DurableClient newDeploy = engines.clientOnly(cart(1), cart(2));
        // One statement, so the old node's own reaper runs see none or both of them.
        List<Long> ids = newDeploy.startAll("cart", List.of(StartRequest.of(new Cart(1)), StartRequest.of(new Cart(2))))
                .stream().map(StartResult::id).toList();

        oldNode.reapNow();
        oldNode.reapNow();

        assertThat(oldNode.stranded()).singleElement().satisfies(stranded -> {
            assertThat(stranded.machine()).isEqualTo("cart");
            assertThat(stranded.version()).isEqualTo(2);
            assertThat(stranded.waiting()).isEqualTo(2);
        });
        assertThat(logs.at(Level.WARN)).filteredOn(line -> line.contains("cart v2")).singleElement().asString()
                .startsWith("2 instances of machine cart v2 are waiting")
                .contains("no live node runs cart v2 (this node runs cart v1)");
        assertThat(ids).allSatisfy(id -> assertThat(TestDatabase.status(id)).isEqualTo("runnable"));

        // The newer version comes back: its node runs them, and the old node says they are no longer stranded.
        engines.start("new-node", UnaryOperator.identity(), cart(1), cart(2));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> ids.stream().allMatch(id -> TestDatabase.status(id).equals("done")));
        oldNode.reapNow();
        assertThat(oldNode.stranded()).isEmpty();
        assertThat(logs.at(Level.INFO)).contains("Instances of machine cart v2 are no longer stranded");
    }

    @Test
    void aNodeIsRegisteredWithItsMachineVersionsWhileItRunsAndForgottenWhenItStops() {
        DurableEngine node = engines.start("cart-node", UnaryOperator.identity(), cart(1), cart(2));

        assertThat(TestDatabase.jdbc().queryForList("SELECT node_id || ' ' || machine || ' v' || machine_version"
                + " FROM durable_it.durable_node_machine ORDER BY 1", String.class))
                .containsExactly(node.nodeId() + " cart v1", node.nodeId() + " cart v2");

        node.stop();

        assertThat(TestDatabase.jdbc().queryForObject("SELECT count(*) FROM durable_it.durable_node", Long.class))
                .isZero();
        assertThat(TestDatabase.jdbc().queryForObject("SELECT count(*) FROM durable_it.durable_node_machine",
                Long.class)).isZero();
    }

    @Test
    void aNodeWhoseRegistrationAgedOutNoLongerCountsAsLive() {
        DurableEngine watcher = engines.start("watcher", UnaryOperator.identity(), cart(1));
        DurableClient client = engines.clientOnly(cart(1), cart(2));
        // A node running v2 died a while ago: its row is still there, but older than a lease.
        TestDatabase.jdbc().update("INSERT INTO durable_it.durable_node (id, seen_at)"
                + " VALUES ('dead-node:1', now() - interval '1 hour')");
        TestDatabase.jdbc().update("INSERT INTO durable_it.durable_node_machine VALUES ('dead-node:1', 'cart', 2)");
        client.start("cart", new Cart(3));

        watcher.reapNow();

        assertThat(watcher.stranded()).extracting(StrandedInstances::version).containsExactly(2);
    }

    @Test
    void delayedRowsAreNotStrandedBeforeTheyAreDue() {
        DurableEngine watcher = engines.start("watcher", UnaryOperator.identity(), cart(1));
        DurableClient client = engines.clientOnly(cart(1), cart(2));
        client.start("cart", new Cart(3), dev.durable.StartOptions.defaults().delay(Duration.ofHours(1)));

        watcher.reapNow();

        assertThat(watcher.stranded()).isEmpty();
        assertThat(logs.at(Level.WARN)).noneMatch(line -> line.contains("no live node runs"));
    }
}
