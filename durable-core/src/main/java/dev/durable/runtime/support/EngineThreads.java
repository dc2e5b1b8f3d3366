package dev.durable.runtime.support;

import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The threads an engine makes for itself: its step threads (unless it is given an executor) and its timer. */
public final class EngineThreads {

    private static final Logger log = LoggerFactory.getLogger(EngineThreads.class);

    private EngineThreads() {
    }

    /**
     * The timer of step timeouts. Every step with a timeout schedules its interrupt and cancels it when it ends:
     * cancelled tasks must leave the queue at once, not linger (holding the step) until their delay would have run out.
     */
    public static ScheduledThreadPoolExecutor stepTimeouts() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, daemonThreads("durable-timer"));
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    public static Executor stepThreads(boolean virtual) {
        if (virtual) {
            Executor threads = virtualThreads("durable-step-");
            if (threads != null) {
                return threads;
            }
            log.warn("Virtual threads were asked for but this JVM ({}) has none; steps run on platform threads",
                    Runtime.version());
        }
        // Unbounded, but never more threads than steps in user code at once: the queues' slots bound those.
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                daemonThreads("durable-step"));
    }

    /**
     * A new virtual thread per step, named {@code prefix} and a number, that does not inherit the inheritable
     * thread-locals of the thread starting it (the poller's): a step sets up its own context (docs/DESIGN.md, "The
     * life of a step"), and copying the poller's map into every step's thread showed as about 3 % of a no-op drain's
     * JVM samples (docs/PERFORMANCE.md, "The cost of a step"). Built by reflection, since this code is compiled for
     * Java 17; null on a JVM without virtual threads.
     */
    private static @Nullable Executor virtualThreads(String prefix) {
        try {
            Class<?> builderType = Class.forName("java.lang.Thread$Builder");
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            builder = builderType.getMethod("name", String.class, long.class).invoke(builder, prefix, 0L);
            builder = builderType.getMethod("inheritInheritableThreadLocals", boolean.class).invoke(builder, false);
            ThreadFactory factory = (ThreadFactory) builderType.getMethod("factory").invoke(builder);
            return runnable -> factory.newThread(runnable).start();
        } catch (ReflectiveOperationException | UnsupportedOperationException e) {
            return null; // Java 17, or a JDK where virtual threads are a preview not enabled
        }
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger counter = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
