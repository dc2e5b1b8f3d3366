package dev.durable;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What became of a signal.
 *
 * @param instanceId   the addressed instance; for a signal addressed by unique key, the instance holding the key, or 0
 *                     when none did
 * @param delivery     whether the signal was stored, deduplicated or refused
 * @param wokeInstance whether the instance was parked on this signal's name and is now runnable
 * @param mismatch     for a signal refused by its instance's declarations ({@link Delivery#REFUSED_UNDECLARED_SIGNAL},
 *                     {@link Delivery#REFUSED_WRONG_PAYLOAD}), what the instance's machine declares and why the signal
 *                     does not match it; {@code null} for every other delivery
 */
public record SignalResult(long instanceId, Delivery delivery, boolean wokeInstance, @Nullable Mismatch mismatch) {

    public SignalResult {
        Objects.requireNonNull(delivery, "delivery must not be null");
    }

    /** A result without a mismatch: every delivery but a refusal by the instance's declarations. */
    public SignalResult(long instanceId, Delivery delivery, boolean wokeInstance) {
        this(instanceId, delivery, wokeInstance, null);
    }

    public enum Delivery {
        /** Stored in the instance's inbox. */
        DELIVERED,
        /**
         * An earlier signal with the same dedup key reached this instance (it may since have been consumed, and the
         * instance may have ended); nothing was stored.
         */
        DEDUPLICATED,
        /** No instance has this id; nothing was stored. */
        REFUSED_UNKNOWN_INSTANCE,
        /**
         * The instance ended (done, failed or cancelled) and never had a signal with this dedup key; nothing was
         * stored.
         */
        REFUSED_TERMINAL_INSTANCE,
        /**
         * The signal was addressed by unique key ({@link DurableClient#signalByUniqueKey}) and no instance holds the
         * key; nothing was stored.
         */
        REFUSED_NO_KEY_HOLDER,
        /**
         * The instance's machine version declares its signals and not this name ({@link #mismatch()} says which it
         * declares); nothing was stored, whatever the instance's status.
         */
        REFUSED_UNDECLARED_SIGNAL,
        /**
         * The instance's machine version declares this signal with a payload type, and the payload does not bind to
         * it: the codec cannot read its JSON as that type, or would drop some of its properties, or the signal
         * carries no payload where one is declared (or one where none is); {@link #mismatch()} says which type and
         * why. Nothing was stored, whatever the instance's status.
         */
        REFUSED_WRONG_PAYLOAD;

        /** The lower-case name: this constant's one spelling outside Java code, in JSON and the actuator. */
        @JsonValue
        public String label() {
            return Labels.of(this);
        }

        /**
         * The constant spelled {@code label}.
         *
         * @throws IllegalArgumentException naming the labels there are, if {@code label} is none of them
         */
        @JsonCreator
        public static Delivery fromLabel(String label) {
            return Labels.parse(Delivery.class, label);
        }
    }

    /**
     * How a refused signal differs from what its instance's machine declares (docs/DESIGN.md, "Declared signals").
     *
     * @param signal       the refused signal's name
     * @param machine      the instance's machine
     * @param version      the instance's machine version
     * @param declaredBy   the version whose declarations were checked: {@code version}, or the version this node
     *                     upcasts the instance to and runs it on (docs/DESIGN.md, "Upcasting")
     * @param declared     the signals that version declares, by name in declaration order, each with its payload
     *                     type's name ({@code java.lang.Void} for a signal without a payload)
     * @param expectedType the payload type declared for {@code signal}; {@code null} when the name is not declared
     * @param reason       the whole refusal in one sentence: the instance, machine, version, the declared names or
     *                     the expected type, and why the payload does not bind
     */
    public record Mismatch(String signal, String machine, int version, int declaredBy, Map<String, String> declared,
            @Nullable String expectedType, String reason) {

        public Mismatch {
            Objects.requireNonNull(signal, "signal must not be null");
            Objects.requireNonNull(machine, "machine must not be null");
            declared = Collections.unmodifiableMap(new LinkedHashMap<>(declared));
            Objects.requireNonNull(reason, "reason must not be null");
        }
    }

    public boolean isDelivered() {
        return delivery == Delivery.DELIVERED;
    }

    public boolean isRefused() {
        return switch (delivery) {
            case DELIVERED, DEDUPLICATED -> false;
            case REFUSED_UNKNOWN_INSTANCE, REFUSED_TERMINAL_INSTANCE, REFUSED_NO_KEY_HOLDER, REFUSED_UNDECLARED_SIGNAL,
                    REFUSED_WRONG_PAYLOAD -> true;
        };
    }

    /** This result, or a {@link SignalRefusedException} if the signal was refused. */
    public SignalResult orThrow() {
        if (isRefused()) {
            throw new SignalRefusedException(this);
        }
        return this;
    }
}
