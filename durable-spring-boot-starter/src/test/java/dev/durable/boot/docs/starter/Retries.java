package dev.durable.boot.docs.starter;

import org.jspecify.annotations.Nullable;

/** The types the starter README's section "Retries" takes for granted; its machine is {@link PaymentWorkflow}. */
final class Retries {

    private Retries() {
    }

    record Payment(long customerId, long amountCents, @Nullable String chargeId) {

        Payment charged(String chargeId) {
            return new Payment(customerId, amountCents, chargeId);
        }
    }

    /** The bank refused the card: no retry will change its mind. */
    static class CardDeclinedException extends RuntimeException {
        CardDeclinedException(String message) {
            super(message);
        }
    }

    /** The bank failed; {@link #isFinal()} says whether it will fail the same way again. */
    static class BankException extends RuntimeException {

        private final boolean permanent;

        BankException(String message, boolean permanent) {
            super(message);
            this.permanent = permanent;
        }

        boolean isFinal() {
            return permanent;
        }
    }

    interface Bank {
        /** A charge id; the instance id makes a re-run charge once. */
        String charge(long instanceId, Payment payment);
    }

    interface Mailer {
        /** The receipt's id. */
        String sendReceipt(Payment payment);
    }
}
