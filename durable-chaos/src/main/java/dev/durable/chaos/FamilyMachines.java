package dev.durable.chaos;

import dev.durable.Child;
import dev.durable.DurableInstance;
import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.machine.MachineDefinition;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The parent and child machines of the chaos run's families (docs/RELIABILITY.md): a parent starts its members as
 * children in one outcome and awaits all of them; each member sleeps on a durable timer and ends, done or (as
 * planned) failed. The parent's result records what its join saw, so the checks can hold it against the database.
 * The driver cancels some parents (the cancel cascades to their members) and some single members while they run.
 *
 * <pre>
 * chaos-family:  split:await (starting the members), split:done (the join, with what it saw)
 * chaos-member:  work:next (a durable timer of sleepMs), finish:done | finish:stop
 * </pre>
 */
public final class FamilyMachines {

    public static final String PARENT = "chaos-family";
    public static final String MEMBER = "chaos-member";

    /** A family's plan: its members. */
    public record Family(List<Member> members) {

        public Family {
            members = List.copyOf(members);
        }
    }

    /** A member's plan: how long it sleeps, and whether it fails. */
    public record Member(int sleepMs, boolean fails) {
    }

    /**
     * What a parent's join saw: the counts at pick and every child as {@link StepContext#children()} read it.
     */
    public record Joined(int started, int ended, List<Seen> seen) {

        public Joined {
            seen = List.copyOf(seen);
        }
    }

    /** One child as the join saw it. */
    public record Seen(long id, String status) {
    }

    private FamilyMachines() {
    }

    /** The parent: start every member and wait for all of them, then end with what the join saw. */
    public static MachineDefinition parent() {
        return MachineDefinition.builder(PARENT, 1, Family.class)
                .queue(ChaosMachine.QUEUE)
                .step("split", FamilyMachines::split)
                .build();
    }

    /** A member: a durable timer, then done, or stop as planned. */
    public static MachineDefinition member() {
        return MachineDefinition.builder(MEMBER, 1, Member.class)
                .queue(ChaosMachine.QUEUE)
                .initialStep("work")
                .step("work", (member, ctx) -> Outcome.next("finish", member,
                        Duration.ofMillis(require(member).sleepMs())))
                .step("finish", (member, ctx) -> require(member).fails() ? Outcome.stop("planned member failure")
                        : Outcome.done(ctx.instanceId()))
                .build();
    }

    private static Outcome split(@Nullable Family family, StepContext ctx) {
        Family plan = require(family);
        if (ctx.childrenStarted() == 0) {
            return Outcome.awaitChildren(plan).startingChildren(plan.members().stream()
                    .map(member -> Child.of(MEMBER, member))
                    .toList());
        }
        List<DurableInstance> children = ctx.children();
        return Outcome.done(new Joined(ctx.childrenStarted(), ctx.childrenEnded(), children.stream()
                .map(child -> new Seen(child.id(), child.status().label()))
                .toList()));
    }

    private static <T> T require(@Nullable T state) {
        if (state == null) {
            throw new IllegalStateException("a family instance always has a state");
        }
        return state;
    }
}
