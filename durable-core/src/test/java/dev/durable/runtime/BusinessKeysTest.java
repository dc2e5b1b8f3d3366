package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.CancelRefusedException;
import dev.durable.CancelResult;
import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.SignalRefusedException;
import dev.durable.SignalResult;
import dev.durable.StartOptions;
import dev.durable.UnstorableValueException;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Finding, signalling and cancelling an instance by the business key it was started with (docs/DESIGN.md, "Finding
 * instances"): the instance holding a unique key now is the one addressed; without a holder a signal or cancel is
 * refused with a result that says so and nothing is written. Correlation keys group instances.
 */
class BusinessKeysTest {

    record Order(String item) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    /** reserve -> await "paid" -> done. */
    private static MachineDefinition orders() {
        return MachineDefinition.builder("orders", 1, Order.class)
                .initialStep("reserve")
                .step("reserve", (order, ctx) -> ctx.awaited("paid").isPresent() ? Outcome.done("paid " + order.item())
                        : Outcome.await("paid", order))
                .build();
    }

    @Test
    void theHolderOfAUniqueKeyIsFoundSignalledAndWokenByTheKey() {
        DurableEngine engine = engines.start(orders());
        DurableClient client = engine.client();
        long id = client.start("orders", new Order("book"), StartOptions.defaults().uniqueKey("order-42")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));

        DurableInstance holder = client.findByUniqueKey("order-42").orElseThrow();
        assertThat(holder.id()).isEqualTo(id);
        assertThat(holder.holdsUniqueKey()).isTrue();
        assertThat(holder.uniqueKey()).isEqualTo("order-42");

        SignalResult paid = client.signalByUniqueKey("order-42", "paid", 2599, "evt-1");

        assertThat(paid).isEqualTo(new SignalResult(id, SignalResult.Delivery.DELIVERED, true));
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        // Ended, it let go of the key (the default scope): the key has no holder, but still finds the instance.
        assertThat(client.findByUniqueKey("order-42")).isEmpty();
        assertThat(client.list(InstanceQuery.all().uniqueKey("order-42"))).extracting(DurableInstance::id)
                .containsExactly(id);
        assertThat(engine.stats().signalsDelivered()).isOne();
    }

    @Test
    void aSignalOrCancelByAKeyNoInstanceHoldsIsRefusedSayingSoAndNothingIsWritten() {
        DurableEngine engine = engines.build("client-only", settings -> settings, orders());
        DurableClient client = engine.client();
        long ended = client.start("orders", new Order("pen"), StartOptions.defaults().uniqueKey("order-7")).id();
        client.cancel(ended, "first");
        String before = stored(ended);

        SignalResult signal = client.signalByUniqueKey("order-7", "paid", 100, "evt-7");
        CancelResult cancel = client.cancelByUniqueKey("order-7", "again");
        SignalResult unknown = client.signalByUniqueKey("order-404", "paid", null);

        assertThat(signal).isEqualTo(new SignalResult(0, SignalResult.Delivery.REFUSED_NO_KEY_HOLDER, false));
        assertThat(signal.isRefused()).isTrue();
        assertThat(cancel).isEqualTo(new CancelResult(0, CancelResult.Cancellation.REFUSED_NO_KEY_HOLDER, null));
        assertThat(cancel.isRefused()).isTrue();
        assertThat(unknown.delivery()).isEqualTo(SignalResult.Delivery.REFUSED_NO_KEY_HOLDER);
        assertThat(stored(ended)).isEqualTo(before);
        assertThat(TestDatabase.jdbc().queryForObject("SELECT count(*) FROM " + TestDatabase.SCHEMA
                + ".durable_signal", Long.class)).isZero();
        assertThatThrownBy(signal::orThrow).isInstanceOf(SignalRefusedException.class)
                .hasMessage("Signal refused: no instance holds the unique key it was sent to");
        assertThatThrownBy(cancel::orThrow).isInstanceOf(CancelRefusedException.class)
                .hasMessage("Cancel refused: no instance holds the unique key it was addressed by");
        assertThat(engine.stats().signalsRefused()).isEqualTo(2);
        assertThat(engine.stats().cancelsRefused()).isOne();
    }

    /** A unique scope that keeps the key after the end: the ended holder is addressed, and refuses as it ended. */
    @Test
    void anEndedHolderRefusesASignalOrCancelByItsKeyAsAnEndedInstanceDoes() {
        DurableClient client = engines.clientOnly(orders());
        long id = client.start("orders", new Order("lamp"), StartOptions.defaults().uniqueKey("order-9")
                .uniqueScope(EnumSet.allOf(InstanceStatus.class))).id();
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance SET status = 'done'"
                + " WHERE id = ?", id);
        String before = stored(id);

        assertThat(client.findByUniqueKey("order-9").orElseThrow().status()).isEqualTo(InstanceStatus.DONE);
        assertThat(client.signalByUniqueKey("order-9", "paid", null, "evt-9"))
                .isEqualTo(new SignalResult(id, SignalResult.Delivery.REFUSED_TERMINAL_INSTANCE, false));
        assertThat(client.cancelByUniqueKey("order-9", "too late")).isEqualTo(new CancelResult(id,
                CancelResult.Cancellation.REFUSED_TERMINAL_INSTANCE, InstanceStatus.DONE));
        assertThat(stored(id)).isEqualTo(before);
        assertThat(TestDatabase.signals(id)).isEmpty();
    }

    @Test
    void aCancelByKeyEndsTheHolderAndFreesTheKeyForTheNextInstance() {
        DurableClient client = engines.clientOnly(orders());
        long first = client.start("orders", new Order("rug"), StartOptions.defaults().uniqueKey("order-5")).id();

        CancelResult cancelled = client.cancelByUniqueKey("order-5", "customer withdrew");

        assertThat(cancelled).isEqualTo(new CancelResult(first, CancelResult.Cancellation.CANCELLED,
                InstanceStatus.RUNNABLE));
        assertThat(TestDatabase.row(first)).containsEntry("status", "cancelled")
                .containsEntry("last_error", "customer withdrew");
        long second = client.start("orders", new Order("rug"), StartOptions.defaults().uniqueKey("order-5")).id();
        assertThat(second).isNotEqualTo(first);
        assertThat(client.findByUniqueKey("order-5").map(DurableInstance::id)).contains(second);
        assertThat(client.list(InstanceQuery.all().uniqueKey("order-5"))).extracting(DurableInstance::id)
                .containsExactly(first, second);
    }

    /**
     * The holder is locked before the cancel: a transaction ending it (a step's outcome, say) holds the row, the
     * cancel by key waits for it, finds the key no longer held, and writes nothing.
     */
    @Test
    void aHolderThatEndsWhileTheCancelByKeyWaitsForItIsNoLongerAddressed() throws Exception {
        DurableClient client = engines.clientOnly(orders());
        long id = client.start("orders", new Order("desk"), StartOptions.defaults().uniqueKey("order-3")).id();
        CompletableFuture<CancelResult> cancel;
        try (Connection outcome = RowLocks.lockRow(TestDatabase.dataSource(), id)) {
            try (PreparedStatement done = outcome.prepareStatement("UPDATE " + TestDatabase.SCHEMA
                    + ".durable_instance SET status = 'done', result = '\"shipped\"' WHERE id = ?")) {
                done.setLong(1, id);
                done.executeUpdate();
            }
            cancel = CompletableFuture.supplyAsync(() -> client.cancelByUniqueKey("order-3", "operator"), threads);
            RowLocks.awaitLockWait("/* durable: lock unique key holder */");
            outcome.commit();
        }

        assertThat(cancel.get().outcome()).isEqualTo(CancelResult.Cancellation.REFUSED_NO_KEY_HOLDER);
        assertThat(TestDatabase.row(id)).containsEntry("status", "done").containsEntry("last_error", null);
    }

    @Test
    void aSignalByKeyInTheCallersTransactionIsStoredOnlyIfItCommits() {
        DurableClient client = engines.clientOnly(orders());
        long id = client.start("orders", new Order("vase"), StartOptions.defaults().uniqueKey("order-8")).id();
        TransactionTemplate transaction = new TransactionTemplate(
                new DataSourceTransactionManager(TestDatabase.dataSource()));

        transaction.executeWithoutResult(status -> {
            assertThat(client.signalByUniqueKey("order-8", "paid", 1, "evt-1").isDelivered()).isTrue();
            status.setRollbackOnly();
        });
        assertThat(TestDatabase.signals(id)).isEmpty();

        transaction.executeWithoutResult(status -> client.signalByUniqueKey("order-8", "paid", 1, "evt-1"));
        assertThat(TestDatabase.signals(id)).hasSize(1);
    }

    @Test
    void aCorrelationKeyFindsTheInstancesSharingItWhateverTheirMachine() {
        MachineDefinition invoices = MachineDefinition.builder("invoices", 1, Order.class)
                .step("bill", (order, ctx) -> Outcome.done("billed"))
                .build();
        DurableClient client = engines.clientOnly(orders(), invoices);
        long order = client.start("orders", new Order("tea"), StartOptions.defaults().correlationKey("cust-7")).id();
        long invoice = client.start("invoices", new Order("tea"), StartOptions.defaults().correlationKey("cust-7"))
                .id();
        client.start("orders", new Order("tea"), StartOptions.defaults().correlationKey("cust-8"));
        client.start("orders", new Order("tea"));

        assertThat(client.list(InstanceQuery.all().correlationKey("cust-7"))).extracting(DurableInstance::id)
                .containsExactly(order, invoice);
        assertThat(client.find(order).orElseThrow().correlationKey()).isEqualTo("cust-7");
        assertThat(client.find(order).orElseThrow().holdsUniqueKey()).isFalse();
    }

    @Test
    void aKeyTooLongForItsIndexOrHoldingANulIsRefusedAtTheCallAndNothingIsWritten() {
        DurableClient client = engines.clientOnly(orders());
        String tooLong = "é".repeat(StartOptions.MAX_KEY_BYTES / 2 + 1);

        assertThatThrownBy(() -> client.start("orders", new Order("x"), StartOptions.defaults()
                .correlationKey(tooLong)))
                .isInstanceOf(UnstorableValueException.class)
                .hasMessage("The correlation key cannot be stored; nothing was started: it is 1002 bytes long in"
                        + " UTF-8, and a key is at most 1000");
        assertThatThrownBy(() -> client.start("orders", new Order("x"), StartOptions.defaults().uniqueKey(tooLong)))
                .hasMessageStartingWith("The unique key cannot be stored; nothing was started: it is 1002 bytes");
        assertThatThrownBy(() -> client.start("orders", new Order("x"), StartOptions.defaults()
                .partitionKey(tooLong))).hasMessageStartingWith("The partition key cannot be stored");
        assertThatThrownBy(() -> client.start("orders", new Order("x"), StartOptions.defaults()
                .correlationKey("a\u0000b")))
                .hasMessageStartingWith("The correlation key cannot be stored; nothing was started: it holds a NUL");
        assertThat(client.start("orders", new Order("x"), StartOptions.defaults()
                .correlationKey("k".repeat(StartOptions.MAX_KEY_BYTES))).created()).isTrue();
        assertThatThrownBy(() -> client.cancelByUniqueKey("a\u0000b", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("The unique key holds a NUL character (\\u0000) at index 1, which no instance's key can"
                        + " hold; nothing was cancelled");
        assertThat(TestDatabase.jdbc().queryForObject("SELECT count(*) FROM " + TestDatabase.SCHEMA
                + ".durable_instance", Long.class)).isOne();
    }

    /** Every column of the instance's row, as JSON text: equal only if nothing was written. */
    private static String stored(long id) {
        return TestDatabase.jdbc().queryForObject("SELECT to_jsonb(i)::text FROM " + TestDatabase.SCHEMA
                + ".durable_instance i WHERE id = ?", String.class, id);
    }
}
