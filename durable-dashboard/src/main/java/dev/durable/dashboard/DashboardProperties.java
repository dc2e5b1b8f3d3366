package dev.durable.dashboard;

import java.time.Duration;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Configuration of the dashboard, under {@code durable.dashboard.*} (docs/DESIGN.md, "Dashboard").
 */
@ConfigurationProperties("durable.dashboard")
public final class DashboardProperties {

    /**
     * Whether the application serves the dashboard. Off unless set: the pages show queue and machine names, errors
     * and keys, so an application says where and to whom before they appear.
     */
    private final boolean enabled;

    /** The path the dashboard is served under, e.g. /durable (its JSON under /durable/api). */
    private final String path;

    /**
     * Whether the dashboard only reads. While it does, every write (retry, bulk retry, cancel, rerun) is refused with
     * 403 and the pages offer none.
     */
    private final boolean readOnly;

    /**
     * The roles a user needs for a write when the dashboard is not read-only (checked with the servlet request's
     * isUserInRole, which Spring Security answers); when empty, every user who reaches the path may write.
     */
    private final Set<String> writeRoles;

    /** How often the pages read again what they show, the machine's live diagram among them. */
    private final Duration refreshInterval;

    public DashboardProperties(@DefaultValue("false") boolean enabled, @DefaultValue("/durable") String path,
            @DefaultValue("true") boolean readOnly, @DefaultValue Set<String> writeRoles,
            @DefaultValue("2s") Duration refreshInterval) {
        if (!path.startsWith("/") || path.endsWith("/") || path.contains("*") || path.contains("{")) {
            throw new IllegalArgumentException("durable.dashboard.path must start with '/', not end with one and"
                    + " hold no pattern, e.g. /durable; was '" + path + "'");
        }
        if (refreshInterval.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("durable.dashboard.refresh-interval must be at least 100ms, was "
                    + refreshInterval);
        }
        this.enabled = enabled;
        this.path = path;
        this.readOnly = readOnly;
        this.writeRoles = Set.copyOf(writeRoles);
        this.refreshInterval = refreshInterval;
    }

    public boolean isEnabled() {
        return enabled;
    }

    public String getPath() {
        return path;
    }

    public boolean isReadOnly() {
        return readOnly;
    }

    public Set<String> getWriteRoles() {
        return writeRoles;
    }

    public Duration getRefreshInterval() {
        return refreshInterval;
    }
}
