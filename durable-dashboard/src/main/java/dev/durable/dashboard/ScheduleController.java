package dev.durable.dashboard;

import dev.durable.StoredSchedule;
import dev.durable.runtime.DurableEngine;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The overview's writes to recurring schedules (docs/DESIGN.md, "Dashboard", "Recurring schedules"): pause one,
 * resume one. Checked by {@link DashboardAccess} as every write is (read-only unless enabled, the write roles, the
 * {@value DashboardAccess#WRITE_HEADER} header, the application's CSRF token), and logged with the user's name.
 */
@RestController
@RequestMapping("${durable.dashboard.path:/durable}/api")
public class ScheduleController {

    private static final Logger log = LoggerFactory.getLogger(ScheduleController.class);

    private final DurableEngine engine;
    private final DashboardAccess access;

    ScheduleController(DurableEngine engine, DashboardAccess access) {
        this.engine = engine;
        this.access = access;
    }

    /** Stops the schedule from firing until it is resumed; the ticks that fall meanwhile are skipped. */
    @PostMapping("/schedules/{name}/pause")
    public Map<String, Object> pause(@PathVariable String name, HttpServletRequest request) {
        return change(name, request, "paused", engine.client()::pauseSchedule);
    }

    /** Lets a paused schedule fire again, from its next tick after now. */
    @PostMapping("/schedules/{name}/resume")
    public Map<String, Object> resume(@PathVariable String name, HttpServletRequest request) {
        return change(name, request, "resumed", engine.client()::resumeSchedule);
    }

    /** A write checked, made through {@code change} (whether it changed anything), refused if not, and logged. */
    private Map<String, Object> change(String name, HttpServletRequest request, String outcome,
            Predicate<String> change) {
        access.checkWrite(request);
        if (!change.test(name)) {
            throw refusal(engine.client().findSchedule(name), name, outcome);
        }
        log.info("Dashboard: {} {} schedule '{}'", DashboardAccess.who(request), outcome, name);
        return Map.of("name", name, "outcome", outcome);
    }

    /** Why the client changed nothing: no such schedule, or it already is as asked. */
    private static DashboardException refusal(Optional<StoredSchedule> found, String name, String asked) {
        if (found.isEmpty()) {
            return new DashboardException(404, "No schedule '" + name + "'");
        }
        return new DashboardException(409, "Schedule '" + name + "' is " + (found.get().paused() ? "already paused"
                : "not paused") + "; nothing was " + asked);
    }

}
