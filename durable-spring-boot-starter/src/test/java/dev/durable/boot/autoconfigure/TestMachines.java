package dev.durable.boot.autoconfigure;

import dev.durable.Inbox;
import dev.durable.MissPolicy;
import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.DurableSchedule;
import dev.durable.boot.DurableSignal;
import dev.durable.boot.DurableSignals;
import dev.durable.boot.OnError;
import dev.durable.boot.Step;
import dev.durable.boot.Upcast;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Machines for the auto-configuration tests, valid and invalid. */
final class TestMachines {

    private TestMachines() {
    }

    record Name(String value) {
    }

    @DurableMachine(name = "greeter")
    static class Greeter {
        @Step(value = "greet", initial = true)
        Outcome greet(Name name, StepContext ctx) {
            return Outcome.done(Map.of("greeting", "hello " + name.value()));
        }
    }

    /** Proxied by Spring (CGLIB) for its @Transactional step. */
    @DurableMachine(name = "transactional")
    static class TransactionalMachine {
        @Step("greet")
        @org.springframework.transaction.annotation.Transactional
        Outcome greet(Name name) {
            boolean inTransaction = org.springframework.transaction.support.TransactionSynchronizationManager
                    .isActualTransactionActive();
            return Outcome.done(Map.of("inTransaction", inTransaction));
        }
    }

    @DurableMachine(name = "greeter")
    static class OtherGreeter {
        @Step("greet")
        Outcome greet(Name name) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "greeter", version = 2)
    static class GreeterV2 {
        @Step("greet")
        Outcome greet(Name name) {
            return Outcome.done("v2");
        }
    }

    /** Two schedules, one read from a property. */
    @DurableMachine(name = "reporter")
    @DurableSchedule(name = "nightly", cron = "${test.nightly.cron:0 0 2 * * *}", zone = "Europe/Berlin")
    @DurableSchedule(name = "weekly", cron = "@weekly", missPolicy = MissPolicy.SKIP)
    static class Reporter {
        @Step("report")
        Outcome report(Name name) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "bad-cron")
    @DurableSchedule(name = "nightly", cron = "every night at two")
    static class BadCron {
        @Step("report")
        Outcome report(Name name) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "bad-zone")
    @DurableSchedule(name = "nightly", cron = "@daily", zone = "Europe/Atlantis")
    static class BadZone {
        @Step("report")
        Outcome report(Name name) {
            return Outcome.done();
        }
    }

    /** Declares its signals, one name read from a property. */
    @DurableMachine(name = "signalled")
    @DurableSignal(name = "named", payload = Name.class)
    @DurableSignal(name = "${test.signal.name:poke}")
    static class Signalled {
        @Step("wait")
        Outcome waitForIt(Name name, StepContext ctx) {
            return ctx.awaited("named", Name.class).map(Outcome::done).orElseGet(() -> Outcome.await("named", name));
        }
    }

    /** Accepts no signal at all. */
    @DurableMachine(name = "deaf")
    @DurableSignals({})
    static class Deaf {
        @Step("greet")
        Outcome greet(Name name) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "doubled-signal")
    @DurableSignal(name = "payment", payload = Name.class)
    @DurableSignal(name = "payment", payload = String.class)
    static class DoubledSignal {
        @Step("greet")
        Outcome greet(Name name) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "blank-signal")
    @DurableSignal(name = " ")
    static class BlankSignal {
        @Step("greet")
        Outcome greet(Name name) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "unreadable-payload")
    @DurableSignal(name = "drawn", payload = Shape.class)
    static class UnreadablePayload {
        @Step("greet")
        Outcome greet(Name name) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "void-step")
    static class VoidStep {
        @Step("greet")
        void greet(Name name) {
        }
    }

    /** A state type Jackson cannot construct: an interface with nothing naming its implementations. */
    interface Shape {
    }

    @DurableMachine(name = "shapes")
    static class UnreadableState {
        @Step("draw")
        Outcome draw(Shape shape) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "two-states")
    static class TwoStates {
        @Step("greet")
        Outcome greet(Name name, String other) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "disagreeing-states")
    static class DisagreeingStates {
        @Step(value = "first", initial = true)
        Outcome first(Name name) {
            return Outcome.next("second", name);
        }

        @Step("second")
        Outcome second(String name) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "twice")
    static class StepTwice {
        @Step(value = "greet", initial = true)
        Outcome greet(Name name) {
            return Outcome.done();
        }

        @Step("greet")
        Outcome greetAgain(Name name) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "no-initial")
    static class NoInitial {
        @Step("a")
        Outcome a(Name name) {
            return Outcome.next("b", name);
        }

