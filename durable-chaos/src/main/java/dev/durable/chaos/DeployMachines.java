package dev.durable.chaos;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.machine.MachineDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The machine of the chaos run's rolling deploy (docs/RELIABILITY.md, "What runs" and "The invariants"), in its two
 * versions. Each step appends one token naming its claim, then sleeps on a durable timer and runs again, until the
 * planned number of tokens is written; the result is the state itself, so the checks can hold every token against the
 * instance's history.
 *
 * <pre>
 * chaos-deploy v1:  collect:next (after pauseMs) x (planned - 1), collect:done
 *                   state {planned, pauseMs, tokens: ["1@17", ...]}
 * chaos-deploy v2:  gather:next (after pauseMs) x (planned - 1), gather:done   (gather was collect)
 *                   state {planned, pauseMs, trail: [{token: "1@17", version: 1}, ...]}
 *                   upcaster from v1: each of tokens becomes a mark of version 1 in trail, in order
 * </pre>
 *
 * Version 2 renames and restructures the property that holds what version 1 wrote, and renames the step: read without
 * its upcaster, a version 1 state would lose {@code $.tokens} (the engine would suspend the instance), and a row
 * stored at {@code collect} runs {@code gather} only through its former name. The nodes of the run start on version 1
 * and are replaced one by one by nodes that register version 2 only, while instances are in flight.
 */
public final class DeployMachines {

    public static final String NAME = "chaos-deploy";
    public static final String V1_STEP = "collect";
    public static final String V2_STEP = "gather";

    /** Version 1's state: the tokens written so far, one per committed step (none when the property is absent). */
    public record LedgerV1(int planned, int pauseMs, List<String> tokens) {

        public LedgerV1 {
            tokens = tokens == null ? List.of() : List.copyOf(tokens);
        }
    }

    /**
     * Version 2's state: {@code tokens} renamed to {@code trail}, each token now with the version that wrote it. A
     * state without {@code trail} reads as an empty one, as a type that adds a property does: so a version 1 state read
     * as this type without the upcaster would bind, without its tokens (the lossy read the engine suspends, rather than
     * an unreadable state).
     */
    public record LedgerV2(int planned, int pauseMs, List<Mark> trail) {

        public LedgerV2 {
            trail = trail == null ? List.of() : List.copyOf(trail);
        }
    }

    /** One token of version 2's trail, and the version of the machine whose step wrote it. */
    public record Mark(String token, int version) {
    }

    private DeployMachines() {
    }

    /** The token the {@code k}-th committed step (from 1) writes on claim {@code leaseToken}. */
    public static String token(int k, long leaseToken) {
        return k + "@" + leaseToken;
    }

    /** Version 1, as the nodes ran it before the deploy. */
    public static MachineDefinition v1() {
        return MachineDefinition.builder(NAME, 1, LedgerV1.class)
                .queue(ChaosMachine.QUEUE)
                .step(V1_STEP, DeployMachines::collect)
                .build();
    }

    /** Version 2, as the nodes run it after the deploy: the renamed step, and the upcaster from version 1. */
    public static MachineDefinition v2() {
        return MachineDefinition.builder(NAME, 2, LedgerV2.class)
                .queue(ChaosMachine.QUEUE)
                .step(V2_STEP, DeployMachines::gather)
                .formerStepNames(V2_STEP, V1_STEP)
                .upcaster(1, DeployMachines::upcastFromV1)
                .build();
    }

    /** The versions a node of {@code deployVersion} registers: only that one (no node runs both). */
    static MachineDefinition forVersion(int deployVersion) {
        return switch (deployVersion) {
            case 1 -> v1();
            case 2 -> v2();
            default -> throw new IllegalArgumentException("deployVersion must be 1 or 2, was " + deployVersion);
        };
    }

    /**
     * From version 1's tree to version 2's: {@code tokens} (strings) becomes {@code trail} (marks of version 1), in
     * order. A pure function of the tree; a state without {@code tokens} is refused, so a broken row would be
     * suspended, never narrowed.
     */
    static JsonNode upcastFromV1(JsonNode stored) {
        ObjectNode state = (ObjectNode) stored;
        JsonNode tokens = state.remove("tokens");
        if (tokens == null || !tokens.isArray()) {
            throw new IllegalArgumentException("a chaos-deploy v1 state has an array of tokens, this one has "
                    + tokens);
        }
        ArrayNode trail = state.putArray("trail");
        for (JsonNode token : tokens) {
            trail.addObject().put("token", token.asString()).put("version", 1);
        }
        return state;
    }

    private static Outcome collect(@Nullable LedgerV1 state, StepContext ctx) {
        LedgerV1 ledger = require(state);
        List<String> tokens = new ArrayList<>(ledger.tokens());
        tokens.add(token(tokens.size() + 1, ctx.leaseToken()));
        LedgerV1 next = new LedgerV1(ledger.planned(), ledger.pauseMs(), tokens);
        return tokens.size() >= ledger.planned() ? Outcome.done(next)
                : Outcome.next(V1_STEP, next, Duration.ofMillis(ledger.pauseMs()));
    }

    private static Outcome gather(@Nullable LedgerV2 state, StepContext ctx) {
        LedgerV2 ledger = require(state);
        List<Mark> trail = new ArrayList<>(ledger.trail());
        trail.add(new Mark(token(trail.size() + 1, ctx.leaseToken()), 2));
        LedgerV2 next = new LedgerV2(ledger.planned(), ledger.pauseMs(), trail);
        return trail.size() >= ledger.planned() ? Outcome.done(next)
                : Outcome.next(V2_STEP, next, Duration.ofMillis(ledger.pauseMs()));
    }

    private static <T> T require(@Nullable T state) {
        if (state == null) {
            throw new IllegalStateException("a chaos-deploy instance always has a state");
        }
        return state;
    }
}
