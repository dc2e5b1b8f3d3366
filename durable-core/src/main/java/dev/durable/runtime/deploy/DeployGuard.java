package dev.durable.runtime.deploy;

import dev.durable.runtime.DeployCheck;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.queue.QueueOwner;
import dev.durable.runtime.queue.QueueOwners;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The deploy check at a node's start, as {@link EngineSettings#deployCheck()} says (docs/DESIGN.md, "The deploy
 * check"). It runs on the starting thread before the node's loops and pollers start, so the operator hears what the
 * code cannot run before it runs anything. {@code WARN}: the node checks once and logs a WARN per group of instances
 * its code cannot run. {@code FAIL}: it also picks from no queue (its pollers ask {@link #allowsPicking()}) until a
 * check passes, says why in an ERROR and in its health, and checks again on every reaper run, so a node of a deploy
 * that came too early starts working by itself once the instances it could not run have ended (run by nodes of the
 * old code) or once someone removed them. Failed instances never hold a node back: nothing runs them until an
 * operator retries them. A check the database could not answer (a start never fails for the database) is tried again
 * on the next reaper run; meanwhile a {@code FAIL} node does not pick.
 */
public final class DeployGuard implements QueueOwner.Gate {

    private static final Logger log = LoggerFactory.getLogger(DeployGuard.class);

    private final DeployCheck.Mode mode;
    private final Supplier<DeployCheck> check;
    private final QueueOwners owners;
    private final String nodeId;
    private final Duration recheckEvery;
    private final AtomicLong refusedPolls = new AtomicLong();
    /** True while a FAIL node may not pick: from its construction until a check passes. */
    private volatile boolean holding;
    private volatile @Nullable DeployCheck last;
    // Touched only in run(), which is synchronized.
    private boolean checked;
    private boolean failing;
    private boolean notCheckedLogged;
    /** The groups logged as problems, by {@code InFlightReport.Group.describe()}. */
    private final Set<String> reported = new HashSet<>();

    /**
     * @param check        runs the check against the database
     * @param owners       the owners of this node's queues, whose pollers it wakes once picking is allowed
     * @param recheckEvery how often a holding node checks again: the reaper's interval
     */
    public DeployGuard(DeployCheck.Mode mode, Supplier<DeployCheck> check, QueueOwners owners, String nodeId,
            Duration recheckEvery) {
        this.mode = mode;
        this.check = check;
        this.owners = owners;
        this.nodeId = nodeId;
        this.recheckEvery = recheckEvery;
        this.holding = mode == DeployCheck.Mode.FAIL;
    }

    /** Whether the pollers may pick: always, but for a FAIL node whose check has not passed. */
    @Override
    public boolean allowsPicking() {
        if (holding) {
            refusedPolls.incrementAndGet();
            return false;
        }
        return true;
    }

    /** Whether this node picks from no queue because of the check. */
    public boolean holding() {
        return holding;
    }

    /** How many polls the check kept from picking: a hook for tests. */
    public long refusedPolls() {
        return refusedPolls.get();
    }

    /** The last check that ran, if any. */
    public Optional<DeployCheck> last() {
        return Optional.ofNullable(last);
    }

    /** The check at the node's start, on the starting thread, before its loops and pollers start. */
    public void atStart() {
        if (mode != DeployCheck.Mode.OFF) {
            run();
        }
    }

    /** On every reaper run: checks until a first check got an answer, and again while the node holds back. */
    public void onReaperRun() {
        if (mode != DeployCheck.Mode.OFF && (holding || !checked)) {
            run();
        }
    }

    private synchronized void run() {
        DeployCheck result;
        try {
            result = check.get();
        } catch (RuntimeException e) {
            if (!failing) {
                failing = true;
                log.warn("Could not run the deploy check of node {} ({}); it is tried again every {}{}", nodeId,
                        e.toString(), spoken(recheckEvery), holding
                                ? ", and the node picks from no queue until it passes (durable.deploy-check=fail)"
                                : "");
            }
            return;
        }
        failing = false;
        checked = true;
        last = result;
        boolean newProblems = report(result);
        if (holding && result.passed()) {
            holding = false;
            log.info("Deploy check passed: node {} can run every unfinished instance and starts picking", nodeId);
            owners.wakeAll();
        } else if (holding && newProblems) {
            int groups = result.problems().size();
            log.error("Deploy check failed (durable.deploy-check=fail): node {} picks from no queue while its code"
                    + " cannot run {} of unfinished instances (each logged above). It checks again every {} and"
                    + " starts picking once none is left: once they have ended (nodes of the code that started them"
                    + " run them on), or once this code can run them (an upcaster, the old version registered again)."
                    + " To pick now and leave those instances to fail when they are picked, set"
                    + " durable.deploy-check=warn.", nodeId, groups == 1 ? "1 group" : groups + " groups",
                    spoken(recheckEvery));
        }
    }

    /**
     * Logs each group the code cannot run once (at ERROR on a FAIL node, else at WARN; failed instances at WARN), says
     * when one that was logged is gone, and names once the machines not checked. Whether a group of unfinished
     * instances was logged for the first time.
     */
    private boolean report(DeployCheck result) {
        boolean newProblems = false;
        Set<String> now = new HashSet<>();
        for (DeployCheck.Finding finding : result.problems()) {
            String key = finding.group().describe();
            now.add(key);
            if (reported.add(key)) {
                newProblems = true;
                if (mode == DeployCheck.Mode.FAIL) {
                    log.error("Deploy check: {}", finding.describe());
                } else {
                    log.warn("Deploy check: {}", finding.describe());
                }
            }
        }
        for (DeployCheck.Finding finding : result.problemsIfRetried()) {
            String key = finding.group().describe();
            now.add(key);
            if (reported.add(key)) {
                log.warn("Deploy check: {}", finding.describe());
            }
        }
        reported.removeIf(key -> {
            if (!now.contains(key)) {
                log.info("Deploy check: the instances of machine {} are no longer a problem", key);
                return true;
            }
            return false;
        });
        if (!result.machinesNotChecked().isEmpty() && !notCheckedLogged) {
            notCheckedLogged = true;
            log.info("Deploy check: instances of machines {} are in flight, of which node {} registers no version;"
                    + " they are not checked here", String.join(", ", result.machinesNotChecked()), nodeId);
        }
        return newProblems;
    }

    /** {@code 30s}, {@code 500ms}: a duration as the starter's properties write it. */
    static String spoken(Duration duration) {
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }
}
