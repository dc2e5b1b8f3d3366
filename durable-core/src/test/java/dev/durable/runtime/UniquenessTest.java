package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.StartOptions;
import dev.durable.StartRequest;
import dev.durable.StartResult;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Uniqueness (docs/DESIGN.md, "Uniqueness"): per-instance unique keys and scopes, single-statement batch inserts. */
class UniquenessTest {

    record Job(int n) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    /** A machine that parks until told "finish", then is done. */
    private static MachineDefinition machine() {
        return MachineDefinition.builder("unique", 1, Job.class)
                .step("work", (state, ctx) -> ctx.awaited("finish").isPresent() ? Outcome.done()
                        : Outcome.await("finish", state))
                .build();
    }

    @Test
    void aStartWhoseKeyIsHeldReturnsTheHolderInsteadOfCreating() {
        DurableClient client = engines.clientOnly(machine());

        StartResult first = client.start("unique", new Job(1), StartOptions.defaults().uniqueKey("order:42"));
        StartResult second = client.start("unique", new Job(2), StartOptions.defaults().uniqueKey("order:42"));

        assertThat(first.created()).isTrue();
        assertThat(second).isEqualTo(new StartResult(first.id(), false));
        assertThat(rows()).isEqualTo(1);
    }

    /** An empty string is a key like any other, not "no key": rows without one in the same batch keep their ids. */
    @Test
    void anEmptyUniqueKeyIsAKeyLikeAnyOther() {
        DurableClient client = engines.clientOnly(machine());

        List<StartResult> results = client.startAll("unique", List.of(
                StartRequest.of(new Job(1)),
                StartRequest.of(new Job(2), StartOptions.defaults().uniqueKey("")),
                StartRequest.of(new Job(3)),
                StartRequest.of(new Job(4), StartOptions.defaults().uniqueKey(""))));

        assertThat(results).extracting(StartResult::created).containsExactly(true, true, true, false);
        assertThat(results.get(3).id()).isEqualTo(results.get(1).id());
        assertThat(results.subList(0, 3)).extracting(StartResult::id).doesNotHaveDuplicates();
        assertThat(rows()).isEqualTo(3);
        assertThat(client.start("unique", new Job(5), StartOptions.defaults().uniqueKey("")))
                .isEqualTo(new StartResult(results.get(1).id(), false));
    }

    @Test
    void withTheDefaultScopeTheKeyIsFreeAgainOnceTheHolderEnds() {
        DurableEngine engine = engines.start(machine());
        DurableClient client = engine.client();
        long first = client.start("unique", new Job(1), StartOptions.defaults().uniqueKey("k")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(first).equals("awaiting_signal"));
        assertThat(client.start("unique", new Job(2), StartOptions.defaults().uniqueKey("k")).created())
                .as("held while awaiting, an active status").isFalse();

        client.signal(first, "finish", null);
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(first).equals("done"));
        StartResult again = client.start("unique", new Job(3), StartOptions.defaults().uniqueKey("k"));

