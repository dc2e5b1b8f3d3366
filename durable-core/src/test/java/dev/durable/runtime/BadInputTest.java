package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.SignalResult;
import dev.durable.StartRequest;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.RetryPolicy;
import dev.durable.machine.MachineRegistry;
import dev.durable.machine.StepFailureException;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad input (docs/DESIGN.md, "Stored values" and "Outcomes"): each row gets a clear error naming the problem, and
 * nothing is lost or half-stored. Rows about broken stored rows and versions are also covered in
 * {@link VersioningTest}; the database being down is covered by the degraded-mode tests.
 */
class BadInputTest {

    record Order(int id) {
    }

    /** Serializing it calls a getter that throws. */
    public static final class Unserializable {
        public String getValue() {
            throw new IllegalStateException("no JSON for me");
        }
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private static MachineDefinition orders() {
        return MachineDefinition.builder("orders", 1, Order.class)
                .step("place", (state, ctx) -> Outcome.await("never", state))
                .build();
    }

    private static MachineDefinition anything() {
        return MachineDefinition.builder("anything", 1, Object.class)
                .step("hold", (state, ctx) -> Outcome.await("never", state))
                .build();
    }

    @Test
    void startingAnUnregisteredMachineNamesItAndTheRegisteredMachinesAndInsertsNothing() {
        DurableClient client = engines.clientOnly(orders());

        assertThatThrownBy(() -> client.start("invoices", new Order(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("No machine named 'invoices' is registered; registered machines: orders [1]");
        assertThatThrownBy(() -> client.start(Integer.class, new Order(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Class java.lang.Integer is not a registered machine; registered machines: orders [1]");
        assertThat(instanceRows()).isZero();
    }

    @Test
    void aStateJacksonCannotSerializeFailsTheCallAndInsertsNothing() {
        DurableClient client = engines.clientOnly(anything());

        assertThatThrownBy(() -> client.start("anything", new Unserializable()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("The state for machine anything v1 cannot be serialized; nothing was started:")
                .hasMessageContaining("no JSON for me");
        // In a batch, one bad state stops the whole batch before any SQL.
        assertThatThrownBy(() -> client.startAll("anything", List.of(StartRequest.of("fine"),
                StartRequest.of(new Unserializable())))).isInstanceOf(IllegalArgumentException.class);
        assertThat(instanceRows()).isZero();
    }

    @Test
    void aStateOfTheWrongTypeFailsTheCallAndInsertsNothing() {
        DurableClient client = engines.clientOnly(orders());

        assertThatThrownBy(() -> client.start("orders", "not an order"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Machine orders v1 stores states of type " + Order.class.getName()
                        + ", not java.lang.String");
        assertThat(instanceRows()).isZero();
    }

    @Test
    void aSignalToAMissingOrTerminalInstanceIsRefusedAndAnUnserializablePayloadFailsTheCall() {
        DurableClient client = engines.clientOnly(orders());
        long id = client.start("orders", new Order(1)).id();
        TestDatabase.jdbc().update("UPDATE durable_it.durable_instance SET status = 'failed' WHERE id = ?", id);

        assertThat(client.signal(id + 1, "x", null).delivery())
                .isEqualTo(SignalResult.Delivery.REFUSED_UNKNOWN_INSTANCE);
        assertThat(client.signal(id, "x", null).delivery())
                .isEqualTo(SignalResult.Delivery.REFUSED_TERMINAL_INSTANCE);
        assertThatThrownBy(() -> client.signal(id, "x", new Unserializable()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("The payload of signal 'x' to instance " + id + " cannot be serialized;"
                        + " nothing was sent:");
        assertThatThrownBy(() -> client.signal(id, " ", null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("A signal needs a non-blank name");
        assertThat(TestDatabase.jdbc().queryForObject("SELECT count(*) FROM durable_it.durable_signal", Long.class))
                .isZero();
    }

    @Test
    void aStepReturningNullTakesTheErrorPath() {
        AtomicReference<Exception> handed = new AtomicReference<>();
        MachineDefinition machine = MachineDefinition.builder("nulls", 1, Order.class)
                .step("oops", (state, ctx) -> null)
                .errorHandler((error, state, ctx) -> {
                    handed.set(error);
                    return Outcome.stop("handled: " + error.getMessage());
                })
                .build();
        long id = engines.start(machine).client().start("nulls", new Order(1)).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat(handed.get()).isInstanceOf(StepFailureException.InvalidOutcome.class);
        assertThat(TestDatabase.row(id)).containsEntry("last_error", "handled: Step 'oops' of nulls v1 (instance "
                + id + ") returned null; it must return an Outcome");
    }

    @Test
    void aStepReturningAnInvalidOutcomeTakesTheErrorPath() {
        MachineDefinition machine = MachineDefinition.builder("invalid", 1, Order.class)
                .initialStep("first")
                .step("first", (state, ctx) -> state.id() == 1 ? Outcome.next("nowhere", state)
                        : Outcome.next("second", "a string, not an Order"))
                .step("second", (state, ctx) -> Outcome.done())
                .build();
        DurableClient client = engines.start(machine).client();
        long unknownStep = client.start("invalid", new Order(1)).id();
        long wrongState = client.start("invalid", new Order(2)).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(unknownStep).equals("failed")
                && TestDatabase.status(wrongState).equals("failed"));
        assertThat(TestDatabase.row(unknownStep).get("last_error")).isEqualTo(
                StepFailureException.InvalidOutcome.class.getName() + ": Step 'first' of invalid v1 (instance "
                        + unknownStep + ") returned next('nowhere'), a step invalid v1 does not declare (steps: "
                        + "[first, second])");
        assertThat(TestDatabase.row(wrongState).get("last_error")).isEqualTo(
                StepFailureException.InvalidOutcome.class.getName() + ": Step 'first' of invalid v1 (instance "
                        + wrongState + ") returned a state of type java.lang.String, but invalid v1 stores "
                        + Order.class.getName());
        assertThat(TestDatabase.row(wrongState)).containsEntry("state", "{\"id\": 2}");
    }

    /** Without retries, to see the path end (RetryByPolicyTest retries it). */
    @Test
    void aStepThatThrowsTakesTheErrorPath() {
        MachineDefinition machine = MachineDefinition.builder("thrower", 1, Order.class)
                .step("boom", (state, ctx) -> {
                    throw new java.io.UncheckedIOException(new java.io.IOException("disk full"));
                })
                .retryPolicy(RetryPolicy.none())
                .build();
        long id = engines.start(machine).client().start("thrower", new Order(1)).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat(TestDatabase.row(id)).containsEntry("last_error",
                "java.io.UncheckedIOException: java.io.IOException: disk full");
    }

    @Test
    void invalidSettingsAreRefusedNamingTheSetting() {
        assertThatThrownBy(() -> EngineSettings.builder().queue("mail", new QueueSettings(-1, 10)).build())
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("Invalid durable setting 'queues.mail.concurrency': must not be negative, was -1")
                .extracting(e -> ((InvalidSettingException) e).setting()).isEqualTo("queues.mail.concurrency");
        assertThatThrownBy(() -> EngineSettings.builder().leaseTtl(Duration.ofSeconds(30))
                .heartbeatInterval(Duration.ofSeconds(11)).build())
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("Invalid durable setting 'heartbeatInterval': PT11S is more than a third of leaseTtl "
                        + "(PT30S): a lease must survive two missed heartbeats (heartbeatInterval x 3 <= leaseTtl)");
        assertThatThrownBy(() -> EngineSettings.builder().pollInterval(Duration.ZERO).build())
                .hasMessage("Invalid durable setting 'pollInterval': must be a positive duration, was PT0S");
        assertThatThrownBy(() -> EngineSettings.builder().idlePollInterval(Duration.ofSeconds(5))
                .scheduleMisfireThreshold(Duration.ofSeconds(5)).build())
                .hasMessageStartingWith("Invalid durable setting 'scheduleMisfireThreshold': PT5S is not longer than"
                        + " idlePollInterval (PT5S)");
        assertThatThrownBy(() -> EngineSettings.builder().pollInterval(Duration.ofSeconds(2))
                .idlePollInterval(Duration.ofSeconds(1)).build())
                .hasMessageStartingWith("Invalid durable setting 'idlePollInterval': PT1S is shorter than"
                        + " pollInterval (PT2S)");
        assertThatThrownBy(() -> EngineSettings.builder().schema("Robert'); DROP TABLE x;--").build())
                .isInstanceOf(InvalidSettingException.class)
                .extracting(e -> ((InvalidSettingException) e).setting()).isEqualTo("schema");
    }

    @Test
    void aMachineOnAQueueTheNodeDoesNotConfigureIsRefusedNamingTheQueueSetting() {
        MachineDefinition mail = MachineDefinition.builder("mailer", 1, Order.class).queue("mail")
                .step("send", (state, ctx) -> Outcome.done())
                .source("bean 'mailer' (com.example.Mailer)")
                .build();

        assertThatThrownBy(() -> DurableEngine.builder(TestDatabase.dataSource(), MachineRegistry.of(mail))
                .settings(EngineSettings.defaults()).build())
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("Invalid durable setting 'queues.mail': machine mailer v1 (bean 'mailer' "
                        + "(com.example.Mailer)) runs on queue 'mail', which is not configured; configured queues: "
                        + "[default]");
    }

    private static long instanceRows() {
        return TestDatabase.jdbc().queryForObject("SELECT count(*) FROM durable_it.durable_instance", Long.class);
    }
}
