package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.BulkResult;
import dev.durable.DurableClient;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.StartOptions;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Bulk cancel and bulk retry (docs/DESIGN.md, "Finding instances"): each call acts on one bounded page of the
 * instances a query selects, locked and checked again under the lock, and says how many it changed and where the
 * next page starts; a query they cannot act on is refused with nothing written.
 */
class BulkOperationsTest {

    record Order(String item) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    private static MachineDefinition orders() {
        return MachineDefinition.builder("orders", 1, Order.class)
                .initialStep("reserve")
                .step("reserve", (order, ctx) -> Outcome.await("paid", order))
                .step("ship", (order, ctx) -> Outcome.done("shipped"))
                .build();
    }

    private static MachineDefinition invoices() {
        return MachineDefinition.builder("invoices", 1, Order.class)
                .step("bill", (order, ctx) -> Outcome.done("billed"))
                .build();
    }

    @Test
    void aBulkCancelPagesThroughTheUnfinishedInstancesItSelectsAFullPageAtATime() {
        DurableEngine engine = engines.build("client-only", settings -> settings, orders(), invoices());
        DurableClient client = engine.client();
        List<Long> orders = IntStream.range(0, 12).mapToObj(i -> start(client, "orders")).toList();
        List<Long> invoices = IntStream.range(0, 3).mapToObj(i -> start(client, "invoices")).toList();
        long done = start(client, "orders");
        setStatus(done, "done");
        String doneBefore = stored(done);

        InstanceQuery query = InstanceQuery.all().machine("orders").limit(5);
        BulkResult first = client.bulkCancel(query, "recall");
        BulkResult second = client.bulkCancel(query.afterId(first.lastId()), "recall");
        BulkResult third = client.bulkCancel(query.afterId(second.lastId()), "recall");

        assertThat(first).isEqualTo(new BulkResult(5, 5, orders.get(4), true));
        assertThat(second).isEqualTo(new BulkResult(5, 5, orders.get(9), true));
        assertThat(third).isEqualTo(new BulkResult(2, 2, orders.get(11), false));
        assertThat(orders).allSatisfy(id -> assertThat(TestDatabase.row(id)).containsEntry("status", "cancelled")
                .containsEntry("last_error", "recall"));
        assertThat(invoices).allSatisfy(id -> assertThat(TestDatabase.status(id)).isEqualTo("runnable"));
        assertThat(stored(done)).isEqualTo(doneBefore);
        assertThat(engine.stats().cancelsApplied()).isEqualTo(12);
        // Nothing is left to cancel: an empty page, which starts where it was asked to.
        assertThat(client.bulkCancel(query, "recall")).isEqualTo(new BulkResult(0, 0, 0, false));
        assertThat(client.bulkCancel(query.afterId(third.lastId()), null))
                .isEqualTo(new BulkResult(0, 0, orders.get(11), false));
    }

    /** Of several failed instances sharing a unique key only the latest is retried, and none while another holds it. */
    @Test
    void aBulkRetryRetriesTheFailedInstancesItSelectsButNotOnesWhoseKeyIsHeld() {
        DurableClient client = engines.clientOnly(orders(), invoices());
        long plain = failed(client, null);
        long keyed = failed(client, "order-1");
        long heldElsewhere = failed(client, "order-2");
        long holder = client.start("orders", new Order("x"), StartOptions.defaults().uniqueKey("order-2")).id();
        long earlier = failed(client, "order-3");
        long later = failed(client, "order-3");
        long otherMachine = start(client, "invoices");
        setStatus(otherMachine, "failed");
        long done = start(client, "orders");
        setStatus(done, "done");

        BulkResult retried = client.bulkRetry(InstanceQuery.all().machine("orders"));

        assertThat(retried).isEqualTo(new BulkResult(5, 3, later, false));
        assertThat(retried.skipped()).isEqualTo(2);
        for (long id : List.of(plain, keyed, later)) {
            assertThat(TestDatabase.row(id)).containsEntry("status", "runnable").containsEntry("attempt", 0);
        }
        for (long id : List.of(heldElsewhere, earlier, otherMachine)) {
            assertThat(TestDatabase.status(id)).isEqualTo("failed");
        }
        assertThat(TestDatabase.status(holder)).isEqualTo("runnable");
        assertThat(TestDatabase.status(done)).isEqualTo("done");
        // Paging on from where it stopped passes the skipped ones by.
        assertThat(client.bulkRetry(InstanceQuery.all().machine("orders").afterId(retried.lastId())))
                .isEqualTo(new BulkResult(0, 0, later, false));
    }

