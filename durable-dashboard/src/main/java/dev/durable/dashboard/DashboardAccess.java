package dev.durable.dashboard;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;

/**
 * Who may do what on the dashboard, asked of each request (docs/DESIGN.md, "Dashboard"): the values of states and
 * results follow the actuator endpoint's {@code show-values} rule; a write needs the dashboard not read-only and,
 * when write roles are set, one of them. The roles are asked of the servlet request, which Spring Security answers
 * when the application has it, so the dashboard needs no Spring Security of its own.
 */
final class DashboardAccess {

    /** The header every write must carry: a cross-site form cannot send it (docs/DESIGN.md, "Dashboard"). */
    static final String WRITE_HEADER = "X-Durable-Dashboard";
    /** Where Spring Security's CSRF filter leaves the request's token, when the application has one. */
    private static final String CSRF_ATTRIBUTE = "_csrf";

    private final boolean readOnly;
    private final Set<String> writeRoles;
    private final Show showValues;
    private final Set<String> valueRoles;

    DashboardAccess(boolean readOnly, Collection<String> writeRoles, Show showValues,
            Collection<String> valueRoles) {
        this.readOnly = readOnly;
        this.writeRoles = Set.copyOf(writeRoles);
        this.showValues = showValues;
        this.valueRoles = Set.copyOf(valueRoles);
    }

    boolean readOnly() {
        return readOnly;
    }

    /** Whether the user of {@code request} sees states and results, as the actuator's show-values rule says. */
    boolean showsValues(HttpServletRequest request) {
        return showValues.isShown(new SecurityContext() {
            @Override
            public @Nullable Principal getPrincipal() {
                return request.getUserPrincipal();
            }

            @Override
            public boolean isUserInRole(String role) {
                return request.isUserInRole(role);
            }
        }, valueRoles);
    }

    /** Why the user of {@code request} may not write, or null when they may. */
    @Nullable String writeRefusal(HttpServletRequest request) {
        if (readOnly) {
            return "The dashboard is read-only: set durable.dashboard.read-only=false to allow retries and cancels";
        }
        if (!writeRoles.isEmpty() && writeRoles.stream().noneMatch(request::isUserInRole)) {
            return "Writes need one of the roles " + new TreeSet<>(writeRoles) + ", which "
                    + (request.getRemoteUser() == null ? "an anonymous user" : "user '" + request.getRemoteUser() + "'")
                    + " does not have";
        }
        return null;
    }

    /**
     * Refuses a write the user of {@code request} may not make, or one without the {@link #WRITE_HEADER} header.
     *
     * @throws DashboardException 403 with the reason
     */
    void checkWrite(HttpServletRequest request) {
        String refusal = writeRefusal(request);
        if (refusal != null) {
            throw new DashboardException(403, refusal);
        }
        if (request.getHeader(WRITE_HEADER) == null) {
            throw new DashboardException(403, "A write must carry the header " + WRITE_HEADER
                    + " (the dashboard's pages send it; a cross-site form cannot)");
        }
    }

    /** Who made a write, as the history and the log name them: the user's name, or "anonymous". */
    static String who(HttpServletRequest request) {
        String user = request.getRemoteUser();
        return user == null ? "anonymous" : user;
    }

    /**
     * The CSRF token the application's Spring Security expects on a write, as {@code header} and {@code token}, or
     * null when there is none. Read through its getters, so the dashboard does not need Spring Security's classes.
     */
    static @Nullable Map<String, String> csrf(HttpServletRequest request) {
        Object token = request.getAttribute(CSRF_ATTRIBUTE);
        if (token == null) {
            return null;
        }
        BeanWrapperImpl bean = new BeanWrapperImpl(token);
        if (!bean.isReadableProperty("headerName") || !bean.isReadableProperty("token")) {
            return null;
        }
        Map<String, String> csrf = new LinkedHashMap<>();
        csrf.put("header", String.valueOf(bean.getPropertyValue("headerName")));
        csrf.put("token", String.valueOf(bean.getPropertyValue("token")));
        return csrf;
    }
}
