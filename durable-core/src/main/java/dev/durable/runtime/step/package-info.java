/**
 * Internal: what one step decides, without threads and without SQL (docs/DESIGN.md, "The life of a step", 3). Its input
 * is a claimed row ({@code ClaimedStep}, held under a {@code Claim}, with its inbox of {@code SignalRow}s read as
 * {@code InboxSignal}s); {@code StatePreparation} decides whether and as what the row runs (an {@code Upgrade}, "Lossy
 * states", "Upcasting"); {@code StepRunner} calls the user's step through a {@code DefaultStepContext} and turns its
 * outcome into a {@code Transition}, the rows to write (with the {@code NewChild} and {@code NewInstance} rows of the
 * children it starts). Its classes may be public for the sibling packages; none is API, and {@code ArchitectureTest}
 * keeps everything outside {@code dev.durable.runtime} from using them.
 */
@NullMarked
package dev.durable.runtime.step;

import org.jspecify.annotations.NullMarked;
