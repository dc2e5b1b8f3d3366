package dev.durable.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.machine.RetryPolicy;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.support.EngineThreads;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.MDC;

/**
 * Every step execution is a {@code durable.step} observation with the documented key values, the client's calls that
 * cause work are observed too, and the step's MDC keys are there while its code and its error handler run, on
 * platform and virtual threads, and gone from the thread after (docs/DESIGN.md, "Tracing").
 */
class StepObservationTest {

    record Order(String sku) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    /** The contexts of the observations that stopped, in order. */
    private final ConcurrentLinkedQueue<Observation.Context> stopped = new ConcurrentLinkedQueue<>();

    private final TestObservationRegistry registry = TestObservationRegistry.create();

    {
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
    }

    private static final MachineDefinition ORDER = MachineDefinition.builder("order", 2, Order.class)
            .initialStep("reserve")
            .step("reserve", (state, ctx) -> Outcome.next("ship", state))
            .step("ship", (state, ctx) -> Outcome.done())
            .build();

    @Test
    void eachStepAndTheStartAreObservedWithTheirKeyValues() {
        DurableClient client = start(registry, EngineThreads.stepThreads(EngineFixture.VIRTUAL_THREADS), ORDER)
                .client();
        long id = client.start("order", new Order("book")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        await().atMost(Duration.ofSeconds(5)).until(() -> steps().size() == 2);

        TestObservationRegistryAssert.assertThat(registry)
                .hasNumberOfObservationsWithNameEqualTo(DurableObservations.START, 1)
                .hasNumberOfObservationsWithNameEqualTo(DurableObservations.STEP, 2);
        Observation.Context started = stopped.stream()
                .filter(context -> context.getName().equals(DurableObservations.START)).findFirst().orElseThrow();
        assertThat(started).isInstanceOf(ClientObservationContext.class);
        assertThat(started.getLowCardinalityKeyValue(DurableObservations.MACHINE).getValue()).isEqualTo("order");
        assertThat(started.getLowCardinalityKeyValue(DurableObservations.RESULT).getValue()).isEqualTo("created");

        List<StepObservationContext> steps = steps();
        assertThat(steps).extracting(StepObservationContext::step).containsExactly("reserve", "ship");
        StepObservationContext reserve = steps.get(0);
        assertThat(keyValues(reserve)).containsEntry(DurableObservations.MACHINE, "order")
                .containsEntry(DurableObservations.VERSION, "2")
                .containsEntry(DurableObservations.STEP_NAME, "reserve")
                .containsEntry(DurableObservations.QUEUE, "default")
                .containsEntry(DurableObservations.OUTCOME, "next")
                .containsEntry(DurableObservations.INSTANCE, Long.toString(id))
                .containsEntry(DurableObservations.ATTEMPT, "0");
        assertThat(reserve.getHighCardinalityKeyValue(DurableObservations.INSTANCE)).isNotNull();
        assertThat(reserve.getLowCardinalityKeyValue(DurableObservations.INSTANCE)).isNull();
        assertThat(keyValues(steps.get(1))).containsEntry(DurableObservations.OUTCOME, "done");
    }

    @Test
    void aSignalACancelAndTheOperatorsRetryAreObserved() {
        MachineDefinition waiting = MachineDefinition.builder("waiting", 1, Order.class)
                .step("wait", (state, ctx) -> Outcome.await("paid", state))
                .build();
        MachineDefinition failing = MachineDefinition.builder("failing", 1, Order.class)
                .step("fail", (state, ctx) -> {
                    throw new IllegalStateException("no stock");
                })
                .retryPolicy(RetryPolicy.none())
                .build();
        DurableClient client = start(registry, EngineThreads.stepThreads(EngineFixture.VIRTUAL_THREADS), waiting,
                failing).client();
        long parked = client.start("waiting", new Order("book")).id();
        long failed = client.start("failing", new Order("pen")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(parked).equals("awaiting_signal")
                && TestDatabase.status(failed).equals("failed"));

        client.signal(parked, "nothing-awaits-this", null, null);
        client.cancel(parked, "test");
        client.retryFailed(failed);

        assertThat(keyValues(one(DurableObservations.SIGNAL))).containsEntry(DurableObservations.SIGNAL_NAME,
                "nothing-awaits-this").containsEntry(DurableObservations.RESULT, "delivered");
        assertThat(keyValues(one(DurableObservations.CANCEL))).containsEntry(DurableObservations.RESULT,
                "cancelled");
        assertThat(keyValues(one(DurableObservations.RETRY))).containsEntry(DurableObservations.RESULT, "retried");
        StepObservationContext fail = steps().stream().filter(step -> step.step().equals("fail")).findFirst()
                .orElseThrow();
        assertThat(fail.getError()).hasMessage("no stock");
        assertThat(keyValues(fail)).containsEntry(DurableObservations.OUTCOME, "stop");
    }

    /**
     * The four keys are in the MDC inside the step and inside its error handler, and the thread that ran them has
     * none of them once the step is over; on the platform threads' pool and, where the JVM has them, on virtual
     * threads.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theMdcKeysAreThereWhileAStepRunsAndGoneAfter(boolean virtual) {
        Map<String, Map<String, String>> inside = new java.util.concurrent.ConcurrentHashMap<>();
        ConcurrentLinkedQueue<Map<String, String>> after = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> threads = new ConcurrentLinkedQueue<>();
        MachineDefinition machine = MachineDefinition.builder("logged", 1, Order.class)
                .step("charge", (state, ctx) -> {
                    inside.put("step", mdc());
                    threads.add(Thread.currentThread().toString());
                    throw new IllegalStateException("declined");
                })
                .errorHandler((error, state, ctx) -> {
                    inside.put("handler", mdc());
                    return Outcome.stop("gave up");
                })
                .build();
        Executor pool = EngineThreads.stepThreads(virtual);
        // Runs each step on the engine's own kind of thread and reads that thread's MDC once the step is over.
        Executor watched = command -> pool.execute(() -> {
            command.run();
            after.add(mdc());
        });
        long id = start(ObservationRegistry.NOOP, watched, machine).client().start("logged", new Order("x")).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        await().atMost(Duration.ofSeconds(5)).until(() -> !after.isEmpty());

        Map<String, String> expected = Map.of(DurableObservations.INSTANCE, Long.toString(id),
                DurableObservations.MACHINE, "logged", DurableObservations.STEP_NAME, "charge",
                DurableObservations.ATTEMPT, "0");
        assertThat(inside.get("step")).containsAllEntriesOf(expected);
        assertThat(inside.get("handler")).containsAllEntriesOf(expected);
        assertThat(after).allSatisfy(map -> assertThat(map).doesNotContainKeys(DurableObservations.INSTANCE,
                DurableObservations.MACHINE, DurableObservations.STEP_NAME, DurableObservations.ATTEMPT));
        if (virtual && EngineFixture.VIRTUAL_THREADS) {
            assertThat(threads).allMatch(name -> name.startsWith("VirtualThread"));
        } else {
            assertThat(threads).noneMatch(name -> name.startsWith("VirtualThread"));
        }
    }

    private DurableEngine start(ObservationRegistry observations, Executor threads, MachineDefinition... machines) {
        DurableEngine engine = DurableEngine.builder(TestDatabase.dataSource(), MachineRegistry.of(machines))
                .settings(EngineFixture.fastSettings("observed", machines).build())
                .observationRegistry(observations)
                .stepThreads(threads)
                .build();
        return engines.start(engine);
    }

    private static Map<String, String> mdc() {
        Map<String, String> copy = MDC.getCopyOfContextMap();
        return copy == null ? Map.of() : new HashMap<>(copy);
    }

    private List<StepObservationContext> steps() {
        return stopped.stream().filter(StepObservationContext.class::isInstance)
                .map(StepObservationContext.class::cast).toList();
    }

    private Observation.Context one(String name) {
        List<Observation.Context> named = stopped.stream().filter(context -> context.getName().equals(name))
                .toList();
        assertThat(named).hasSize(1);
        return named.get(0);
    }

    private static Map<String, String> keyValues(Observation.Context context) {
        Map<String, String> all = new HashMap<>();
        context.getAllKeyValues().forEach(keyValue -> all.put(keyValue.getKey(), keyValue.getValue()));
        return all;
    }

}
