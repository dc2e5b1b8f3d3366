package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.json.JacksonJsonCodec;
import dev.durable.json.JsonCodecException;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

/** Reading instances back: typed state and result through the engine's codec, the stored JSON, the status. */
class InstanceReadTest {

    record Order(long customerId, List<String> items) {
    }

    record Receipt(long customerId, int itemCount) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    /** Receipts once it is paid; a state of another customer is never stored. */
    private final MachineDefinition checkout = MachineDefinition.builder("checkout", 1, Order.class)
            .step("pay", (order, ctx) -> ctx.awaited("paid").isPresent()
                    ? Outcome.done(new Receipt(order.customerId(), order.items().size()))
                    : Outcome.await("paid", order))
            .build();

    private final MachineDefinition counter = MachineDefinition.builder("counter", 1, Integer.class)
            .step("count", (n, ctx) -> Outcome.done(n + 1))
            .build();

    @Test
    void stateAndResultAreReadAsTheTypesAskedFor() {
        DurableClient client = engines.start(checkout, counter).client();
        long id = client.start("checkout", new Order(7, List.of("book", "pen"))).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));

        DurableInstance parked = client.find(id).orElseThrow();
        assertThat(parked.status()).isEqualTo(InstanceStatus.AWAITING_SIGNAL);
        assertThat(parked.state(Order.class)).isEqualTo(new Order(7, List.of("book", "pen")));
        assertThat(parked.stateJson()).contains("\"items\"");
        assertThat(parked.result(Receipt.class)).as("not done yet").isNull();
        assertThat(parked.resultJson()).isNull();

        client.signal(id, "paid", null).orThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));

        DurableInstance done = client.list(InstanceQuery.all().machine("checkout")).get(0);
        assertThat(done.result(Receipt.class)).isEqualTo(new Receipt(7, 2));
        assertThat(done.state(Order.class)).isEqualTo(new Order(7, List.of("book", "pen")));
        assertThat(done.state(new TypeReference<Map<String, Object>>() { }.getType()))
                .isEqualTo(Map.of("customerId", 7, "items", List.of("book", "pen")));

        long counted = client.start("counter", 41).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(counted).equals("done"));
        DurableInstance count = client.find(counted).orElseThrow();
        assertThat(count.result(Integer.class)).isEqualTo(42);
        assertThat(count.result(int.class)).as("a primitive type reads as its wrapper").isEqualTo(42);
        assertThat(count.result(long.class)).isEqualTo(42L);
    }

    @Test
    void statesAreReadWithTheEnginesCodec() {
        JsonMapper snakeCase = JsonMapper.builder()
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .build();
        try (DurableEngine engine = DurableEngine.builder(TestDatabase.dataSource(), MachineRegistry.of(checkout))
                .settings(EngineFixture.fastSettings("snake-node", checkout).build())
                .jsonCodec(new JacksonJsonCodec(snakeCase))
                .build()) {
            long id = engine.client().start("checkout", new Order(7, List.of("book"))).id();

            DurableInstance instance = engine.client().find(id).orElseThrow();

            assertThat(instance.stateJson()).contains("\"customer_id\": 7");
            assertThat(instance.state(Order.class)).isEqualTo(new Order(7, List.of("book")));
        }
    }

    @Test
    void aStateThatCannotBeReadAsTheAskedTypeFailsNamingTheInstanceAndTheType() {
        DurableClient client = engines.clientOnly(checkout);
        long id = client.start("checkout", new Order(7, List.of("book"))).id();
        DurableInstance instance = client.find(id).orElseThrow();

        assertThatThrownBy(() -> instance.state(Integer.class))
                .isInstanceOf(JsonCodecException.class)
                .hasMessageStartingWith("The state of instance " + id + " (checkout v1) cannot be read as"
                        + " java.lang.Integer: ");
        assertThatThrownBy(() -> instance.state(new TypeReference<List<Receipt>>() { }.getType()))
                .isInstanceOf(JsonCodecException.class)
                .hasMessageStartingWith("The state of instance " + id + " (checkout v1) cannot be read as"
                        + " java.util.List<dev.durable.runtime.InstanceReadTest$Receipt>: ");
    }

    @Test
    void anInstanceWrittenAsJsonSpellsItsStatusByLabelAndLeavesItsCodecOut() {
        DurableClient client = engines.clientOnly(checkout);
        long id = client.start("checkout", new Order(7, List.of("secret-item"))).id();
        DurableInstance instance = client.find(id).orElseThrow();

        String json = JsonMapper.builder().build().writeValueAsString(instance);

        assertThat(json).contains("\"id\":" + id, "\"status\":\"runnable\"", "\"machine\":\"checkout\"",
                "\"stateJson\":").doesNotContain("codec");
        assertThat(instance.toString()).contains("id=" + id, "status=runnable").doesNotContain("secret-item");
    }
}
