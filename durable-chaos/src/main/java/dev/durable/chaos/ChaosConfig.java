package dev.durable.chaos;

import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one chaos run does: how many nodes and instances, how long the chaos lasts, how many faults of each kind,
 * and the nodes' timings. Two presets: {@link #shortRun(Path)} (about two minutes, in the default test suite) and
 * {@link #longRun(Path)} (25 minutes of chaos, by hand); every value can be overridden with {@code key=value}
 * arguments (see {@link #with(Map)}).
 *
 * @param insertWindow   instances are inserted in {@code waves} spread over this part of the chaos window, and the
 *                       faults are spread over it too, so that they land on work in progress
 * @param pgRestarts     clean restarts of PostgreSQL ({@code pg_ctl stop -m fast}, then start)
 * @param pgCrashes      crashes of PostgreSQL (postmaster killed with SIGQUIT, then started: crash recovery)
 * @param pgDowntime     how long PostgreSQL stays down when restarted or crashed (at most; each outage is random
 *                       between half of it and all of it; past {@code outcomeRetry} finished steps give up their
 *                       outcomes to the reaper)
 * @param pauseExtra     how much longer than the lease a SIGSTOP lasts
 * @param inlineNodes    how many of the nodes run a {@code next} step inline on the same claim
 *                       ({@code inlineNextSteps}); the others go back through the queue
 * @param longStepPermille how many step executions in a thousand take {@code longStepMillis} instead (longer than
 *                       the shutdown grace period, so a SIGTERM has unfinished claims to release)
 * @param quiescence     how long, after the chaos, the run may take to finish every instance
 * @param families       how many families (a parent and its two to four members, {@link FamilyMachines}) are started
 *                       over the insert window, a quarter of them cancelled while they run
 * @param deployInstances how many instances of {@link DeployMachines} are started over the insert window for the
 *                       rolling deploy: on version 1 until every node was replaced, one by one while the faults go on,
 *                       by a node running version 2 only (0: no rolling deploy, every node runs version 1)
 * @param replication    {@code none}: the orchestrator's own restartable PostgreSQL ({@link ChaosPostgres});
 *                       {@code sync} or {@code async}: a primary and a streaming standby ({@link ReplicatedPostgres}),
 *                       and one failover in the middle of the insert window: the primary's postmaster killed with
 *                       SIGKILL, the standby promoted
 * @param promoteAfter   how long after the primary's death the standby is promoted (the HA manager's detection time)
 * @param replicationLag with {@code async}: how long before the primary's death the standby's WAL receiver is frozen
 *                       (SIGSTOP), so that the standby lags by that much of the workload's commits when the primary
 *                       dies (0: the lag the machine happens to have)
 */
public record ChaosConfig(
        Path workDir,
        long seed,
        int nodes,
        int instances,
        int waves,
        int partitionKeys,
        Duration chaosWindow,
        Duration insertWindow,
        int kills,
        int pauses,
        int pgRestarts,
        int pgCrashes,
        int sigterms,
        Duration pgDowntime,
        Duration pauseExtra,
        Duration quiescence,
        int concurrency,
        Duration lease,
        Duration heartbeat,
        Duration poll,
        Duration reaper,
        Duration grace,
        Duration outcomeRetry,
        int minPauseMillis,
        int maxPauseMillis,
        int longStepPermille,
        int longStepMillis,
        int inlineNodes,
        int families,
        int deployInstances,
        String replication,
        Duration promoteAfter,
        Duration replicationLag) {

    /**
     * About two minutes on a slow two-core machine: 3 nodes, 6 kills, 1 pause past the lease, 1 restart each, and a
     * rolling deploy of the three nodes.
     */
    public static ChaosConfig shortRun(Path workDir) {
        return new ChaosConfig(workDir, System.currentTimeMillis(), 3, 4000, 12, 24, Duration.ofSeconds(75),
                Duration.ofSeconds(55), 6, 1, 1, 0, 1, Duration.ofSeconds(9), Duration.ofSeconds(3),
                Duration.ofMinutes(4), 6, Duration.ofSeconds(3), Duration.ofSeconds(1), Duration.ofMillis(150),
                Duration.ofMillis(500), Duration.ofSeconds(2), Duration.ofSeconds(5), 5, 25, 1, 3500, 1, 300, 300, "none", Duration.ZERO, Duration.ZERO);
    }

    /**
     * 25 minutes of chaos: 3 nodes, 60 kills, 6 pauses, 3 clean restarts and 3 crashes of PostgreSQL, 6 SIGTERMs, and
     * a rolling deploy of the three nodes.
     */
    public static ChaosConfig longRun(Path workDir) {
        return new ChaosConfig(workDir, System.currentTimeMillis(), 3, 60000, 180, 32, Duration.ofMinutes(25),
                Duration.ofMinutes(23), 60, 6, 3, 3, 6, Duration.ofSeconds(10), Duration.ofSeconds(3),
                Duration.ofMinutes(10), 6, Duration.ofSeconds(3), Duration.ofSeconds(1), Duration.ofMillis(150),
                Duration.ofMillis(500), Duration.ofSeconds(2), Duration.ofSeconds(5), 5, 25, 1, 3500, 1, 4000, 3000, "none", Duration.ZERO, Duration.ZERO);
    }

    /**
     * One database failover and no other fault, about a minute (51 s on a loaded two-core machine): 2 nodes on a primary and its streaming
     * standby, 2,000 instances and 200 families inserted over 30 seconds, the primary's postmaster killed with SIGKILL
     * after 15 and the standby promoted 2 seconds later (with {@code async}, the standby's WAL receiver frozen for the
     * last 2 seconds before the kill).
     */
    public static ChaosConfig failoverRun(Path workDir, String replication) {
        return new ChaosConfig(workDir, System.currentTimeMillis(), 2, 2000, 10, 24, Duration.ofSeconds(40),
                Duration.ofSeconds(30), 0, 0, 0, 0, 0, Duration.ofSeconds(9), Duration.ofSeconds(3),
                Duration.ofMinutes(3), 6, Duration.ofSeconds(3), Duration.ofSeconds(1), Duration.ofMillis(150),
                Duration.ofMillis(500), Duration.ofSeconds(2), Duration.ofSeconds(5), 5, 25, 0, 3500, 1, 200, 0,
                replication, Duration.ofSeconds(2), replication.equals("async") ? Duration.ofSeconds(2)
                : Duration.ZERO).validated();
    }

    /**
     * This configuration with {@code key=value} overrides; keys are the component names, durations are ISO-8601
     * ({@code PT2M}) or plain seconds.
     */
    public ChaosConfig with(Map<String, String> overrides) {
        RecordComponent[] components = ChaosConfig.class.getRecordComponents();
        Object[] values = new Object[components.length];
        Class<?>[] types = new Class<?>[components.length];
        Map<String, String> unused = new TreeMap<>(overrides);
        try {
            for (int k = 0; k < components.length; k++) {
                RecordComponent component = components[k];
                types[k] = component.getType();
                String override = unused.remove(component.getName());
                values[k] = override == null ? component.getAccessor().invoke(this) : parse(component, override);
            }
            if (!unused.isEmpty()) {
                throw new IllegalArgumentException("Unknown settings " + unused.keySet() + "; settings: "
                        + Arrays.stream(components).map(RecordComponent::getName).toList());
            }
            return ChaosConfig.class.getDeclaredConstructor(types).newInstance(values).validated();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Object parse(RecordComponent component, String value) {
        Class<?> type = component.getType();
        if (type == int.class) {
            return Integer.parseInt(value);
        }
        if (type == long.class) {
            return Long.parseLong(value);
        }
        if (type == Duration.class) {
            return value.startsWith("P") ? Duration.parse(value) : Duration.ofSeconds(Long.parseLong(value));
        }
        if (type == Path.class) {
            return Path.of(value);
        }
        if (type == String.class) {
            return value;
        }
        throw new IllegalArgumentException("Cannot set " + component.getName());
    }

    private ChaosConfig validated() {
        if (nodes < 2) {
            throw new IllegalArgumentException("nodes must be at least 2 (one is always faulted), was " + nodes);
        }
        if (instances < 1 || waves < 1 || waves > instances) {
            throw new IllegalArgumentException("need 1 <= waves <= instances, was waves=" + waves + " instances="
                    + instances);
        }
        if (deployInstances < 0) {
            throw new IllegalArgumentException("deployInstances must not be negative, was " + deployInstances);
        }
        if (!List.of("none", "sync", "async").contains(replication)) {
            throw new IllegalArgumentException("replication must be none, sync or async, was " + replication);
        }
        if (!replication.equals("none") && pgRestarts + pgCrashes > 0) {
            throw new IllegalArgumentException("replication=" + replication + " fails the primary over once and "
                    + "restarts no server: pgRestarts and pgCrashes must be 0, were " + pgRestarts + " and "
                    + pgCrashes);
        }
        if (insertWindow.compareTo(chaosWindow) > 0) {
            throw new IllegalArgumentException("insertWindow " + insertWindow + " exceeds chaosWindow "
                    + chaosWindow);
        }
        return this;
    }

    /** The total number of faults the schedule injects. */
    int faults() {
        return kills + pauses + pgRestarts + pgCrashes + sigterms + failovers();
    }

    /** One failover with a replicated database, none on the orchestrator's own PostgreSQL. */
    int failovers() {
        return replication.equals("none") ? 0 : 1;
    }

    /** The replication mode of the failover run, or null without one. */
    ReplicatedPostgres.@org.jspecify.annotations.Nullable Mode replicationMode() {
        return replication.equals("none") ? null
                : ReplicatedPostgres.Mode.valueOf(replication.toUpperCase(java.util.Locale.ROOT));
    }

    /** How many nodes the rolling deploy replaces: every one, or none when there are no deploy instances. */
    int deploys() {
        return deployInstances > 0 ? nodes : 0;
    }
}