        assertThat(again.created()).as("re-insert after leaving the scope").isTrue();
        assertThat(again.id()).isNotEqualTo(first);
        assertThat(TestDatabase.row(first)).containsEntry("unique_guard", null).containsEntry("unique_key", "k");
    }

    @Test
    void aScopeThatIncludesDoneKeepsTheKeyAfterTheHolderEnds() {
        DurableEngine engine = engines.start(machine());
        DurableClient client = engine.client();
        StartOptions onceEver = StartOptions.defaults().uniqueKey("welcome-mail:7")
                .uniqueScope(EnumSet.of(InstanceStatus.RUNNABLE, InstanceStatus.EXECUTING,
                        InstanceStatus.AWAITING_SIGNAL, InstanceStatus.DONE));
        long first = client.start("unique", new Job(1), onceEver).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(first).equals("awaiting_signal"));
        client.signal(first, "finish", null);
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(first).equals("done"));

        assertThat(client.start("unique", new Job(2), onceEver)).isEqualTo(new StartResult(first, false));
        assertThat(TestDatabase.row(first)).containsEntry("unique_guard", "welcome-mail:7");
    }

    @Test
    void aScopeWithoutEveryActiveStatusIsRefusedWithTheReason() {
        assertThatThrownBy(() -> StartOptions.defaults().uniqueKey("k").uniqueScope(EnumSet.of(InstanceStatus.RUNNABLE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lacks [executing, awaiting_signal]")
                .hasMessageContaining("must contain every active status");
    }

    @Test
    void aBatchIsDeduplicatedWithinItselfAndAgainstExistingRowsWithResultsInRequestOrder() {
        DurableClient client = engines.clientOnly(machine());
        long existing = client.start("unique", new Job(0), StartOptions.defaults().uniqueKey("b")).id();

        List<StartResult> results = client.startAll("unique", List.of(
                StartRequest.of(new Job(1), StartOptions.defaults().uniqueKey("c")),
                StartRequest.of(new Job(2), StartOptions.defaults().uniqueKey("a")),
                StartRequest.of(new Job(3)),
                StartRequest.of(new Job(4), StartOptions.defaults().uniqueKey("b")),
                StartRequest.of(new Job(5), StartOptions.defaults().uniqueKey("a")),
                StartRequest.of(new Job(6))));

        assertThat(results).extracting(StartResult::created).containsExactly(true, true, true, false, false, true);
        assertThat(results.get(3).id()).isEqualTo(existing);
        assertThat(results.get(4).id()).as("the first request of the batch holding 'a' won")
                .isEqualTo(results.get(1).id());
        assertThat(rows()).isEqualTo(5);
        for (int i : new int[] {0, 1, 2, 5}) {
            assertThat(TestDatabase.row(results.get(i).id()).get("state"))
                    .isEqualTo("{\"n\": " + (i + 1) + "}");
        }
    }

    /** Pitfall P8: columns travel as arrays, so a batch's size is not limited by the 65,535 bind parameters. */
    @Test
    void tenThousandInstancesStartInOneCall() {
        DurableClient client = engines.clientOnly(machine());
        List<StartRequest> requests = IntStream.range(0, 10_000)
                .mapToObj(i -> StartRequest.of(new Job(i), i % 2 == 0 ? StartOptions.defaults().uniqueKey("key-" + i)
                        : StartOptions.defaults()))
                .toList();

        List<StartResult> results = client.startAll("unique", requests);

        assertThat(results).hasSize(10_000).allMatch(StartResult::created);
        assertThat(rows()).isEqualTo(10_000);
        // Each result names the row made from its request.
        for (int i : new int[] {0, 1, 4_999, 5_000, 9_998, 9_999}) {
            assertThat(TestDatabase.row(results.get(i).id()).get("state")).isEqualTo("{\"n\": " + i + "}");
        }
        assertThat(results.stream().map(StartResult::id).distinct().count()).isEqualTo(10_000);
    }

    /** Pitfall P5: concurrent batches sharing keys in opposite orders must not deadlock. */
    @Test
    void concurrentBatchesSharingKeysInOppositeOrdersDoNotDeadlock() throws Exception {
        DurableClient client = engines.clientOnly(machine());
        List<StartRequest> ascending = IntStream.range(0, 300)
                .mapToObj(i -> StartRequest.of(new Job(i), StartOptions.defaults().uniqueKey(String.format("shared-%03d", i))))
                .toList();
        List<StartRequest> descending = new ArrayList<>(ascending);
        Collections.reverse(descending);

        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 10; round++) {
                TestDatabase.clean();
                CyclicBarrier together = new CyclicBarrier(4);
                List<Future<List<StartResult>>> batches = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    List<StartRequest> batch = t % 2 == 0 ? ascending : descending;
                    batches.add(threads.submit(() -> {
                        together.await(10, TimeUnit.SECONDS);
                        return client.startAll("unique", batch);
                    }));
                }
                long created = 0;
                for (Future<List<StartResult>> batch : batches) {
                    created += batch.get(30, TimeUnit.SECONDS).stream().filter(StartResult::created).count();
                }
                assertThat(created).as("each key created exactly once, round %d", round).isEqualTo(300);
                assertThat(rows()).isEqualTo(300);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static long rows() {
        return TestDatabase.jdbc().queryForObject("SELECT count(*) FROM durable_it.durable_instance", Long.class);
    }
}
