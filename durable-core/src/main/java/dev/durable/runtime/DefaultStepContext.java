package dev.durable.runtime;

import dev.durable.Inbox;
import dev.durable.StepContext;
import org.jspecify.annotations.Nullable;

/** The {@link StepContext} of one claimed step. */
record DefaultStepContext(ClaimedStep claimed, Inbox inbox) implements StepContext {

    @Override
    public long instanceId() {
        return claimed.id();
    }

    @Override
    public String machine() {
        return claimed.machine();
    }

    @Override
    public int version() {
        return claimed.version();
    }

    @Override
    public String step() {
        return claimed.step();
    }

    @Override
    public int attempt() {
        return claimed.attempt();
    }

    @Override
    public @Nullable String partitionKey() {
        return claimed.partitionKey();
    }

    @Override
    public long leaseToken() {
        return claimed.leaseToken();
    }

    @Override
    public boolean timedOut() {
        return claimed.deadlinePassed() && inbox.awaited().isEmpty();
    }

    @Override
    public String toString() {
        return "StepContext[instance=" + claimed.id() + ", " + claimed.machine() + " v" + claimed.version()
                + ", step=" + claimed.step() + ", attempt=" + claimed.attempt() + ", leaseToken="
                + claimed.leaseToken() + "]";
    }
}