        @Step("b")
        Outcome b(Name name) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "two-initial")
    static class TwoInitial {
        @Step(value = "a", initial = true)
        Outcome a(Name name) {
            return Outcome.next("b", name);
        }

        @Step(value = "b", initial = true)
        Outcome b(Name name) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "mailer", queue = "mail")
    static class Mailer {
        @Step("send")
        Outcome send(Name name, Inbox inbox) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "private-step")
    static class PrivateStep {
        @Step("greet")
        @SuppressWarnings("unused")
        private Outcome greet(Name name) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "error-in-step")
    static class ExceptionInStep {
        @Step("greet")
        Outcome greet(Name name, Exception error) {
            return Outcome.done();
        }
    }

    /** The state, and an int nothing can pass. */
    @DurableMachine(name = "extra-parameter")
    static class ExtraParameter {
        @Step("one")
        Outcome one(String s, int extra) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "two-handlers")
    static class TwoHandlersForOneType {
        @Step("greet")
        Outcome greet(Name name) {
            return Outcome.done();
        }

        @OnError
        Outcome first(IllegalStateException e) {
            return Outcome.stop("first");
        }

        @OnError
        Outcome second(IllegalStateException e, Name name) {
            return Outcome.stop("second");
        }
    }

    // Upcasting (docs/DESIGN.md, "Upcasting").

    /** Version 3 of the greeter: its step was 'hello', its state's name was 'who' in version 1. */
    @DurableMachine(name = "greeter", version = 3)
    static class UpcastingGreeter {
        @Step(value = "greet", formerNames = {"hello", "${test.greeter.former:salute}"})
        Outcome greet(Name name, StepContext ctx) {
            return Outcome.done("v" + ctx.version() + " " + ctx.step() + " " + name.value());
        }

        @Upcast(fromVersion = 1)
        ObjectNode fromWho(ObjectNode stored) {
            stored.set("value", stored.remove("who"));
            return stored;
        }

        @Upcast(fromVersion = 2)
        JsonNode unchanged(JsonNode stored) {
            return stored;
        }
    }

    /** Version 2 of the greeter, still declaring its upcaster from version 1. */
    @DurableMachine(name = "greeter", version = 2)
    static class UpcastingGreeterV2 {
        @Step("greet")
        Outcome greet(Name name) {
            return Outcome.done("v2");
        }

        @Upcast(fromVersion = 1)
        ObjectNode fromWho(ObjectNode stored) {
            return stored;
        }
    }

    @DurableMachine(name = "two-upcasters", version = 3)
    static class TwoUpcastersForOneVersion {
        @Step("greet")
        Outcome greet(Name name) {
            return Outcome.done();
        }

        @Upcast(fromVersion = 2)
        ObjectNode first(ObjectNode stored) {
            return stored;
        }

        @Upcast(fromVersion = 2)
        ObjectNode second(ObjectNode stored) {
            return stored;
        }
    }

    @DurableMachine(name = "upcast-from-current", version = 2)
    static class UpcasterFromTheCurrentVersion {
        @Step("greet")
        Outcome greet(Name name) {
            return Outcome.done();
        }

        @Upcast(fromVersion = 2)
        ObjectNode fromTwo(ObjectNode stored) {
            return stored;
        }
    }

    @DurableMachine(name = "upcast-gap", version = 4)
    static class UpcastersWithAGap {
        @Step("greet")
        Outcome greet(Name name) {
            return Outcome.done();
        }

        @Upcast(fromVersion = 1)
        ObjectNode fromOne(ObjectNode stored) {
            return stored;
        }

        @Upcast(fromVersion = 3)
        ObjectNode fromThree(ObjectNode stored) {
            return stored;
        }
    }

    @DurableMachine(name = "upcast-signature", version = 2)
    static class UpcasterTakingAState {
        @Step("greet")
        Outcome greet(Name name) {
            return Outcome.done();
        }

        @Upcast(fromVersion = 1)
        ObjectNode fromOne(Name stored) {
            return null;
        }
    }

    @DurableMachine(name = "former-is-current")
    static class FormerNameOfACurrentStep {
        @Step(value = "greet", initial = true, formerNames = "wave")
        Outcome greet(Name name) {
            return Outcome.next("wave", name);
        }

        @Step("wave")
        Outcome wave(Name name) {
            return Outcome.done();
        }
    }

    @DurableMachine(name = "former-twice")
    static class FormerNameTwice {
        @Step(value = "greet", initial = true, formerNames = "hello")
        Outcome greet(Name name) {
            return Outcome.next("wave", name);
        }

        @Step(value = "wave", formerNames = "hello")
        Outcome wave(Name name) {
            return Outcome.done();
        }
    }
}
