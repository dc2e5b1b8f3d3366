package dev.durable.boot.autoconfigure;

import java.util.Set;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/** Configuration of the {@code durable} actuator endpoint, under {@code management.endpoint.durable.*}. */
@ConfigurationProperties("management.endpoint.durable")
public final class DurableEndpointProperties {

    /**
     * When to show an instance's state and result, which may hold personal data: never, when-authorized or
     * always.
     */
    private final Show showValues;

    /**
     * Roles used to decide whether a user is authorized to see states and results; when empty, every
     * authenticated user is.
     */
    private final Set<String> roles;

    public DurableEndpointProperties(@DefaultValue("never") Show showValues, @DefaultValue Set<String> roles) {
        this.showValues = showValues;
        this.roles = Set.copyOf(roles);
    }

    public Show getShowValues() {
        return showValues;
    }

    public Set<String> getRoles() {
        return roles;
    }
}
