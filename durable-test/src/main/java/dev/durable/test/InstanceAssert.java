package dev.durable.test;

import dev.durable.DurableInstance;
import dev.durable.HistoryEntry;
import dev.durable.InstanceStatus;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.assertj.core.api.AbstractAssert;
import org.jspecify.annotations.Nullable;

/** AssertJ assertions on one instance ({@link DurableAssertions#assertThat(TestInstance)}). */
public final class InstanceAssert extends AbstractAssert<InstanceAssert, TestInstance> {

    InstanceAssert(TestInstance actual) {
        super(actual, InstanceAssert.class);
    }

    public InstanceAssert hasStatus(InstanceStatus status) {
        isNotNull();
        if (actual.instance().status() != status) {
            failWithMessage("Expected instance %s to be %s but was %s at step '%s' (last error: %s)", actual.id(),
                    status, actual.instance().status(), actual.instance().step(), actual.instance().lastError());
        }
        return this;
    }

    public InstanceAssert isDone() {
        return hasStatus(InstanceStatus.DONE);
    }

    public InstanceAssert isFailed() {
        return hasStatus(InstanceStatus.FAILED);
    }

    public InstanceAssert isRunnable() {
        return hasStatus(InstanceStatus.RUNNABLE);
    }

    /** The instance is at step {@code step} (the step it runs next, or the one it ended in). */
    public InstanceAssert isAt(String step) {
        isNotNull();
        if (!actual.instance().step().equals(step)) {
            failWithMessage("Expected instance %s at step '%s' but it is at '%s' (%s)", actual.id(), step,
                    actual.instance().step(), actual.instance().status());
        }
        return this;
    }

    /** Its state, read as {@code expected}'s type, equals {@code expected}. */
    public InstanceAssert hasState(Object expected) {
        isNotNull();
        Object state = actual.instance().state(expected.getClass());
        if (!expected.equals(state)) {
            failWithMessage("Expected instance %s to have state %s but had %s", actual.id(), expected, state);
        }
        return this;
    }

    /** Its result, read as {@code expected}'s type, equals {@code expected}. */
    public InstanceAssert hasResult(Object expected) {
        isNotNull();
        Object result = actual.instance().result(expected.getClass());
        if (!expected.equals(result)) {
            failWithMessage("Expected instance %s to have result %s but had %s (%s)", actual.id(), expected, result,
                    actual.instance().status());
        }
        return this;
    }

    /** It awaits signal {@code signal}, with no deadline. */
    public InstanceAssert waitsFor(String signal) {
        return waitsFor(signal, null);
    }

    /** It awaits signal {@code signal} until {@code deadline} (null: no deadline). */
    public InstanceAssert waitsFor(String signal, @Nullable Instant deadline) {
        hasStatus(InstanceStatus.AWAITING_SIGNAL);
        String awaits = actual.instance().awaits();
        if (awaits == null || !List.of(awaits.split(",")).contains(signal)) {
            failWithMessage("Expected instance %s to wait for signal '%s' but it waits for %s", actual.id(), signal,
                    awaits);
        }
        if (!Objects.equals(deadline, actual.deadline())) {
            failWithMessage("Expected instance %s to wait for '%s' until %s but its deadline is %s", actual.id(),
                    signal, deadline, actual.deadline());
        }
        return this;
    }

    /** Its history's events, oldest first, are exactly {@code events}. */
    public InstanceAssert hasHistory(HistoryEntry.Event... events) {
        isNotNull();
        List<HistoryEntry.Event> recorded = actual.history().stream().map(HistoryEntry::event).toList();
        if (!recorded.equals(List.of(events))) {
            failWithMessage("Expected instance %s's history %s but was %s", actual.id(), List.of(events), recorded);
        }
        return this;
    }

    /** It has exactly {@code count} children with status {@code status}. */
    public InstanceAssert hasChildren(int count, InstanceStatus status) {
        isNotNull();
        long matching = actual.children().stream().filter(child -> child.status() == status).count();
        if (matching != count) {
            failWithMessage("Expected instance %s to have %s children %s but had %s of %s children", actual.id(),
                    count, status, matching, actual.children().size());
        }
        return this;
    }

    /** Its inbox holds exactly the signals named {@code names}, oldest first. */
    public InstanceAssert hasInbox(String... names) {
        isNotNull();
        if (!actual.inbox().equals(List.of(names))) {
            failWithMessage("Expected instance %s's inbox %s but was %s", actual.id(), List.of(names),
                    actual.inbox());
        }
        return this;
    }

    /** The instance read, for assertions of one's own. */
    public DurableInstance instance() {
        return actual.instance();
    }
}
