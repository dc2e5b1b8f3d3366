package dev.durable.boot.autoconfigure;

import dev.durable.machine.MachineDefinitionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports an invalid machine: for a {@code @DurableMachine} bean, the bean, the methods and the parameter to blame,
 * what is wrong and what is allowed; for any other machine definition (two beans of one name and version, a step
 * declared twice, a name that is not allowed), the engine's message, which names the beans involved.
 */
final class MachineDefinitionFailureAnalyzer extends AbstractFailureAnalyzer<MachineDefinitionException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, MachineDefinitionException cause) {
        StringBuilder description = new StringBuilder("Invalid durable machine definition.\n\n");
        if (cause instanceof InvalidMachineBeanException invalid) {
            description.append("    Bean: ").append(invalid.bean()).append('\n');
            for (String method : invalid.methods()) {
                description.append("    Method: ").append(method).append('\n');
            }
            if (invalid.parameter() != null) {
                description.append("    Parameter: ").append(invalid.parameter()).append('\n');
            }
            description.append("    Reason: ").append(invalid.reason());
            return new FailureAnalysis(description.toString(), invalid.action(), cause);
        }
        description.append("    Reason: ").append(cause.getMessage());
        return new FailureAnalysis(description.toString(), "Correct the machines named above; the javadoc of"
                + " @DurableMachine, @Step and @OnError says what each accepts.", cause);
    }
}
