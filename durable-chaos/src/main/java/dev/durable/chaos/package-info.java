/**
 * The multi-node chaos harness: {@link dev.durable.chaos.ChaosOrchestrator} runs {@link dev.durable.chaos.ChaosNode}
 * JVMs on its own restartable PostgreSQL, injects real faults (SIGKILL, SIGSTOP/SIGCONT, SIGTERM, database restarts
 * and crashes) while a workload runs, and checks from the database that nothing was lost or applied twice.
 */
@NullMarked
package dev.durable.chaos;

import org.jspecify.annotations.NullMarked;
