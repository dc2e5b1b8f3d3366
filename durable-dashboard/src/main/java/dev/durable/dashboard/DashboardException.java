package dev.durable.dashboard;

/** A request the dashboard's JSON refuses, with the HTTP status and the reason its pages show. */
final class DashboardException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;

    DashboardException(int status, String message) {
        super(message);
        this.status = status;
    }

    int status() {
        return status;
    }
}
