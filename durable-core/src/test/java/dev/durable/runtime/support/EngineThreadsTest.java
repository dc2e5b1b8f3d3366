package dev.durable.runtime.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class EngineThreadsTest {

    private static final InheritableThreadLocal<String> POLLERS_CONTEXT = new InheritableThreadLocal<>();

    @Test
    void aVirtualStepThreadIsNamedForStepsAndInheritsNothingFromTheThreadStartingIt() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need Java 21; this JVM is " + Runtime.version());
        Executor steps = EngineThreads.stepThreads(true);
        POLLERS_CONTEXT.set("the poller's");
        try {
            CompletableFuture<String[]> seen = new CompletableFuture<>();
            steps.execute(() -> seen.complete(new String[] {Thread.currentThread().getName(),
                    String.valueOf(isVirtual(Thread.currentThread())), String.valueOf(POLLERS_CONTEXT.get())}));
            String[] thread = seen.get(10, TimeUnit.SECONDS);
            assertThat(thread[0]).matches("durable-step-\\d+");
            assertThat(thread[1]).isEqualTo("true");
            assertThat(thread[2]).isEqualTo("null");
        } finally {
            POLLERS_CONTEXT.remove();
        }
    }

    @Test
    void withoutVirtualThreadsStepsRunOnNamedDaemonPlatformThreads() throws Exception {
        Executor steps = EngineThreads.stepThreads(false);
        CompletableFuture<Thread> seen = new CompletableFuture<>();
        steps.execute(() -> seen.complete(Thread.currentThread()));
        Thread thread = seen.get(10, TimeUnit.SECONDS);
        assertThat(thread.getName()).matches("durable-step-\\d+");
        assertThat(thread.isDaemon()).isTrue();
        assertThat(isVirtual(thread)).isFalse();
    }

    private static boolean isVirtual(Thread thread) {
        try {
            return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
        } catch (ReflectiveOperationException e) {
            return false; // Java 17: no virtual threads
        }
    }
}
