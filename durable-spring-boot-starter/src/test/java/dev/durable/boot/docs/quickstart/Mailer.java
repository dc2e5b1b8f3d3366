package dev.durable.boot.docs.quickstart;

/** The application's bean the quick start's machine names: it mails the link that confirms a sign-up. */
interface Mailer {

    void sendConfirmationLink(String email, long signupId);
}
