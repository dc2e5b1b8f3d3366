package dev.durable.runtime;

/**
 * The engine's test hooks for the starter's tests. They are package-private in {@link DurableEngine}, not part of
 * its API; this class shares their package, in test sources only.
 */
public final class EngineTestHooks {

    private EngineTestHooks() {
    }

    /** Runs {@code engine}'s reaper and stranded-instances watch now; how many claims it returned to runnable. */
    public static long reapNow(DurableEngine engine) {
        return engine.reapNow();
    }

    /** How many polls of {@code engine} its deploy check kept from picking. */
    public static long pollsHeldByDeployCheck(DurableEngine engine) {
        return engine.pollsHeldByDeployCheck();
    }
}
