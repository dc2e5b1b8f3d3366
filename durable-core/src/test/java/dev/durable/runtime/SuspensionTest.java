package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.BulkResult;
import dev.durable.CancelResult;
import dev.durable.Child;
import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.HistoryEntry;
import dev.durable.HistoryEntry.Event;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.RetryResult;
import dev.durable.StartOptions;
import dev.durable.StartResult;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.control.RetentionRepository;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A suspended instance (docs/DESIGN.md, "Suspension") is unfinished but never picked: it keeps its unique key, its
 * parent waits for it, it can be cancelled, it is listed, searched and counted with the status {@code suspended}, an
 * operator's retry (of one, or of a page by filter) runs it again, retention does not delete it, and it is not reported
 * stranded.
 */
class SuspensionTest {

    record Job(int n) {
    }

    record Family(int children) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final AtomicInteger jobRuns = new AtomicInteger();

    private MachineDefinition jobs(int version) {
        return MachineDefinition.builder("job", version, Job.class)
                .step("work", (job, ctx) -> {
                    jobRuns.incrementAndGet();
                    return Outcome.done(job.n());
                })
                .build();
    }

    /** Starts one at each join: both its children, then parked until they have ended. */
    private static MachineDefinition families() {
        return MachineDefinition.builder("family", 1, Family.class)
                .step("raise", (family, ctx) -> ctx.childrenStarted() == 0
                        ? Outcome.awaitChildren(family, Outcome.Join.ALL).startingChildren(
                                Child.of("job", new Job(1)).options(StartOptions.defaults().delay(Duration.ofHours(1))),
                                Child.of("job", new Job(2)))
                        : Outcome.done(ctx.childrenEnded()))
                .build();
    }

    /**
     * Makes instance {@code id} (started with a delay, not yet run) hold a state its machine's type would narrow, as
     * code of an earlier deploy would have stored it, and due now: the next pick suspends it.
     */
    private static void storedByEarlierCode(long id) {
        TestDatabase.jdbc().update("UPDATE durable_it.durable_instance SET state = state || '{\"legacy\": \"kept\"}',"
                + " eligible_at = now() WHERE id = ?", id);
    }

    private static long suspendedJob(DurableClient client, StartOptions options) {
        long id = client.start("job", new Job(7), options.delay(Duration.ofHours(1))).id();
        storedByEarlierCode(id);
        await().atMost(Duration.ofSeconds(10)).until(() -> client.find(id).orElseThrow().status()
                == InstanceStatus.SUSPENDED);
        return id;
    }

    @Test
    void aSuspendedInstanceIsNotPickedAndKeepsItsUniqueKey() {
        DurableEngine engine = engines.start(jobs(1));
        DurableClient client = engine.client();
        long id = suspendedJob(client, StartOptions.defaults().uniqueKey("job-7"));

        // Another instance runs to its end meanwhile: the node picked since, and left the suspended one alone.
        long other = client.start("job", new Job(8)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(other).equals("done"));
        assertThat(jobRuns).hasValue(1);
        assertThat(client.find(id).orElseThrow().status()).isEqualTo(InstanceStatus.SUSPENDED);
        // Its key is held: a second start resolves to it.
        StartResult again = client.start("job", new Job(9), StartOptions.defaults().uniqueKey("job-7"));
        assertThat(again.id()).isEqualTo(id);
        assertThat(again.created()).isFalse();
        DurableInstance holder = client.findByUniqueKey("job-7").orElseThrow();
        assertThat(holder.id()).isEqualTo(id);
        assertThat(holder.status()).isEqualTo(InstanceStatus.SUSPENDED);
        assertThat(holder.holdsUniqueKey()).isTrue();
    }

    /** A scope that names suspended too is the same scope: it is stored as runnable. */
    @Test
    void aUniqueScopeNamingSuspendedIsAccepted() {
        DurableClient client = engines.clientOnly(jobs(1));
        StartResult started = client.start("job", new Job(1), StartOptions.defaults().uniqueKey("k")
                .uniqueScope(InstanceStatus.UNFINISHED));

        assertThat(TestDatabase.jdbc().queryForObject("SELECT unique_scope::text FROM durable_it.durable_instance"
                + " WHERE id = ?", String.class, started.id())).isEqualTo("{awaiting_signal,executing,runnable}");
    }

