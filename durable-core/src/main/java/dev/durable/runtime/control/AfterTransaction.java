package dev.durable.runtime.control;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * What the {@link DefaultDurableClient} does once the caller's Spring transaction ends: wake a poller for the rows it
 * committed, give back the claims of a local start that rolled back. Apart so that the client stays one reader's
 * length (ArchitectureTest).
 */
final class AfterTransaction {

    private AfterTransaction() {
    }

    /**
     * Runs {@code committed} once the caller's transaction commits, or now if there is none; {@code otherwise} if it
     * rolls back or its end is unknown.
     */
    static void afterCompletion(Runnable committed, Runnable otherwise) {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    if (status == STATUS_COMMITTED) {
                        committed.run();
                    } else {
                        otherwise.run();
                    }
                }
            });
        } else {
            committed.run();
        }
    }

    /**
     * Runs {@code action} once the caller's transaction commits, or now if there is none. What it throws after a
     * commit, Spring's synchronization logs: the call's answer stands, as the write it reports is committed.
     */
    static void afterCommit(Runnable action) {
        afterCompletion(action, () -> { });
    }
}
