package dev.durable.runtime;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What this node's code says of the instances of one group (docs/DESIGN.md, "The deploy check"): a machine version
 * at a step, with the stored states of a sample of them. The one place the deploy check asks, whether it reads the
 * database (the sampled states as stored) or an exported report (a skeleton document per shape).
 */
interface GroupClassifier {

    /**
     * The verdict on the instances of {@code machine} v{@code version} at {@code step} whose stored states are
     * {@code sampleStatesJson} (an entry is null for a state stored as SQL NULL, which is never read).
     */
    DeployCheck.Verdict classify(String machine, int version, String step, List<@Nullable String> sampleStatesJson);
}