    /**
     * The page is locked before the cancel, and each row checked again under its lock: an instance that moved on to
     * another step while the bulk cancel waited for it no longer matches, and is left to run.
     */
    @Test
    void anInstanceThatNoLongerMatchesOnceLockedIsLeftAlone() throws Exception {
        DurableClient client = engines.clientOnly(orders());
        long movingOn = start(client, "orders");
        long staying = start(client, "orders");
        CompletableFuture<BulkResult> cancel;
        try (Connection outcome = RowLocks.lockRow(TestDatabase.dataSource(), movingOn)) {
            try (PreparedStatement next = outcome.prepareStatement("UPDATE " + TestDatabase.SCHEMA
                    + ".durable_instance SET step = 'ship' WHERE id = ?")) {
                next.setLong(1, movingOn);
                next.executeUpdate();
            }
            cancel = CompletableFuture.supplyAsync(
                    () -> client.bulkCancel(InstanceQuery.all().step("reserve"), "stuck at reserve"), threads);
            RowLocks.awaitLockWait("/* durable: lock page */");
            outcome.commit();
        }

        assertThat(cancel.get()).isEqualTo(new BulkResult(1, 1, staying, false));
        assertThat(TestDatabase.row(movingOn)).containsEntry("status", "runnable").containsEntry("step", "ship");
        assertThat(TestDatabase.status(staying)).isEqualTo("cancelled");
    }

    @Test
    void aQueryABulkOperationCannotActOnIsRefusedAndNothingIsWritten() {
        DurableClient client = engines.clientOnly(orders());
        long runnable = start(client, "orders");
        long failed = failed(client, null);

        assertThatThrownBy(() -> client.bulkCancel(InstanceQuery.all().limit(InstanceQuery.MAX_BULK_LIMIT + 1), "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("A bulk cancel acts on at most 1000 instances per call, and the query's limit is 1001;"
                        + " page through with afterId; nothing was done");
        assertThatThrownBy(() -> client.bulkCancel(InstanceQuery.all().status(InstanceStatus.FAILED), "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("A bulk cancel acts on [runnable, executing, awaiting_signal, suspended] instances only,"
                        + " and the query selects [failed]; nothing was done");
        assertThatThrownBy(() -> client.bulkRetry(InstanceQuery.all().status(InstanceStatus.RUNNABLE)))
                .hasMessage("A bulk retry acts on [suspended, failed] instances only, and the query selects [runnable];"
                        + " nothing was done");
        assertThatThrownBy(() -> client.bulkRetry(InstanceQuery.all().limit(5000)))
                .hasMessageStartingWith("A bulk retry acts on at most 1000 instances per call");
        assertThatThrownBy(() -> client.bulkCancel(InstanceQuery.all(), "bad\u0000reason"))
                .hasMessageContaining("nothing was cancelled");
        assertThat(TestDatabase.status(runnable)).isEqualTo("runnable");
        assertThat(TestDatabase.status(failed)).isEqualTo("failed");
    }

    @Test
    void aBulkCancelInTheCallersTransactionHoldsOnlyIfItCommits() {
        DurableClient client = engines.clientOnly(orders());
        long id = start(client, "orders");
        TransactionTemplate transaction = new TransactionTemplate(
                new DataSourceTransactionManager(TestDatabase.dataSource()));

        transaction.executeWithoutResult(status -> {
            assertThat(client.bulkCancel(InstanceQuery.all(), "undo").changed()).isOne();
            status.setRollbackOnly();
        });
        assertThat(TestDatabase.status(id)).isEqualTo("runnable");

        transaction.executeWithoutResult(status -> client.bulkCancel(InstanceQuery.all(), "for good"));
        assertThat(TestDatabase.status(id)).isEqualTo("cancelled");
    }

    /** A retried instance runs again: the engine that made the bulk retry wakes the queue at once. */
    @Test
    void retriedInstancesRunAgain() {
        MachineDefinition flaky = MachineDefinition.builder("flaky", 1, Order.class)
                .step("work", (order, ctx) -> order.item().equals("fail") ? Outcome.stop("declined")
                        : Outcome.done("ok"))
                .build();
        DurableEngine engine = engines.start(flaky);
        long id = engine.client().start("flaky", new Order("fail")).id();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> TestDatabase.status(id).equals("failed"));
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance SET state = '{\"item\":"
                + " \"ok\"}' WHERE id = ?", id);

        assertThat(engine.client().bulkRetry(InstanceQuery.all().errorContains("DECLINED")).changed()).isOne();

        await().atMost(Duration.ofSeconds(10))
                .until(() -> TestDatabase.status(id).equals("done"));
    }

    private static long start(DurableClient client, String machine) {
        return client.start(machine, new Order("book"), StartOptions.defaults().delay(Duration.ofHours(1))).id();
    }

    /** An order that failed, with a unique key that (in the default scope) it no longer holds. */
    private static long failed(DurableClient client, String uniqueKey) {
        long id = client.start("orders", new Order("x"), StartOptions.defaults().uniqueKey(uniqueKey)).id();
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance SET status = 'failed',"
                + " attempt = 3, last_error = 'carrier down' WHERE id = ?", id);
        return id;
    }

    private static void setStatus(long id, String status) {
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance SET status = ?::"
                + TestDatabase.SCHEMA + ".durable_status WHERE id = ?", status, id);
    }

    /** Every column of the instance's row, as JSON text: equal only if nothing was written. */
    private static String stored(long id) {
        return TestDatabase.jdbc().queryForObject("SELECT to_jsonb(i)::text FROM " + TestDatabase.SCHEMA
                + ".durable_instance i WHERE id = ?", String.class, id);
    }
}
