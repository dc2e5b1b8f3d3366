package dev.durable;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One committed transition of an instance, as its history records it ({@link DurableClient#history(long)}): written
 * in the transaction that committed the transition, so the history holds exactly what happened, in order.
 *
 * @param id              the entry's id; entries of one instance are ordered by it
 * @param step            the step that ran, or that the instance was at when it was cancelled, retried or reaped
 * @param event           what happened
 * @param nextStep        the step a {@code next} moved to
 * @param status          the status the transition left the instance in
 * @param attempt         the attempt of the run that ended (the attempt the instance was at, for a cancel or an
 *                        operator's retry)
 * @param node            the node that wrote the transition
 * @param leaseToken      the token of the claim the transition ended; {@code null} when none was held
 * @param at              when it was committed, on the database's clock
 * @param duration        how long the step ran, as its node measured it; {@code null} when no step ran
 * @param error           the failure behind a retry, a stop's or cancel's reason, why a claim ended without an outcome,
 *                        why the instance was suspended
 * @param signalsConsumed the ids of the signals a {@code next} consumed
 * @param patch           what the transition changed of the state, as an RFC 6902 JSON Patch from the state it found
 *                        (after the upcast, if any) to the one it wrote; {@code null} when it changed nothing, or when
 *                        its node recorded no patches (docs/DESIGN.md, "History")
 * @param upcastPatch     what the upcast the step ran after changed: the patch from the state as the older version
 *                        stored it to the upcast one, applied before {@code patch}; {@code null} without an upcast, or
 *                        when it changed nothing (docs/DESIGN.md, "Upcasting")
 */
public record HistoryEntry(long id, long instanceId, String step, Event event, @Nullable String nextStep,
        InstanceStatus status, int attempt, @Nullable String node, @Nullable Long leaseToken, Instant at,
        @Nullable Duration duration, @Nullable String error, List<Long> signalsConsumed, @Nullable StatePatch patch,
        @Nullable StatePatch upcastPatch) {

    public HistoryEntry {
        signalsConsumed = List.copyOf(signalsConsumed);
    }

    /** What a transition was. */
    public enum Event {
        /** A step returned {@code next}. */
        NEXT,
        /** A step (or its error handler) returned {@code retry}. */
        RETRY,
        /** A step parked on signals or children (or found them already there, and stayed runnable). */
        AWAIT,
        /** A step returned {@code done}. */
        DONE,
        /** A step returned {@code stop}, or failed with no error handler to decide. */
        STOP,
        /** The instance was cancelled ({@link DurableClient#cancel(long, String)}, or with its parent). */
        CANCEL,
        /** An operator made the failed instance runnable again ({@link DurableClient#retryFailed(long)}). */
        RETRY_FAILED,
        /** The reaper returned a claim whose lease expired: its node died or lost it. */
        REAP,
        /** A node handed a claim back: at shutdown, or a later start of it released an earlier start's claims. */
        RELEASE,
        /** The step died of an {@link Error} and its node handed the claim back. */
        CRASH,
        /**
         * The step was not run: its stored state would lose properties, or its upcast failed, and the instance was
         * suspended ({@link InstanceStatus#SUSPENDED}); the error says why.
         */
        SUSPEND,
        /** An operator made the suspended instance runnable again ({@link DurableClient#retryFailed(long)}). */
        RETRY_SUSPENDED,
        /**
         * An operator ran the ended instance again from a chosen step, maybe with an edited state
         * ({@link DurableClient#rerun(long, String, Object, String)}): the entry's step is where it had ended, its
         * next step the chosen one, its error says who and how.
         */
        RERUN;

        /** The lower-case name: the event's one spelling outside Java code, as stored, in JSON and the actuator. */
        @JsonValue
        public String label() {
            return Labels.of(this);
        }

        /**
         * The event spelled {@code label}.
         *
         * @throws IllegalArgumentException naming the labels there are, if {@code label} is none of them
         */
        @JsonCreator
        public static Event fromLabel(String label) {
            return Labels.parse(Event.class, label);
        }
    }
}
