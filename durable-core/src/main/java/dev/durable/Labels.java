package dev.durable;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The one spelling of the API's enum constants outside Java code: the lower-case name ({@code awaiting_signal},
 * {@code refused_no_key_holder}), as {@link InstanceStatus} has always been spelled. JSON, the actuator and metric tags
 * write it, so that no object a user reads mixes {@code "CANCELLED"} with {@code "awaiting_signal"}.
 */
final class Labels {

    private Labels() {
    }

    static String of(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT);
    }

    /**
     * The constant of {@code type} spelled {@code label}.
     *
     * @throws IllegalArgumentException naming the labels there are, if {@code label} is none of them
     */
    static <E extends Enum<E>> E parse(Class<E> type, String label) {
        E[] constants = type.getEnumConstants();
        for (E constant : constants) {
            if (of(constant).equals(label)) {
                return constant;
            }
        }
        throw new IllegalArgumentException("Unknown " + type.getSimpleName() + " '" + label + "'; the labels are "
                + Arrays.stream(constants).map(Labels::of).collect(Collectors.joining(", ")));
    }
}
