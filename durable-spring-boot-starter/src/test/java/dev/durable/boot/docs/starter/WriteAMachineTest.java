package dev.durable.boot.docs.starter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.InstanceStatus;
import dev.durable.SignalResult;
import dev.durable.boot.autoconfigure.DurableAutoConfiguration;
import dev.durable.boot.autoconfigure.TestDatabase;
import dev.durable.boot.docs.starter.Shop.Carrier;
import dev.durable.boot.docs.starter.Shop.Order;
import dev.durable.boot.docs.starter.Shop.Payment;
import dev.durable.boot.docs.starter.Shop.Shipment;
import dev.durable.boot.docs.starter.Shop.SoldOutException;
import dev.durable.boot.docs.starter.Shop.Warehouse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import tools.jackson.databind.json.JsonMapper;

/**
 * The starter README's example, run as written against the test database: the machine of "Write a machine" in an
 * application, an order started, paid, shipped and read back.
 */
class WriteAMachineTest {

    private static final long CUSTOMER = 7;
    private static final Payment PAYMENT = new Payment("PAY-1", 2599);

    /** An application with the README's machine, its two beans and the queue it names. */
    private final ApplicationContextRunner application = application(
            (instanceId, sku) -> "RES-" + instanceId + "-" + sku, (instanceId, order) -> "TRK-" + instanceId);

    private static ApplicationContextRunner application(Warehouse warehouse, Carrier carrier) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        JacksonAutoConfiguration.class, DurableAutoConfiguration.class))
                .withPropertyValues(TestDatabase.properties("durable.queues.orders.concurrency=2"))
                .withBean(Warehouse.class, () -> warehouse)
                .withBean(Carrier.class, () -> carrier)
                .withUserConfiguration(OrderWorkflow.class);
    }

    @BeforeEach
    void cleanDatabase() {
        TestDatabase.clean();
    }

    @Test
    void theReadmesOrderIsStartedPaidShippedAndReadBack() {
        application.run(context -> {
            assertThat(context).hasNotFailed();
            DurableClient durable = context.getBean(DurableClient.class);

            WriteAMachine.Started started = WriteAMachine.startAndSignal(durable, Order.placed(CUSTOMER, "SKU-42"),
                    CUSTOMER, PAYMENT, "evt-1001");
            long id = started.id();
            assertThat(started.signal().delivery()).isEqualTo(SignalResult.Delivery.DELIVERED);
            await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("done"));

            WriteAMachine.Read read = WriteAMachine.read(durable, id);
            assertThat(read.instance().status()).isEqualTo(InstanceStatus.DONE);
            assertThat(read.instance().partitionKey()).isEqualTo("customer:7");
            assertThat(read.order()).isEqualTo(new Order(CUSTOMER, "SKU-42", "RES-" + id + "-SKU-42", PAYMENT));
            assertThat(read.shipment()).isEqualTo(new Shipment("TRK-" + id));
        });
    }

    /**
     * The README machine's {@code @Retry} and {@code @OnError}: a carrier that fails twice is retried (the delays of
     * {@code durable.retry.*}, which {@code @Retry} leaves to them, made short here), a sold-out item fails at once.
     */
    @Test
    void theReadmesOrderRetriesAFailingCarrierAndFailsASoldOutItemAtOnce() {
        AtomicInteger carrierCalls = new AtomicInteger();
        Warehouse warehouse = (instanceId, sku) -> {
            if (sku.startsWith("SOLD-OUT")) {
                throw new SoldOutException(sku);
            }
            return "RES-" + instanceId + "-" + sku;
        };
        Carrier carrier = (instanceId, order) -> {
            if (carrierCalls.incrementAndGet() <= 2) {
                throw new IllegalStateException("carrier down");
            }
            return "TRK-" + instanceId;
        };
        application(warehouse, carrier).withPropertyValues("durable.retry.delay=10ms", "durable.retry.jitter=0")
                .run(context -> {
                    DurableClient durable = context.getBean(DurableClient.class);
                    long shipped = WriteAMachine.startAndSignal(durable, Order.placed(CUSTOMER, "SKU-42"), CUSTOMER,
                            PAYMENT, "evt-1002").id();
                    long soldOut = durable.start(OrderWorkflow.class, Order.placed(CUSTOMER, "SOLD-OUT-1")).id();

                    await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(shipped).equals("done")
                            && TestDatabase.status(soldOut).equals("failed"));
                    DurableInstance done = durable.find(shipped).orElseThrow();
                    assertThat(done.attempt()).isEqualTo(2);
                    assertThat(done.lastError()).isEqualTo("java.lang.IllegalStateException: carrier down");
                    DurableInstance failed = durable.find(soldOut).orElseThrow();
                    assertThat(failed.attempt()).isZero();
                    assertThat(failed.lastError()).isEqualTo("sold out: SOLD-OUT-1");
                });
    }

    @Test
    void anInstanceIsReadAndWrittenWithTheApplicationsJsonMapper() {
        application.withPropertyValues("spring.jackson.property-naming-strategy=SNAKE_CASE").run(context -> {
            DurableClient durable = context.getBean(DurableClient.class);
            long id = durable.start(OrderWorkflow.class, Order.placed(CUSTOMER, "SKU-42")).id();
            await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));

            WriteAMachine.Read read = WriteAMachine.read(durable, id);

            assertThat(read.instance().stateJson()).contains("\"customer_id\": 7");
            assertThat(read.order()).as("read with the application's naming strategy")
                    .isEqualTo(new Order(CUSTOMER, "SKU-42", "RES-" + id + "-SKU-42", null));
            assertThat(read.shipment()).as("not done yet").isNull();
            String json = context.getBean(JsonMapper.class).writeValueAsString(read.instance());
            assertThat(json).contains("\"status\":\"awaiting_signal\"", "\"awaits\":\"payment\"")
                    .doesNotContain("codec");
        });
    }
}
