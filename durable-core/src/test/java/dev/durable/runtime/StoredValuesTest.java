package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.StartOptions;
import dev.durable.StartRequest;
import dev.durable.UnstorableValueException;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineDefinitionException;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A value durable could store but not read back faithfully is refused at the call, with nothing stored: a class
 * Jackson sees no properties of (it would be stored as {@code {}}), a state that would not read back into its
 * machine's state type, a NUL character (PostgreSQL cannot hold one). A state type that cannot be read at all
 * fails the engine's start.
 */
class StoredValuesTest {

    /** Private fields and no getters: Jackson sees nothing. */
    public static final class Hidden {
        private final String customer = "c-7";
        private final int cents = 1200;
    }

    public record Order(String customer, Hidden payment) {
    }

    public interface Shape {
    }

    public record Circle(int radius) implements Shape {
    }

    /** Written as {"shape":{"radius":1}}, but nothing tells Jackson which Shape to read back. */
    public record Drawing(Shape shape) {
    }

    public record Note(String text) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private static MachineDefinition holding(String name, Class<?> stateType) {
        return MachineDefinition.builder(name, 1, stateType).step("hold", (state, ctx) -> Outcome.await("never", state))
                .build();
    }

    @Test
    void aStateJacksonSeesNoPropertiesOfIsRefusedAtTheCall() {
        DurableClient client = engines.clientOnly(holding("hidden", Hidden.class));

        assertThatThrownBy(() -> client.start("hidden", new Hidden()))
                .isInstanceOf(UnstorableValueException.class)
                .hasMessageStartingWith("The state for machine hidden v1 cannot be serialized; nothing was started:")
                .hasMessageContaining(Hidden.class.getName())
                .hasMessageContaining("Jackson sees no properties of it");
        assertThat(rows()).isZero();
    }

    @Test
    void aNestedObjectJacksonSeesNoPropertiesOfIsRefusedNamingWhereItIs() {
        DurableClient client = engines.clientOnly(holding("orders", Order.class));

        assertThatThrownBy(() -> client.start("orders", new Order("c-7", new Hidden())))
                .isInstanceOf(UnstorableValueException.class)
                .hasMessageContaining("Order[\"payment\"]");
        assertThat(rows()).isZero();
    }

    @Test
    void aStateThatWouldNotReadBackIsRefusedAtTheCallAndInABatchNothingIsStarted() {
        DurableClient client = engines.clientOnly(holding("drawings", Drawing.class));

        assertThatThrownBy(() -> client.start("drawings", new Drawing(new Circle(1))))
                .isInstanceOf(UnstorableValueException.class)
                .hasMessageStartingWith("The state for machine drawings v1 cannot be stored; nothing was started:"
                        + " its JSON would not read back as " + Drawing.class.getName());
        assertThatThrownBy(() -> client.startAll("drawings", List.of(StartRequest.of(new Drawing(null)),
                StartRequest.of(new Drawing(new Circle(2)))))).isInstanceOf(UnstorableValueException.class);
        assertThat(rows()).isZero();
        assertThat(client.start("drawings", new Drawing(null)).created()).isTrue();
    }

    @Test
    void anOutcomeWhoseStateWouldNotReadBackTakesTheErrorPath() {
        MachineDefinition machine = MachineDefinition.builder("sketch", 1, Drawing.class)
                .initialStep("draw")
                .step("draw", (state, ctx) -> Outcome.next("show", new Drawing(new Circle(3))))
                .step("show", (state, ctx) -> Outcome.done())
                .build();
        long id = engines.start(machine).client().start("sketch", new Drawing(null)).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat((String) TestDatabase.row(id).get("last_error"))
                .startsWith("dev.durable.machine.StepFailureException$InvalidOutcome: Step 'draw' of sketch v1"
                        + " (instance " + id + ") returned a state that cannot be stored")
                .contains("would not read back as " + Drawing.class.getName());
        assertThat(TestDatabase.row(id)).containsEntry("state", "{\"shape\": null}");
    }

    @Test
    void aNulCharacterInAStateIsRefusedNamingTheField() {
        DurableClient client = engines.clientOnly(holding("notes", Note.class));

        assertThatThrownBy(() -> client.start("notes", new Note("a\u0000b")))
                .isInstanceOf(UnstorableValueException.class)
                .hasMessage("The state for machine notes v1 cannot be stored; nothing was started: its field $.text"
                        + " holds a NUL character (\\u0000), which PostgreSQL's jsonb cannot store");
        assertThatThrownBy(() -> client.start("notes", new Note("ok"),
                StartOptions.defaults().partitionKey("customer\u0000")))
                .isInstanceOf(UnstorableValueException.class)
                .hasMessageStartingWith("The partition key cannot be stored; nothing was started: it holds a NUL");
        assertThat(rows()).isZero();
    }

    @Test
    void aNulCharacterInASignalPayloadIsRefusedNamingTheFieldAndNothingIsSent() {
        DurableClient client = engines.clientOnly(holding("notes", Note.class));
        long id = client.start("notes", new Note("ok")).id();

        assertThatThrownBy(() -> client.signal(id, "reply", List.of(new Note("fine"), new Note("bad\u0000")),
                "evt-1"))
                .isInstanceOf(UnstorableValueException.class)
                .hasMessage("The payload of signal 'reply' to instance " + id + " cannot be stored; nothing was sent:"
                        + " its field $[1].text holds a NUL character (\\u0000), which PostgreSQL's jsonb cannot store");
        assertThat(TestDatabase.signals(id)).isEmpty();
        // The same dedup key then still delivers: nothing of the refused signal was kept.
        assertThat(client.signal(id, "reply", new Note("fine"), "evt-1").isDelivered()).isTrue();
    }

    @Test
    void anEngineWhoseMachineStoresATypeJacksonCannotReadFailsToStartNamingTheMachineAndType() {
        MachineDefinition machine = MachineDefinition.builder("shapes", 1, Shape.class)
                .step("hold", (state, ctx) -> Outcome.done())
                .build();

        assertThatThrownBy(() -> engines.build("test-node", settings -> settings, machine))
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessageStartingWith("Machine shapes v1 (" + machine.source() + ") stores states of type "
                        + Shape.class.getName() + ", which its JSON codec cannot read: Jackson cannot read");
    }

    private static long rows() {
        return TestDatabase.jdbc().queryForObject("SELECT count(*) FROM durable_it.durable_instance", Long.class);
    }
}
