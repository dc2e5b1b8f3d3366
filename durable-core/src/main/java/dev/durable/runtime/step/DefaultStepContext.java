package dev.durable.runtime.step;

import dev.durable.DurableInstance;
import dev.durable.Inbox;
import dev.durable.StepContext;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The {@link StepContext} of one claimed step. It remembers how many ended children the step has seen, at pick and in
 * its reads of {@link #children()}, so that a join on any child waits for one the step has not seen
 * (docs/DESIGN.md, "Children").
 */
public final class DefaultStepContext implements StepContext {

    /** Reads a parent's children, in id order, as they stand now. */
    @FunctionalInterface
    public interface ChildrenReader {
        List<DurableInstance> children(long parentId);
    }

    private final ClaimedStep claimed;
    private final Inbox inbox;
    private final ChildrenReader reader;
    private volatile int childrenSeen;

    public DefaultStepContext(ClaimedStep claimed, Inbox inbox, ChildrenReader reader) {
        this.claimed = claimed;
        this.inbox = inbox;
        this.reader = reader;
        this.childrenSeen = claimed.children().ended();
    }

    ClaimedStep claimed() {
        return claimed;
    }

    /** The most ended children the step has seen: at pick, or in a read of {@link #children()}. */
    int childrenSeen() {
        return childrenSeen;
    }

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
    public Inbox inbox() {
        return inbox;
    }

    /**
     * The deadline passed before what the instance was parked on came: no awaited signal is in the inbox, and a join
     * on the children, if any, was not reached at pick.
     */
    @Override
    public boolean timedOut() {
        return claimed.deadlinePassed() && inbox.awaited().isEmpty() && !claimed.children().joined();
    }

    @Override
    public @Nullable Long parentId() {
        return claimed.children().parentId();
    }

    @Override
    public int childrenStarted() {
        return claimed.children().started();
    }

    @Override
    public int childrenEnded() {
        return claimed.children().ended();
    }

    @Override
    public List<DurableInstance> children() {
        if (claimed.children().started() == 0) {
            return List.of();
        }
        List<DurableInstance> children = reader.children(claimed.id());
        int ended = (int) children.stream().filter(child -> child.status().isTerminal()).count();
        synchronized (this) {
            childrenSeen = Math.max(childrenSeen, ended);
        }
        return children;
    }

    @Override
    public String toString() {
        return "StepContext[instance=" + claimed.id() + ", " + claimed.machine() + " v" + claimed.version()
                + ", step=" + claimed.step() + ", attempt=" + claimed.attempt() + ", leaseToken="
                + claimed.leaseToken() + "]";
    }
}
