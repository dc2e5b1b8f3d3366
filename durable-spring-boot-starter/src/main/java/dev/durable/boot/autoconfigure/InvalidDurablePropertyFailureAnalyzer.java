package dev.durable.boot.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports an invalid {@code durable.*} property by name, with what is wrong and how to fix it. */
final class InvalidDurablePropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidDurablePropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidDurablePropertyException cause) {
        StringBuilder description = new StringBuilder("Invalid durable configuration.\n\n");
        description.append("    Property: ").append(cause.property()).append('\n');
        if (cause.value() != null) {
            description.append("    Value: ").append(cause.value()).append('\n');
        }
        description.append("    Reason: ").append(cause.problem());
        String action = cause.value() == null
                ? "Configure '" + cause.property() + "' (for a queue: " + cause.property() + ".concurrency=10),"
                        + " or change what refers to it."
                : "Change '" + cause.property() + "' in your configuration so that it meets the reason above.";
        return new FailureAnalysis(description.toString(), action, cause);
    }
}
