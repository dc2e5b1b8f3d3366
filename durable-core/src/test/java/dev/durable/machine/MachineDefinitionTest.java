package dev.durable.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durable.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Definitions and the registry refuse what cannot run, naming every place involved (docs/DESIGN.md, "Versions"). */
class MachineDefinitionTest {

    record State(int n) {
    }

    private static MachineDefinition.Builder<State> checkout(int version, String source) {
        return MachineDefinition.builder("checkout", version, State.class).source(source)
                .step("start", (state, ctx) -> Outcome.done());
    }

    @Test
    void aDuplicateNameAndVersionNamesBothDefinitions() {
        MachineDefinition first = checkout(1, "bean 'checkoutA' (com.shop.CheckoutA)").build();
        MachineDefinition second = checkout(1, "bean 'checkoutB' (com.shop.CheckoutB)").build();

        assertThatThrownBy(() -> MachineRegistry.of(first, second))
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessage("Machine checkout v1 is defined twice: by bean 'checkoutA' (com.shop.CheckoutA) and by "
                        + "bean 'checkoutB' (com.shop.CheckoutB)");
    }

    @Test
    void aStepDeclaredTwiceNamesBothDeclarations() {
        MachineDefinition.Builder<State> builder = MachineDefinition.builder("checkout", 1, State.class);
        builder.step(new StepDefinition("ship", (state, ctx) -> Outcome.done(), null, "method Checkout.ship()"));

        assertThatThrownBy(() -> builder.step(new StepDefinition("ship", (state, ctx) -> Outcome.done(), null,
                "method Checkout.shipAgain()")))
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessage("Step 'ship' of machine checkout v1 is declared twice: by method Checkout.ship() and by "
                        + "method Checkout.shipAgain()");
    }

    @Test
    void anUnknownOrMissingInitialStepIsRefused() {
        assertThatThrownBy(() -> checkout(1, "bean 'c'").initialStep("begin").build())
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessage("Machine checkout v1 (bean 'c') names initial step 'begin', which it does not declare "
                        + "(steps: [start])");
        assertThatThrownBy(() -> checkout(1, "bean 'c'").step("ship", (state, ctx) -> Outcome.done()).build())
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessage("Machine checkout v1 (bean 'c') declares several steps [start, ship] but no initial step");
        assertThat(checkout(1, "bean 'c'").build().initialStep()).isEqualTo("start");
    }

    @Test
    void versionsStartAtOneAndNamesAreTrimmed() {
        assertThatThrownBy(() -> checkout(0, "bean 'c'").build()).hasMessage(
                "Machine checkout (bean 'c') has version 0; versions start at 1");
        assertThatThrownBy(() -> MachineDefinition.builder(" checkout", 1, State.class)
                .step("s", (state, ctx) -> Outcome.done()).build())
                .hasMessageContaining("must be non-blank without surrounding whitespace");
    }

    @Test
    void theRegistryResolvesTheHighestVersionByNameOrClass() {
        MachineDefinition v1 = checkout(1, "v1").machineClass(String.class).build();
        MachineDefinition v2 = checkout(2, "v2").machineClass(String.class).build();
        MachineRegistry registry = MachineRegistry.of(List.of(v2, v1));

        assertThat(registry.resolve("checkout", null)).isSameAs(v2);
        assertThat(registry.resolve(String.class, 1)).isSameAs(v1);
        assertThat(registry.all()).containsExactly(v1, v2);
        assertThat(registry.queues()).containsExactly("default");
    }

    @Test
    void aStateMustBeOfTheMachinesStateType() {
        MachineDefinition machine = checkout(1, "c").build();

        assertThat(machine.acceptsState(new State(1))).isTrue();
        assertThat(machine.acceptsState(null)).isTrue();
        assertThat(machine.acceptsState("text")).isFalse();
    }
}
