package dev.durable.test;

import dev.durable.DurableInstance;
import dev.durable.HistoryEntry;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One instance as {@link DurableTestEngine#instance(long)} read it, for {@link DurableAssertions}: its row, the
 * deadline of its await (null when it awaits none), the names of the signals in its inbox (not consumed yet, oldest
 * first), its history (oldest first) and its children (in the order they were started).
 */
public record TestInstance(DurableInstance instance, @Nullable Instant deadline, List<String> inbox,
        List<HistoryEntry> history, List<DurableInstance> children) {

    public TestInstance {
        inbox = List.copyOf(inbox);
        history = List.copyOf(history);
        children = List.copyOf(children);
    }

    public long id() {
        return instance.id();
    }
}
