/**
 * The test kit for an application's own tests, with no Spring needed. {@link dev.durable.test.DurableTestEngine}
 * drives machines on the application's real PostgreSQL with a clock the test moves, and
 * {@link dev.durable.test.DurableAssertions} asserts on their instances; {@link dev.durable.test.DeployAssertions}
 * checks the application's machines against an exported in-flight report.
 */
@NullMarked
package dev.durable.test;

import org.jspecify.annotations.NullMarked;
