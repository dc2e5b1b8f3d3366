package dev.durable.runtime.step;

import org.jspecify.annotations.Nullable;

/**
 * What a step's commit writes into its row besides the outcome, because the row was stored by older code
 * (docs/DESIGN.md, "Upcasting"): the version whose definition ran the step, and the step's current name. Written by
 * the outcome's own fenced statement, so the row moves to the current version and name exactly when the outcome
 * commits, and stays as stored when it does not.
 *
 * @param version   the version the step ran on: the row's own, or the one its state was upcast to
 * @param step      the current name of the step that ran (the stored name may be a former one)
 * @param stateJson the upcast state, written when the outcome keeps its state (a terminal one); {@code null} when the
 *                  state was not upcast
 */
record Upgrade(int version, String step, @Nullable String stateJson) {
}
