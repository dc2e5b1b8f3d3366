package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.HistoryEntry;
import dev.durable.HistoryEntry.Event;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.RerunResult;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An operator's rerun of an ended instance (docs/DESIGN.md, "Operator repair"): in place from a chosen step, with an
 * edited state or the stored one, recorded in the history with who did it; bad input refused naming the problem
 * with nothing written; an instance that has not ended, a running one among them, refused with nothing written.
 */
class RerunTest {

    record Parcel(int weight, String address) {
    }

    private static final Duration WAIT = Duration.ofSeconds(10);
    /** Held by the step "hold" until the test lets it go. */
    private static volatile CountDownLatch holding = new CountDownLatch(0);
    private static volatile CountDownLatch entered = new CountDownLatch(0);

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    /** weigh -> ship: ship stops (fails) an unaddressed parcel, else done with the address; "hold" waits for the test. */
    private static MachineDefinition parcels() {
        return MachineDefinition.builder("parcel", 1, Parcel.class)
                .initialStep("weigh")
                .step("weigh", (parcel, ctx) -> Outcome.next(parcel.weight() < 0 ? "hold" : "ship", parcel))
                .step("hold", (parcel, ctx) -> {
                    entered.countDown();
                    try {
                        holding.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return Outcome.done("held");
                })
                .step("ship", (parcel, ctx) -> parcel.address().isEmpty() ? Outcome.stop("no address")
                        : Outcome.done("shipped to " + parcel.address()))
                .build();
    }

    /** The instance's row as stored, without what moves with time alone: the lease a heartbeat renews, eligible_in. */
    private static Map<String, Object> stored(long id) {
        Map<String, Object> row = new TreeMap<>(TestDatabase.row(id));
        row.keySet().removeIf(column -> column.startsWith("eligible_in") || column.equals("lease_expires_at"));
        return row;
    }

    private static long ended(DurableClient client, Parcel parcel, String status) {
        long id = client.start("parcel", parcel).id();
        await().atMost(WAIT).until(() -> TestDatabase.status(id).equals(status));
        return id;
    }

    @Test
    void aFailedInstanceRunsAgainFromTheChosenStepWithTheEditedStateAndTheHistorySaysWhoDidIt() {
        DurableClient client = engines.start(parcels()).client();
        long id = ended(client, new Parcel(2, ""), "failed");

        RerunResult result = client.rerun(id, "ship", new Parcel(2, "Main St 1"), "alice");

        assertThat(result.outcome()).isEqualTo(RerunResult.Rerun.RERUN);
        assertThat(result.status()).isEqualTo(InstanceStatus.FAILED);
        await().atMost(WAIT).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(client.find(id).orElseThrow().result(String.class)).isEqualTo("shipped to Main St 1");
        List<HistoryEntry> history = client.history(id);
        HistoryEntry rerun = history.get(history.size() - 2);
        assertThat(rerun.event()).isEqualTo(Event.RERUN);
        assertThat(rerun.step()).isEqualTo("ship");
        assertThat(rerun.nextStep()).isEqualTo("ship");
        assertThat(rerun.status()).isEqualTo(InstanceStatus.RUNNABLE);
        assertThat(rerun.error()).isEqualTo("rerun from step 'ship' by alice, state edited");
        assertThat(history.get(history.size() - 1).event()).isEqualTo(Event.DONE);
        assertThat(client.find(id).orElseThrow().attempt()).isZero();
    }

    @Test
    void aDoneInstanceRunsAgainFromAnEarlierStepWithItsStoredState() {
        DurableClient client = engines.start(parcels()).client();
        long id = ended(client, new Parcel(3, "Elm St 2"), "done");

        assertThat(client.rerun(id, "weigh", null, "bob").isRerun()).isTrue();

        await().atMost(WAIT).until(() -> TestDatabase.status(id).equals("done")
                && client.history(id).size() == 5);
        assertThat(client.history(id)).extracting(HistoryEntry::event)
                .containsExactly(Event.NEXT, Event.DONE, Event.RERUN, Event.NEXT, Event.DONE);
        assertThat(client.history(id).get(2).error()).isEqualTo("rerun from step 'weigh' by bob");
    }

    @Test
    void badInputIsRefusedNamingTheProblemAndNothingIsWritten() {
        DurableClient client = engines.start(parcels()).client();
        long id = ended(client, new Parcel(2, ""), "failed");
        Map<String, Object> before = stored(id);
        int entries = client.history(id).size();

        assertThatThrownBy(() -> client.rerun(id, "fly", null, "alice"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("parcel v1 has no step 'fly' (its steps: [weigh, hold, ship]); nothing was rerun");
        assertThatThrownBy(() -> client.rerun(id, "ship", Map.of("weight", "heavy", "address", "x"), "alice"))
                .isInstanceOf(RuntimeException.class)
                .hasMessageContaining("The edited state of instance " + id)
                .hasMessageContaining("nothing was rerun");
        assertThatThrownBy(() -> client.rerun(id, "ship", Map.of("weight", 1, "address", "x", "colour", "red"),
                "alice"))
                .hasMessageContaining("colour")
                .hasMessageContaining("nothing was rerun");
        assertThatThrownBy(() -> client.rerun(id, "ship", null, " "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Name the operator who reruns instance " + id + "; nothing was rerun");

        assertThat(stored(id)).isEqualTo(before);
        assertThat(client.history(id)).hasSize(entries);
        assertThat(client.rerun(987654321L, "ship", null, "alice").outcome())
                .isEqualTo(RerunResult.Rerun.REFUSED_UNKNOWN_INSTANCE);
    }

    @Test
    void anInstanceARunningNodeRunsIsRefusedUntilItHasEnded() throws InterruptedException {
        holding = new CountDownLatch(1);
        entered = new CountDownLatch(1);
        DurableClient client = engines.start(parcels()).client();
        long id = client.start("parcel", new Parcel(-1, "Oak St 3")).id();
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();   // its node runs "hold" now, claim held
        Map<String, Object> running = stored(id);
        int entries = client.history(id).size();

        RerunResult refused = client.rerun(id, "ship", new Parcel(1, "elsewhere"), "alice");

        assertThat(refused.outcome()).isEqualTo(RerunResult.Rerun.REFUSED_NOT_ENDED);
        assertThat(refused.status()).isEqualTo(InstanceStatus.EXECUTING);
        assertThat(stored(id)).isEqualTo(running);
        assertThat(client.history(id)).hasSize(entries);

        holding.countDown();   // the node's outcome commits: its claim was untouched by the refused rerun
        await().atMost(WAIT).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(client.find(id).orElseThrow().result(String.class)).isEqualTo("held");
        assertThat(client.rerun(id, "ship", null, "alice").isRerun()).isTrue();
        await().atMost(WAIT).until(() -> "shipped to Oak St 3".equals(client.find(id).orElseThrow()
                .result(String.class)));
    }
}
