package dev.durable.boot.test;

import static dev.durable.test.DurableAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.durable.InstanceQuery;
import dev.durable.test.DurableTestEngine;
import dev.durable.test.TestInstance;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/**
 * Two {@code @DurableTest} classes run in parallel (JUnit's parallel execution, classes concurrent) are isolated by
 * their schemas: each has its own rows and its own clock. They are made to overlap: each starts its instance, then
 * waits for the other to have started its own; one then moves its clock two days on, and the other, after that,
 * finds its own instance still waiting and its clock where it was. A class that had shared the other's schema would
 * have seen the other's instance, or its deadline fired.
 */
class DurableTestParallelClassesTest {

    /** Both classes have started their instance: they run at the same time. */
    static final CountDownLatch BOTH_STARTED = new CountDownLatch(2);
    /** The first class has moved its clock on. */
    static final CountDownLatch MOVED_ON = new CountDownLatch(1);
    static final Duration PATIENCE = Duration.ofSeconds(60);

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Reminder.class)
    static class Application {
    }

    @Test
    void twoClassesRunInParallelShareNoRowsAndNoClock() {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(MovesItsClock.class), selectClass(KeepsItsClock.class))
                .configurationParameters(Map.of(
                        "junit.jupiter.execution.parallel.enabled", "true",
                        "junit.jupiter.execution.parallel.mode.default", "same_thread",
                        "junit.jupiter.execution.parallel.mode.classes.default", "concurrent",
                        "junit.jupiter.execution.parallel.config.strategy", "fixed",
                        "junit.jupiter.execution.parallel.config.fixed.parallelism", "2"))
                .build();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(request, listener);

        TestExecutionSummary summary = listener.getSummary();
        assertThat(summary.getFailures()).as("failures of the parallel classes")
                .extracting(failure -> failure.getTestIdentifier().getDisplayName() + ": " + failure.getException())
                .isEmpty();
        assertThat(summary.getTestsSucceededCount()).isEqualTo(2);
    }

    /** Starts {@code who}'s reminder, and returns once the other class has started its own. */
    private static long startThenMeet(DurableTestEngine durable, String who) throws InterruptedException {
        long id = durable.client().start(Reminder.class, new Reminder.Call(who)).id();
        durable.runDue();
        BOTH_STARTED.countDown();
        awaitLatch(BOTH_STARTED, "the other class started its instance meanwhile");
        return id;
    }

    private static long instances(DurableTestEngine durable) {
        return durable.client().count(InstanceQuery.all()).values().stream().mapToLong(Long::longValue).sum();
    }

    private static void awaitLatch(CountDownLatch latch, String what) throws InterruptedException {
        assertThat(latch.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as(what).isTrue();
    }

    /** One of the two classes: the application on a schema of the class's own, and the kit. */
    @DurableTest
    abstract static class OneOfTwo {

        @Autowired
        DurableTestEngine durable;
    }

    @SpringBootTest(classes = Application.class,
            properties = {"durable.schema=parallel_moves_test", "durable.queues.reminders.concurrency=2"})
    static class MovesItsClock extends OneOfTwo {

        @Test
        void itsReminderRingsAfterADay() throws InterruptedException {
            long id = startThenMeet(durable, "moves");
            durable.advance(Duration.ofDays(2));
            MOVED_ON.countDown();

            assertThat(durable.instance(id)).isDone().hasResult("rang moves");
            assertThat(instances(durable)).as("the instances of its schema").isEqualTo(1);
        }
    }

    @SpringBootTest(classes = Application.class,
            properties = {"durable.schema=parallel_keeps_test", "durable.queues.reminders.concurrency=2"})
    static class KeepsItsClock extends OneOfTwo {

        @Test
        void itsReminderStillWaitsWhileTheOtherClassMovesItsClock() throws InterruptedException {
            long id = startThenMeet(durable, "keeps");
            Instant deadline = durable.instance(id).deadline();
            awaitLatch(MOVED_ON, "the other class moved its clock on");

            TestInstance after = durable.instance(id);
            assertThat(after).waitsFor("called", deadline);
            assertThat(durable.now()).isBefore(deadline);
            assertThat(instances(durable)).as("the instances of its schema").isEqualTo(1);
        }
    }
}
