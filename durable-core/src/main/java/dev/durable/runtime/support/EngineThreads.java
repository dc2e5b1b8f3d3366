package dev.durable.runtime.support;

import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.task.VirtualThreadTaskExecutor;

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
            try {
                return new VirtualThreadTaskExecutor("durable-step-");
            } catch (UnsupportedOperationException e) {
                log.warn("Virtual threads were asked for but this JVM ({}) has none; steps run on platform threads",
                        Runtime.version());
            }
        }
        // Unbounded, but never more threads than steps in user code at once: the queues' slots bound those.
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                daemonThreads("durable-step"));
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
