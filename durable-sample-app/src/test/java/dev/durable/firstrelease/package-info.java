/**
 * The sample as its first release shipped it, for SampleUpgradeTest: the order workflow at version 1, one product per
 * order, reserved by the order itself. It lives in test sources, outside the package {@code dev.durable.sample} that the
 * sample scans for beans, for the reason {@code dev.durable.nextrelease} does; a test starts it on purpose, with
 * {@link dev.durable.firstrelease.FirstRelease}.
 */
@NullMarked
package dev.durable.firstrelease;

import org.jspecify.annotations.NullMarked;
