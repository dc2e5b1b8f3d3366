package dev.durable.boot.actuate;

import dev.durable.TargetCheck;
import dev.durable.runtime.DeployCheck;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.NodeState;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The health of this node's engine, from what the engine knows (no query runs): {@code UP} while running,
 * {@code DOWN} while the database cannot be reached (with the error) or when more steps than
 * {@code durable.max-zombies} ignored their interrupt, {@code OUT_OF_SERVICE} while draining or stopped, and while
 * the deploy check keeps it from picking ({@code durable.deploy-check=fail}, with the groups of instances its code
 * cannot run and what to do), {@code UNKNOWN} before it started. With targets, the details show what their last check
 * found, breaches included, and the status stays what the node's state says: a breach is for a person to look at,
 * not for the platform to restart or unroute the node.
 */
public class DurableHealthIndicator implements HealthIndicator {

    private final DurableEngine engine;
    private final @Nullable DurableTargets targets;

    public DurableHealthIndicator(DurableEngine engine) {
        this(engine, null);
    }

    /** @param targets the node's targets, whose last check the details show; {@code null} for none */
    public DurableHealthIndicator(DurableEngine engine, @Nullable DurableTargets targets) {
        this.engine = engine;
        this.targets = targets;
    }

    @Override
    public Health health() {
        NodeState state = engine.state();
        Health.Builder health = switch (state) {
            case RUNNING -> Health.up();
            case STARTING -> Health.unknown();
            case DEGRADED -> Health.down();
            case DRAINING, STOPPED -> Health.outOfService();
        };
        health.withDetail("node", engine.nodeId())
                .withDetail("state", state.name().toLowerCase(java.util.Locale.ROOT))
                .withDetail("claims", engine.claims())
                .withDetail("zombies", engine.zombies())
                .withDetail("maxZombies", engine.settings().maxZombies());
        if (state == NodeState.DEGRADED) {
            engine.databaseError().ifPresent(error -> health.withDetail("error",
                    error.getClass().getName() + ": " + error.getMessage()));
        }
        if (engine.heldByDeployCheck() && state == NodeState.RUNNING) {
            health.outOfService().withDetail("reason", "durable.deploy-check=fail: this node picks from no queue until"
                    + " its code can run every unfinished instance; it checks again every "
                    + spoken(engine.settings().reaperInterval()) + " (set durable.deploy-check=warn to pick now)");
            engine.lastDeployCheck().ifPresentOrElse(
                    check -> health.withDetail("deployCheck", check.problems().stream()
                            .map(DeployCheck.Finding::describe).toList()),
                    () -> health.withDetail("deployCheck", List.of("not answered yet: the database could not be"
                            + " read")));
        }
        // A breach is shown, never a status of its own: DOWN would have the pod restarted and OUT_OF_SERVICE taken out
        // of its load balancer, and neither moves a late instance on (docs/DESIGN.md, "Targets").
        if (targets != null && !targets.targets().isEmpty()) {
            targets.last().ifPresentOrElse(checked -> health.withDetail("targets", checked.checks().stream()
                            .map(TargetCheck::describe).toList()).withDetail("targetsCheckedAt", checked.at()),
                    () -> health.withDetail("targets", List.of("not checked yet")));
        }
        if (engine.hasTooManyZombies()) {
            health.down().withDetail("reason", engine.zombies() + " steps ignored their interrupt and still run"
                    + " (more than durable.max-zombies = " + engine.settings().maxZombies() + "); restart this node");
        }
        return health.build();
    }

    /** {@code 30s}, {@code 500ms}: a duration as a property is written. */
    private static String spoken(Duration duration) {
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }
}
