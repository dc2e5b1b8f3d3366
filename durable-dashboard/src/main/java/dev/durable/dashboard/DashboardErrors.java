package dev.durable.dashboard;

import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * How every JSON endpoint of the dashboard answers what it refuses, in one place so that its controllers answer alike
 * (docs/DESIGN.md, "Dashboard"): a {@link DashboardException} with its status, a conflict with where an instance or a
 * schedule stands (IllegalStateException) with 409, bad input (IllegalArgumentException) with 400; each as
 * {@code {"error": ...}}. A controller's own handler goes first: the search's 400 also lists its filters.
 */
@RestControllerAdvice(assignableTypes = {DashboardController.class, ClusterController.class,
        ScheduleController.class})
public class DashboardErrors {

    DashboardErrors() {
    }

    @ExceptionHandler(DashboardException.class)
    ResponseEntity<Map<String, Object>> refused(DashboardException e) {
        return ResponseEntity.status(e.status()).body(error(e));
    }

    /**
     * What the client refuses because of where an instance stands (a step its version does not declare, a machine not
     * registered on this node): a conflict with the stored instance, not a bad request; every write, the bulk retry
     * too, answers it alike.
     */
    @ExceptionHandler(IllegalStateException.class)
    ResponseEntity<Map<String, Object>> conflict(IllegalStateException e) {
        return ResponseEntity.status(409).body(error(e));
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<Map<String, Object>> badRequest(IllegalArgumentException e) {
        return ResponseEntity.badRequest().body(error(e));
    }

    private static Map<String, Object> error(RuntimeException e) {
        return Map.of("error", String.valueOf(e.getMessage()));
    }
}
