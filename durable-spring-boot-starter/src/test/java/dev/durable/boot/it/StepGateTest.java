package dev.durable.boot.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The gate the blocking machines' steps wait at. */
class StepGateTest {

    private final StepGate gate = new StepGate();
    private final ExecutorService steps = Executors.newCachedThreadPool();

    @AfterEach
    void stopSteps() {
        steps.shutdownNow();
    }

    @Test
    void aStepWaitsAtTheGateUntilTheTestOpensIt() throws Exception {
        Future<?> step = steps.submit(() -> pass(1));
        gate.awaitEntered(1);
        assertThat(step.isDone()).as("waiting at the gate").isFalse();

        gate.open(1);

        step.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aGateOpenedBeforeTheStepArrivesLetsItThrough() throws Exception {
        gate.open(2);

        CompletableFuture.runAsync(() -> pass(2), steps).get(10, TimeUnit.SECONDS);
        gate.awaitEntered(2);
    }

    @Test
    void anInterruptEndsTheWaitAsItWouldEndAStep() throws Exception {
        Future<?> step = steps.submit(() -> {
            gate.pass(3);
            return null;
        });
        gate.awaitEntered(3);

        step.cancel(true);
        steps.shutdown();

        assertThat(steps.awaitTermination(10, TimeUnit.SECONDS)).as("the step ended on its interrupt").isTrue();
    }

    @Test
    void resetLetsAStepLeftWaitingGoOn() throws Exception {
        Future<?> step = steps.submit(() -> pass(4));
        gate.awaitEntered(4);

        gate.reset();

        step.get(10, TimeUnit.SECONDS);
        // Forgotten, too: ids start again once the tables are emptied, and the next step of id 4 waits again.
        Future<?> next = steps.submit(() -> pass(4));
        gate.awaitEntered(4);
        assertThat(next.isDone()).as("waiting at a new gate").isFalse();
        gate.open(4);
        next.get(10, TimeUnit.SECONDS);
    }

    private void pass(long instanceId) {
        try {
            gate.pass(instanceId);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
