package dev.durable.machine;

import dev.durable.DurableException;

/** A machine definition, or a set of them, is invalid; the message names the places involved. */
public class MachineDefinitionException extends DurableException {

    public MachineDefinitionException(String message) {
        super(message);
    }
}