    @Test
    void aParentJoiningItsChildrenIsNotWokenByASuspendedChildAndIsWokenWhenItIsCancelled() {
        DurableEngine engine = engines.start(families(), jobs(1));
        DurableClient client = engine.client();
        long parent = client.start("family", new Family(2)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> client.children(parent).stream()
                .anyMatch(child -> child.status() == InstanceStatus.DONE));
        long lossy = client.children(parent).stream().filter(child -> child.status() == InstanceStatus.RUNNABLE)
                .findFirst().orElseThrow().id();
        storedByEarlierCode(lossy);
        await().atMost(Duration.ofSeconds(10)).until(() -> client.find(lossy).orElseThrow().status()
                == InstanceStatus.SUSPENDED);

        // Not ended: the parent still waits, having counted one ended child of two.
        engine.reapNow();
        assertThat(TestDatabase.status(parent)).isEqualTo("awaiting_signal");
        assertThat(TestDatabase.row(parent)).containsEntry("children_ended", 1);

        CancelResult cancelled = client.cancel(lossy, "cannot be recovered");
        assertThat(cancelled).isEqualTo(new CancelResult(lossy, CancelResult.Cancellation.CANCELLED,
                InstanceStatus.SUSPENDED));
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(parent).equals("done"));
        assertThat(client.find(lossy).orElseThrow().status()).isEqualTo(InstanceStatus.CANCELLED);
        assertThat(client.history(lossy)).extracting(HistoryEntry::event).endsWith(Event.SUSPEND, Event.CANCEL);
    }

    @Test
    void suspendedInstancesAreSearchedCountedAndSummarizedByTheirOwnStatus() {
        DurableEngine engine = engines.start(jobs(1));
        DurableClient client = engine.client();
        long suspended = suspendedJob(client, StartOptions.defaults().correlationKey("batch-1"));
        long waiting = client.start("job", new Job(1), StartOptions.defaults().delay(Duration.ofHours(1))
                .correlationKey("batch-1")).id();

        assertThat(client.list(InstanceQuery.all().status(InstanceStatus.SUSPENDED)))
                .extracting(DurableInstance::id).containsExactly(suspended);
        assertThat(client.list(InstanceQuery.all().status(InstanceStatus.RUNNABLE)))
                .extracting(DurableInstance::id).containsExactly(waiting);
        assertThat(client.list(InstanceQuery.all().statuses(InstanceStatus.UNFINISHED).order(
                InstanceQuery.Order.NEWEST_FIRST))).extracting(DurableInstance::id, DurableInstance::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(waiting, InstanceStatus.RUNNABLE),
                        org.assertj.core.groups.Tuple.tuple(suspended, InstanceStatus.SUSPENDED));
        assertThat(client.list(InstanceQuery.all().correlationKey("batch-1").errorContains("$.LEGACY")))
                .extracting(DurableInstance::id).containsExactly(suspended);
        assertThat(client.count().get("default")).containsEntry(InstanceStatus.SUSPENDED, 1L)
                .containsEntry(InstanceStatus.RUNNABLE, 1L);
        assertThat(client.summarizeLive()).singleElement().satisfies(summary -> {
            assertThat(summary.count(InstanceStatus.SUSPENDED)).isOne();
            assertThat(summary.count(InstanceStatus.RUNNABLE)).isOne();
        });
        // Its reason is its last error; it waits for no time: it is never due.
        DurableInstance instance = client.find(suspended).orElseThrow();
        assertThat(instance.lastError()).contains("would lose [$.legacy]");
        assertThat(instance.eligibleAt()).isAfter(java.time.Instant.parse("9999-01-01T00:00:00Z"));
    }

    /** After a fix (here, an operator's edit of the stored state), a bulk retry by filter runs them again. */
    @Test
    void aBulkRetryByFilterResumesSuspendedInstances() {
        DurableEngine engine = engines.start(jobs(1));
        DurableClient client = engine.client();
        long first = suspendedJob(client, StartOptions.defaults());
        long second = suspendedJob(client, StartOptions.defaults());
        TestDatabase.jdbc().update("UPDATE durable_it.durable_instance SET state = state - 'legacy'");

        BulkResult result = client.bulkRetry(InstanceQuery.all().machine("job").status(InstanceStatus.SUSPENDED));

        assertThat(result.selected()).isEqualTo(2);
        assertThat(result.changed()).isEqualTo(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(first).equals("done")
                && TestDatabase.status(second).equals("done"));
        assertThat(client.history(first)).extracting(HistoryEntry::event)
                .containsExactly(Event.SUSPEND, Event.RETRY_SUSPENDED, Event.DONE);
        // A retry of an instance that is neither failed nor suspended changes nothing.
        assertThat(client.retryFailed(first))
                .isEqualTo(new RetryResult(first, RetryResult.Retry.REFUSED_NOT_FAILED, InstanceStatus.DONE));
    }

    /** Retried without a fix, it is suspended again, and said so again. */
    @Test
    void aRetryThatFindsTheStateStillLossySuspendsItAgain() {
        DurableEngine engine = engines.start(jobs(1));
        DurableClient client = engine.client();
        long id = suspendedJob(client, StartOptions.defaults());

        assertThat(client.retryFailed(id))
                .isEqualTo(new RetryResult(id, RetryResult.Retry.RESUMED, InstanceStatus.SUSPENDED));

        await().atMost(Duration.ofSeconds(10)).until(() -> engine.stats().instancesSuspended() == 2);
        assertThat(client.find(id).orElseThrow().status()).isEqualTo(InstanceStatus.SUSPENDED);
        assertThat(client.history(id)).extracting(HistoryEntry::event)
                .containsExactly(Event.SUSPEND, Event.RETRY_SUSPENDED, Event.SUSPEND);
        assertThat(jobRuns).hasValue(0);
    }

    @Test
    void retentionDoesNotDeleteASuspendedInstance() {
        DurableEngine engine = engines.start(jobs(1));
        long id = suspendedJob(engine.client(), StartOptions.defaults());
        TestDatabase.jdbc().update("UPDATE durable_it.durable_instance SET updated_at = now() - interval '30 days'");
        RetentionRepository retention = Repositories.onTestDatabase().retention();

        for (InstanceStatus ended : List.of(InstanceStatus.DONE, InstanceStatus.FAILED, InstanceStatus.CANCELLED)) {
            assertThat(retention.deleteExpired(ended, Duration.ofMillis(1), 100)).isZero();
        }
        assertThat(engine.client().find(id)).isPresent();
    }

    /** Not due, ever: a suspended row of a version no node runs is not reported stranded; a waiting one is. */
    @Test
    void aSuspendedInstanceIsNotReportedStranded() {
        DurableEngine old = engines.start("old", UnaryOperator.identity(), jobs(1));
        long suspended = suspendedJob(old.client(), StartOptions.defaults());
        long waiting = old.client().start("job", new Job(3), StartOptions.defaults().delay(Duration.ofHours(1))).id();
        old.close();
        TestDatabase.jdbc().update("UPDATE durable_it.durable_instance SET eligible_at = now() WHERE id = ?", waiting);

        DurableEngine newer = engines.start("newer", UnaryOperator.identity(), jobs(2));
        newer.reapNow();

        assertThat(newer.stranded()).singleElement().satisfies(stranded -> {
            assertThat(stranded.version()).isEqualTo(1);
            assertThat(stranded.waiting()).isOne();
        });
        assertThat(newer.client().find(suspended).orElseThrow().status()).isEqualTo(InstanceStatus.SUSPENDED);
    }

    /** The poller's sleep until the next timer looks past suspended rows, which never fall due. */
    @Test
    void theNextTimerIsFoundPastSuspendedRows() {
        DurableEngine engine = engines.start(jobs(1));
        suspendedJob(engine.client(), StartOptions.defaults());
        ClaimRepository claims = Repositories.onTestDatabase().claims();

        assertThat(claims.millisUntilNextEligible("default")).isNull();

        engine.client().start("job", new Job(4), StartOptions.defaults().delay(Duration.ofMinutes(10)));
        assertThat(claims.millisUntilNextEligible("default")).isBetween(Duration.ofMinutes(9).toMillis(),
                Duration.ofMinutes(10).toMillis());
    }

    /** Signals sent meanwhile are kept for the step that runs once it is resumed. */
    @Test
    void aSignalToASuspendedInstanceIsStoredAndWakesNothing() {
        DurableEngine engine = engines.start(jobs(1));
        long id = suspendedJob(engine.client(), StartOptions.defaults());

        assertThat(engine.client().signal(id, "nudge", null, null).delivery())
                .isEqualTo(dev.durable.SignalResult.Delivery.DELIVERED);

        Map<String, Object> row = TestDatabase.row(id);
        assertThat(row).containsEntry("status", "runnable").containsEntry("eligible_at_text", "infinity");
        assertThat(TestDatabase.signals(id)).hasSize(1);
    }
}
