package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.HistoryEntry;
import dev.durable.HistoryEntry.Event;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.RetryRefusedException;
import dev.durable.RetryResult;
import dev.durable.RetryResult.Retry;
import dev.durable.StartOptions;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * An operator's retry of one instance (docs/DESIGN.md, "Suspension", an operator's retry of one instance): a failed
 * instance is retried, and runs again from the step it failed at; one that is missing, or neither failed nor
 * suspended (runnable, executing, parked, done, cancelled), is refused with a result that says why, and nothing is
 * written, neither to the row nor to its history. Suspended instances are resumed in {@link SuspensionTest}.
 */
class RetryTest {

    record Job(String kind) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final AtomicBoolean fixed = new AtomicBoolean();
    private final CountDownLatch blocking = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void releaseTheBlockedStep() {
        release.countDown();
    }

    /** One step: "fail" stops until fixed, "park" awaits "go", "block" runs until released, the others are done. */
    private MachineDefinition jobs() {
        return MachineDefinition.builder("jobs", 1, Job.class)
                .step("work", (job, ctx) -> switch (job.kind()) {
                    case "fail" -> fixed.get() ? Outcome.done("fixed") : Outcome.stop("carrier down");
                    case "park" -> ctx.awaited("go").isPresent() ? Outcome.done("went") : Outcome.await("go", job);
                    case "block" -> {
                        blocking.countDown();
                        assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
                        yield Outcome.done("released");
                    }
                    default -> Outcome.done("ok");
                })
                .build();
    }

    @Test
    void aFailedInstanceIsRetriedAndRunsAgainFromTheStepItFailedAt() {
        DurableClient client = engines.start(jobs()).client();
        long id = client.start("jobs", new Job("fail")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        fixed.set(true);

        RetryResult result = client.retryFailed(id);

        assertThat(result).isEqualTo(new RetryResult(id, Retry.RETRIED, InstanceStatus.FAILED));
        assertThat(result.isRetried()).isTrue();
        assertThat(result.orThrow()).isSameAs(result);
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(client.history(id)).extracting(HistoryEntry::event)
                .containsExactly(Event.STOP, Event.RETRY_FAILED, Event.DONE);
    }

    @Test
    void aMissingInstanceOrOneNeitherFailedNorSuspendedIsRefusedAndNothingIsWritten() throws Exception {
        DurableEngine engine = engines.start(jobs());
        DurableClient client = engine.client();
        long runnable = client.start("jobs", new Job("ok"), StartOptions.defaults().delay(Duration.ofHours(1))).id();
        long executing = client.start("jobs", new Job("block")).id();
        long parked = client.start("jobs", new Job("park")).id();
        long done = client.start("jobs", new Job("ok")).id();
        long cancelled = client.start("jobs", new Job("park")).id();
        assertThat(blocking.await(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(parked).equals("awaiting_signal")
                && TestDatabase.status(done).equals("done")
                && TestDatabase.status(cancelled).equals("awaiting_signal"));
        client.cancel(cancelled, "withdrawn").orThrow();
        List<Long> ids = List.of(runnable, executing, parked, done, cancelled);
        List<String> rowsBefore = ids.stream().map(RetryTest::stored).toList();
        List<List<HistoryEntry>> historyBefore = ids.stream().map(client::history).toList();
        long historyRows = historyRows();

        List<RetryResult> results = ids.stream().map(client::retryFailed).toList();
        RetryResult missing = client.retryFailed(987_654_321L);

        assertThat(results).containsExactly(
                new RetryResult(runnable, Retry.REFUSED_NOT_FAILED, InstanceStatus.RUNNABLE),
                new RetryResult(executing, Retry.REFUSED_NOT_FAILED, InstanceStatus.EXECUTING),
                new RetryResult(parked, Retry.REFUSED_NOT_FAILED, InstanceStatus.AWAITING_SIGNAL),
                new RetryResult(done, Retry.REFUSED_NOT_FAILED, InstanceStatus.DONE),
                new RetryResult(cancelled, Retry.REFUSED_NOT_FAILED, InstanceStatus.CANCELLED));
        assertThat(missing).isEqualTo(new RetryResult(987_654_321L, Retry.REFUSED_UNKNOWN_INSTANCE, null));
        assertThat(results).allSatisfy(result -> assertThat(result.isRefused()).isTrue());
        // Nothing written: every row as it was (to the byte), no history entry anywhere.
        assertThat(ids.stream().map(RetryTest::stored).toList()).isEqualTo(rowsBefore);
        assertThat(ids.stream().map(client::history).toList()).isEqualTo(historyBefore);
        assertThat(historyRows()).isEqualTo(historyRows);
        assertThatThrownBy(results.get(3)::orThrow).isInstanceOf(RetryRefusedException.class)
                .hasMessage("Retry refused: instance " + done + " is done, neither failed nor suspended")
                .satisfies(e -> assertThat(((RetryRefusedException) e).result()).isEqualTo(results.get(3)));
        assertThatThrownBy(missing::orThrow).isInstanceOf(RetryRefusedException.class)
                .hasMessage("Retry refused: no instance with id 987654321");
        // The executing step was not disturbed: released, it ends as it would have.
        release.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(executing).equals("done"));
    }

    @Test
    void aFailedInstanceWhoseUniqueKeyAnotherHoldsNowIsRefusedAndNothingIsWritten() {
        DurableClient client = engines.start(jobs()).client();
        long failed = client.start("jobs", new Job("fail"), StartOptions.defaults().uniqueKey("job-7")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(failed).equals("failed"));
        // A failed instance lets go of its unique key (the default scope); a new one takes it.
        long holder = client.start("jobs", new Job("park"), StartOptions.defaults().uniqueKey("job-7")).id();
        assertThat(holder).isNotEqualTo(failed);
        String before = stored(failed);
        List<HistoryEntry> historyBefore = client.history(failed);

        assertThatThrownBy(() -> client.retryFailed(failed)).isInstanceOf(IllegalStateException.class)
                .hasMessage("Instance " + failed + " cannot be retried: another instance holds its unique key now");

        assertThat(stored(failed)).isEqualTo(before);
        assertThat(client.history(failed)).isEqualTo(historyBefore);
    }

    @Test
    void aRetryInTheCallersTransactionHoldsOnlyIfItCommits() {
        DurableClient client = engines.start(jobs()).client();
        long id = client.start("jobs", new Job("fail")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        String before = stored(id);
        TransactionTemplate transaction = new TransactionTemplate(
                new DataSourceTransactionManager(TestDatabase.dataSource()));

        transaction.executeWithoutResult(status -> {
            assertThat(client.retryFailed(id).outcome()).isEqualTo(Retry.RETRIED);
            status.setRollbackOnly();
        });

        assertThat(stored(id)).isEqualTo(before);
        assertThat(client.history(id)).extracting(HistoryEntry::event).containsExactly(Event.STOP);
    }

    /** The stored row, but for the lease's expiry, which the heartbeat of an executing row moves on its own. */
    private static String stored(long id) {
        return TestDatabase.jdbc().queryForObject("SELECT (to_jsonb(i) - 'lease_expires_at')::text FROM "
                + TestDatabase.SCHEMA + ".durable_instance i WHERE id = ?", String.class, id);
    }

    private static long historyRows() {
        return TestDatabase.jdbc().queryForObject("SELECT count(*) FROM " + TestDatabase.SCHEMA + ".durable_history",
                Long.class);
    }
}
