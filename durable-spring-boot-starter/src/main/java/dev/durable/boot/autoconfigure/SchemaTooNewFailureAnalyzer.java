package dev.durable.boot.autoconfigure;

import dev.durable.jdbc.SchemaTooNewException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a node rolled back past a schema upgrade ({@link SchemaTooNewException}) without a stack trace: both
 * versions, and what to deploy instead.
 */
final class SchemaTooNewFailureAnalyzer extends AbstractFailureAnalyzer<SchemaTooNewException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SchemaTooNewException cause) {
        String description = "durable's schema is newer than this application's code.\n\n"
                + "    Schema version: " + cause.schemaVersion() + "\n"
                + "    This code's version: " + cause.codeVersion() + "\n"
                + "    Reason: " + cause.getMessage();
        String action = "Deploy a release that knows schema version " + cause.schemaVersion() + " or later (its"
                + " DurableSchema.VERSION). The schema is never rolled back: it keeps what the newer release wrote.";
        return new FailureAnalysis(description, action, cause);
    }
}
