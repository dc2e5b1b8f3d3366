package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.RetryPolicy;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.LogCapture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An instance that ends {@code failed} is said once in the log, at WARN, with what an operator needs to find it
 * (instance id, machine, version, step, attempt, the error) and never its state, which may hold personal data.
 */
class FailureLogTest {

    record Secret(String cardNumber) {
    }

    private static final Secret STATE = new Secret("4111-1111-1111-1111");

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    @Test
    void aStepThatThrowsWithNoErrorHandlerNorRetryIsLoggedOnce() {
        MachineDefinition machine = MachineDefinition.builder("charge", 3, Secret.class)
                .step("charge", (state, ctx) -> {
                    throw new IllegalStateException("card declined");
                })
                .retryPolicy(RetryPolicy.none())
                .build();
        long id = runToFailure(machine);

        ILoggingEvent warning = theOneFailureWarning(id);
        assertThat(warning.getFormattedMessage()).isEqualTo("Instance " + id + " (charge v3) failed at step 'charge',"
                + " attempt 0: java.lang.IllegalStateException: card declined");
        assertThat(warning.getThrowableProxy().getMessage()).isEqualTo("card declined");
    }

    /**
     * Each retry of the policy is one INFO line with its delay and the failure, without the stack trace; the failure
     * once the policy gives up is the one WARN, with it.
     */
    @Test
    void theRetriesOfAPolicyAreSaidAtInfoAndItsGivingUpOnceAtWarn() {
        MachineDefinition machine = MachineDefinition.builder("charge", 3, Secret.class)
                .step("charge", (state, ctx) -> {
                    throw new IllegalStateException("card declined at attempt " + ctx.attempt());
                })
                .retryPolicy(RetryPolicy.builder().maxAttempts(3).delay(Duration.ofMillis(10)).jitter(Duration.ZERO)
                        .build())
                .build();
        long id = runToFailure(machine);

        ILoggingEvent warning = theOneFailureWarning(id);
        assertThat(warning.getFormattedMessage()).isEqualTo("Instance " + id + " (charge v3) failed at step 'charge',"
                + " attempt 2: retry policy gave up after 3 attempts (at most 3); last error:"
                + " java.lang.IllegalStateException: card declined at attempt 2");
        assertThat(warning.getThrowableProxy().getMessage()).isEqualTo("card declined at attempt 2");
        List<ILoggingEvent> retries = logs.events(Level.INFO).stream()
                .filter(event -> event.getFormattedMessage().startsWith("Instance " + id + " (")).toList();
        assertThat(retries).extracting(ILoggingEvent::getFormattedMessage).containsExactly(
                "Instance " + id + " (charge v3) failed at step 'charge', attempt 0, retried in PT0.01S by its retry"
                        + " policy: java.lang.IllegalStateException: card declined at attempt 0",
                "Instance " + id + " (charge v3) failed at step 'charge', attempt 1, retried in PT0.02S by its retry"
                        + " policy: java.lang.IllegalStateException: card declined at attempt 1");
        assertThat(retries).allMatch(event -> event.getThrowableProxy() == null);
    }

    @Test
    void anErrorHandlerThatGivesUpIsLoggedWithItsReason() {
        MachineDefinition machine = MachineDefinition.builder("charge", 1, Secret.class)
                .step("charge", (state, ctx) -> {
                    throw new IllegalStateException("card declined");
                })
                .errorHandler((error, state, ctx) -> Outcome.stop("gave up: " + error.getMessage()))
                .build();
        long id = runToFailure(machine);

        assertThat(theOneFailureWarning(id).getFormattedMessage())
                .endsWith("failed at step 'charge', attempt 0: gave up: card declined");
    }

    @Test
    void anInvalidOutcomeIsLogged() {
        MachineDefinition machine = MachineDefinition.builder("charge", 1, Secret.class)
                .step("charge", (state, ctx) -> null)
                .build();
        long id = runToFailure(machine);

        assertThat(theOneFailureWarning(id).getFormattedMessage())
                .contains("InvalidOutcome").contains("returned null");
    }

    @Test
    void anUnreadableStateIsLoggedWithoutTheStoredJson() {
        MachineDefinition machine = MachineDefinition.builder("charge", 1, Secret.class)
                .step("charge", (state, ctx) -> Outcome.done())
                .build();
        DurableClient client = engines.clientOnly(machine);
        long id = client.start("charge", STATE).id();
        // A state an older deploy stored in a shape this one cannot read.
        TestDatabase.jdbc().update("UPDATE durable_it.durable_instance SET state = '[\"4111-1111-1111-1111\"]'"
                + " WHERE id = ?", id);
        engines.start(machine);
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));

        assertThat(theOneFailureWarning(id).getFormattedMessage()).contains("UnreadableState");
    }

    @Test
    void aSuccessfulInstanceLogsNoFailure() {
        MachineDefinition machine = MachineDefinition.builder("charge", 1, Secret.class)
                .step("charge", (state, ctx) -> Outcome.done())
                .build();
        long id = engines.start(machine).client().start("charge", STATE).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));

        assertThat(logs.at(Level.WARN)).noneMatch(line -> line.contains("failed at step"));
    }

    private long runToFailure(MachineDefinition machine) {
        long id = engines.start(machine).client().start(machine.name(), STATE).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        return id;
    }

    /** The failure warning of {@code id}; there must be exactly one, and it must not carry the state. */
    private ILoggingEvent theOneFailureWarning(long id) {
        // The status is committed before the write's callback logs; wait for the line rather than race it.
        await().atMost(Duration.ofSeconds(5)).until(() -> !failureWarnings(id).isEmpty());
        List<ILoggingEvent> warnings = failureWarnings(id);
        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0).getFormattedMessage()).doesNotContain("4111");
        return warnings.get(0);
    }

    private List<ILoggingEvent> failureWarnings(long id) {
        return logs.events(Level.WARN).stream()
                .filter(event -> event.getFormattedMessage().startsWith("Instance " + id + " ("))
                .toList();
    }
}
