/**
 * The test kit: assertions an application's own tests make about durable, with no database and no Spring.
 * {@link dev.durable.test.DeployAssertions} checks the application's machines against an exported in-flight report.
 */
@NullMarked
package dev.durable.test;

import org.jspecify.annotations.NullMarked;
