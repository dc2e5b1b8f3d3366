/**
 * The sample's next release, for the deploy walkthrough (DeployWalkthroughTest, and the sample's README, "Deploy a
 * changed order state"): the order state with {@code reservation} renamed {@code reservationId}, and the order
 * workflow that runs on it. It lives in test sources, outside the package {@code dev.durable.sample} that the sample scans for
 * beans, because the sample's other tests (and the application that CrashRecoveryTest starts on the test class path)
 * must not find a second machine "order"; a test starts it on purpose, with {@link dev.durable.nextrelease.NextRelease}.
 */
@NullMarked
package dev.durable.nextrelease;

import org.jspecify.annotations.NullMarked;
