package dev.durable.runtime.step;


/**
 * One child instance that a transition starts if it commits: the row to insert (its parent is the transition's
 * instance) and whether cancelling the parent cancels it (docs/DESIGN.md, "Children").
 */
public record NewChild(NewInstance row, boolean cancelWithParent) {
}
