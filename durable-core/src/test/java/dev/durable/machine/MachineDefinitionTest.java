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

    // Upcasting (docs/DESIGN.md, "Upcasting"): bad declarations fail at startup, naming the machine and the version.

    @Test
    void twoUpcastersFromOneVersionAreRefused() {
        MachineDefinition.Builder<State> builder = checkout(3, "bean 'c'").upcaster(1, tree -> tree);

        assertThatThrownBy(() -> builder.upcaster(1, tree -> tree))
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessage("Machine checkout v3 (bean 'c') declares two upcasters from version 1; declare one per"
                        + " version");
    }

    @Test
    void anUpcasterFromTheCurrentVersionOrAHigherOneIsRefused() {
        assertThatThrownBy(() -> checkout(2, "bean 'c'").upcaster(2, tree -> tree))
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessage("Machine checkout v2 (bean 'c') declares an upcaster from version 2, but an upcaster"
                        + " brings a state of an older version to the next one: checkout v2 can declare upcasters from"
                        + " versions 1 to 1");
        assertThatThrownBy(() -> checkout(2, "bean 'c'").upcaster(5, tree -> tree))
                .hasMessageContaining("declares an upcaster from version 5");
        assertThatThrownBy(() -> checkout(1, "bean 'c'").upcaster(0, tree -> tree))
                .hasMessageContaining("checkout v1 can declare upcasters from versions below 1, so none");
    }

    @Test
    void upcastersWithAGapAreRefusedNamingTheMissingVersion() {
        assertThatThrownBy(() -> checkout(4, "bean 'c'").upcaster(1, tree -> tree).upcaster(3, tree -> tree).build())
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessage("Machine checkout v4 (bean 'c') declares upcasters from versions [1, 3] but none from"
                        + " version 2: a state of version 1 could not reach version 4; declare one upcaster for each"
                        + " version from 1 to 3");
    }

    @Test
    void aChainOfUpcastersReachesTheCurrentVersion() {
        MachineDefinition definition = checkout(4, "bean 'c'").upcaster(3, tree -> tree).upcaster(2, tree -> tree)
                .build();

        assertThat(definition.upcasters().keySet()).containsExactly(2, 3);
        assertThat(definition.oldestUpcastVersion()).isEqualTo(2);
        assertThat(checkout(4, "bean 'c'").build().oldestUpcastVersion()).isEqualTo(4);
    }

    @Test
    void aFormerStepNameThatIsACurrentStepIsRefused() {
        assertThatThrownBy(() -> checkout(1, "bean 'c'").step("ship", (state, ctx) -> Outcome.done())
                .initialStep("start").formerStepNames("ship", "start").build())
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessage("Machine checkout v1 (bean 'c') declares 'start' as a former name of step 'ship', but"
                        + " 'start' is the name of a current step: a row at it would run 'start', not 'ship'");
    }

    @Test
    void aFormerStepNameDeclaredTwiceIsRefused() {
        MachineDefinition.Builder<State> builder = checkout(1, "bean 'c'").step("ship", (state, ctx) -> Outcome.done())
                .initialStep("start").formerStepNames("ship", "send");

        assertThatThrownBy(() -> builder.formerStepNames("start", "send"))
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessage("Machine checkout v1 (bean 'c') declares the former step name 'send' twice: for step"
                        + " 'ship' and for step 'start'; a stored step name can mean one step only");
        assertThatThrownBy(() -> checkout(1, "bean 'c'").formerStepNames("start", "begin", "begin"))
                .hasMessageContaining("declares the former step name 'begin' twice");
        assertThatThrownBy(() -> checkout(1, "bean 'c'").formerStepNames("start", " "))
                .hasMessage("Machine checkout v1 (bean 'c') declares a blank former name for step 'start'");
    }

    @Test
    void formerNamesOfAStepTheMachineDoesNotDeclareAreRefused() {
        assertThatThrownBy(() -> checkout(1, "bean 'c'").formerStepNames("ship", "send").build())
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessage("Machine checkout v1 (bean 'c') declares former names [send] for step 'ship', which it"
                        + " does not declare (steps: [start])");
    }

    @Test
    void aStoredStepNameResolvesToItsCurrentName() {
        MachineDefinition definition = checkout(1, "bean 'c'").step("ship", (state, ctx) -> Outcome.done())
                .initialStep("start").formerStepNames("ship", "send", "dispatch").build();

        assertThat(definition.currentStepName("ship")).isEqualTo("ship");
        assertThat(definition.currentStepName("send")).isEqualTo("ship");
        assertThat(definition.currentStepName("dispatch")).isEqualTo("ship");
        assertThat(definition.currentStepName("pack")).isNull();
    }

    @Test
    void onlyTheHighestRegisteredVersionMayUpcast() {
        MachineDefinition v2 = checkout(2, "bean 'checkoutV2'").upcaster(1, tree -> tree).build();
        MachineDefinition v3 = checkout(3, "bean 'checkoutV3'").upcaster(1, tree -> tree).upcaster(2, tree -> tree)
                .build();

        assertThatThrownBy(() -> MachineRegistry.of(v2, v3))
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessage("Machine checkout v2 (bean 'checkoutV2') declares upcasters from versions [1], but"
                        + " checkout v3 (bean 'checkoutV3') is registered too, and only the highest registered version"
                        + " of a machine upcasts older rows: declare the whole chain on checkout v3");
    }

    @Test
    void theRegistryRunsTheVersionsItRegistersAndThoseItsHighestUpcasts() {
        MachineDefinition v2 = checkout(2, "bean 'checkoutV2'").build();
        MachineDefinition v4 = checkout(4, "bean 'checkoutV4'").upcaster(1, tree -> tree).upcaster(2, tree -> tree)
                .upcaster(3, tree -> tree).build();
        MachineRegistry registry = MachineRegistry.of(v2, v4);

        assertThat(registry.runnableVersions("checkout")).containsExactly(1, 2, 3, 4);
        assertThat(registry.runnableVersions("other")).isEmpty();
        // A registered version runs as it is; an unregistered one the highest upcasts runs on the highest.
        assertThat(registry.upcastTarget("checkout", 2)).isEmpty();
        assertThat(registry.upcastTarget("checkout", 1)).contains(v4);
        assertThat(registry.upcastTarget("checkout", 3)).contains(v4);
        assertThat(registry.upcastTarget("checkout", 5)).isEmpty();
        assertThat(MachineRegistry.of(checkout(2, "b").build()).runnableVersions("checkout")).containsExactly(2);
    }

    // Declared signals (docs/DESIGN.md, "Declared signals"): what a machine accepts, checked as it is built.

    record Payment(String id, long cents) {
    }

    @Test
    void declaredSignalsKeepTheirOrderAndTypes() {
        MachineDefinition definition = checkout(2, "bean 'c'").signal("payment", Payment.class)
                .signal("cancel-request").signal("lines", new ParameterizedTypeOf(List.class, State.class)).build();

        assertThat(definition.declaresSignals()).isTrue();
        assertThat(definition.signals().keySet()).containsExactly("payment", "cancel-request", "lines");
        assertThat(definition.signalType("payment")).isEqualTo(Payment.class);
        assertThat(definition.signalType("cancel-request")).isEqualTo(MachineDefinition.NO_PAYLOAD);
        assertThat(definition.signalType("lines").getTypeName()).isEqualTo("java.util.List<" + State.class.getName()
                + ">");
        assertThat(definition.signalType("refund")).isNull();
        assertThat(checkout(2, "bean 'c'").signal("ping", void.class).build().signalType("ping"))
                .as("void is no payload too").isEqualTo(Void.class);
    }

    @Test
    void aMachineThatDeclaresNoSignalAcceptsAnyUnlessItSaysItAcceptsNone() {
        MachineDefinition open = checkout(1, "bean 'c'").build();
        MachineDefinition closed = checkout(1, "bean 'c'").acceptsNoSignals().build();

        assertThat(open.declaresSignals()).isFalse();
        assertThat(open.signals()).isEmpty();
        assertThat(closed.declaresSignals()).isTrue();
        assertThat(closed.signals()).isEmpty();
        assertThatThrownBy(() -> checkout(1, "bean 'c'").acceptsNoSignals().signal("payment", Payment.class).build())
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessage("Machine checkout v1 (bean 'c') declares that it accepts no signals, and declares"
                        + " signals [payment]; declare either");
    }

    @Test
    void aSignalDeclaredTwiceIsRefusedNamingTheMachineAndBothTypes() {
        MachineDefinition.Builder<State> builder = checkout(2, "bean 'c'").signal("payment", Payment.class);

        assertThatThrownBy(() -> builder.signal("payment", String.class))
                .isInstanceOf(MachineDefinitionException.class)
                .hasMessage("Machine checkout v2 (bean 'c') declares signal 'payment' twice: with payload "
                        + Payment.class.getName() + " and with payload java.lang.String; declare each signal once");
    }

    @Test
    void aBlankOrUntrimmedSignalNameIsRefused() {
        for (String name : List.of("", "  ", " payment", "payment\n", "pay\0ment")) {
            assertThatThrownBy(() -> checkout(1, "bean 'c'").signal(name, Payment.class))
                    .as("signal name '%s'", name)
                    .isInstanceOf(MachineDefinitionException.class)
                    .hasMessageStartingWith("Machine checkout v1 (bean 'c') declares signal '")
                    .hasMessageEndingWith("': a signal name must be non-blank, without surrounding whitespace or NUL"
                            + " characters");
        }
        assertThatThrownBy(() -> checkout(1, "bean 'c'").signal("payment", null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("MachineDefinition.NO_PAYLOAD");
    }

    /** {@code List<State>}, as a generic declaration names it. */
    private record ParameterizedTypeOf(Class<?> raw, java.lang.reflect.Type argument)
            implements java.lang.reflect.ParameterizedType {

        @Override
        public java.lang.reflect.Type[] getActualTypeArguments() {
            return new java.lang.reflect.Type[] {argument};
        }

        @Override
        public java.lang.reflect.Type getRawType() {
            return raw;
        }

        @Override
        public java.lang.reflect.@org.jspecify.annotations.Nullable Type getOwnerType() {
            return null;
        }

        @Override
        public String getTypeName() {
            return raw.getName() + "<" + argument.getTypeName() + ">";
        }
    }
}
