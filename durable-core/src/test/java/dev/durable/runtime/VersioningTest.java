package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.StartOptions;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.StepFailureException;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Versions and registration (docs/DESIGN.md, "Versions"): old and new versions side by side, rolling deploys, broken
 * rows.
 */
class VersioningTest {

    record Cart(int items) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private static MachineDefinition version(int version, String result) {
        return MachineDefinition.builder("cart", version, Cart.class)
                .step("checkout", (state, ctx) -> Outcome.done(result + " for " + state.items()))
                .build();
    }

    @Test
    void twoVersionsRunSideBySideAndNewInstancesUseTheHighestUnlessOneIsNamed() {
        DurableClient client = engines.start(version(1, "v1"), version(2, "v2")).client();

        long latest = client.start("cart", new Cart(3)).id();
        long pinned = client.start("cart", new Cart(4), StartOptions.defaults().version(1)).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(latest).equals("done")
                && TestDatabase.status(pinned).equals("done"));
        assertThat(TestDatabase.row(latest)).containsEntry("machine_version", 2).containsEntry("result",
                "\"v2 for 3\"");
        assertThat(TestDatabase.row(pinned)).containsEntry("machine_version", 1).containsEntry("result",
                "\"v1 for 4\"");
    }

    /** A row of a version this node lacks is never picked by it, a node of an older deploy ("Versions"). */
    @Test
    void aNodeNeverPicksARowOfAVersionItLacks() {
        DurableClient newerDeploy = engines.clientOnly(version(1, "v1"), version(2, "v2"));
        long newer = newerDeploy.start("cart", new Cart(1)).id();
        long older = newerDeploy.start("cart", new Cart(2), StartOptions.defaults().version(1)).id();

        DurableEngine oldNode = engines.start("old-node", settings -> settings.pollInterval(Duration.ofMillis(100))
                .idlePollInterval(Duration.ofMillis(100)), version(1, "v1"));

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(older).equals("done"));
        // Ten poll intervals later, the v2 row is still untouched.
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2))
                .until(() -> TestDatabase.status(newer).equals("runnable"));
        assertThat(TestDatabase.row(newer)).containsEntry("attempt", 0).containsEntry("lease_token", null);
        assertThat(oldNode.stats().picked()).isEqualTo(1);
    }

    @Test
    void aRowAtAStepItsVersionDoesNotDeclareFailsWithAClearErrorAndKeepsItsState() {
        DurableClient client = engines.clientOnly(version(1, "v1"));
        long id = client.start("cart", new Cart(5)).id();
        // A row written by code that had a step this version lacks.
        TestDatabase.jdbc().update("UPDATE durable_it.durable_instance SET step = 'legacy-step' WHERE id = ?", id);

        engines.start(version(1, "v1"));

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        Map<String, Object> row = TestDatabase.row(id);
        assertThat((String) row.get("last_error")).isEqualTo(StepFailureException.UnknownStep.class.getName()
                + ": Instance " + id + " is at step 'legacy-step', which cart v1 does not declare (steps: [checkout])");
        assertThat(row).containsEntry("state", "{\"items\": 5}").containsEntry("step", "legacy-step");
    }

    @Test
    void anUnreadableStateTakesTheErrorPathAndTheRawJsonStaysInTheRow() {
        AtomicReference<Exception> handed = new AtomicReference<>();
        MachineDefinition machine = MachineDefinition.builder("cart", 1, Cart.class)
                .step("checkout", (state, ctx) -> Outcome.done())
                .errorHandler((error, state, ctx) -> {
                    handed.set(error);
                    assertThat(state).isNull();
                    // A null state keeps the stored JSON untouched.
                    return Outcome.retry(null, Duration.ofHours(1));
                })
                .build();
        long id = engines.clientOnly(machine).start("cart", new Cart(5)).id();
        TestDatabase.jdbc().update("UPDATE durable_it.durable_instance SET state = '{\"items\": \"many\"}'"
                + " WHERE id = ?", id);

        engines.start(machine);

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.row(id).get("attempt").equals(1));
        assertThat(handed.get()).isInstanceOf(StepFailureException.UnreadableState.class)
                .hasMessageStartingWith("The state of instance " + id + " (cart v1, step 'checkout') cannot be read as "
                        + Cart.class.getName() + "; the stored JSON is kept");
        assertThat(TestDatabase.row(id)).containsEntry("state", "{\"items\": \"many\"}")
                .containsEntry("status", "runnable");
    }

    @Test
    void startingAnUnregisteredMachineNamesItAndTheRegisteredOnesAndInsertsNothing() {
        DurableClient client = engines.clientOnly(version(1, "v1"), version(2, "v2"));

        assertThatThrownBy(() -> client.start("basket", new Cart(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("No machine named 'basket' is registered; registered machines: cart [1, 2]");
        assertThatThrownBy(() -> client.start(String.class, "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Class java.lang.String is not a registered machine; registered machines: cart [1, 2]");
        assertThatThrownBy(() -> client.start("cart", new Cart(1), StartOptions.defaults().version(3)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Machine 'cart' has no version 3; registered versions: [1, 2]");
        assertThat(TestDatabase.jdbc().queryForObject("SELECT count(*) FROM durable_it.durable_instance", Long.class))
                .isZero();
    }
}
