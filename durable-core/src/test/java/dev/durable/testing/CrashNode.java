package dev.durable.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.durable.Outcome;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineSettings;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A node in its own JVM for crash tests: it runs {@link #MACHINE} whose step prints {@code STARTED <id> <attempt>}
 * and then blocks for ever, so the test can kill the JVM with SIGKILL in the middle of the step.
 *
 * <p>Arguments: jdbcUrl user password nodeName leaseMillis heartbeatMillis.
 */
public final class CrashNode {

    public static final String MACHINE = "crash-test";

    private CrashNode() {
    }

    /** The machine of the crash tests; {@code work} is the step that runs when the node dies. */
    public static MachineDefinition machine(dev.durable.machine.StepFunction<Object> work) {
        return MachineDefinition.builder(MACHINE, 1, Object.class).step("work", work).build();
    }

    public static void main(String[] args) throws Exception {
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(args[0]);
        pool.setUsername(args[1]);
        pool.setPassword(args[2]);
        pool.setMaximumPoolSize(4);
        HikariDataSource dataSource = new HikariDataSource(pool);
        CountDownLatch never = new CountDownLatch(1);
        MachineDefinition machine = machine((state, ctx) -> {
            System.out.println("STARTED " + ctx.instanceId() + " " + ctx.attempt());
            System.out.flush();
            never.await();
            return Outcome.done();
        });
        DurableEngine engine = DurableEngine.builder(dataSource, MachineRegistry.of(machine))
                .settings(EngineSettings.builder()
                        .nodeName(args[3])
                        .schema(TestDatabase.SCHEMA)
                        .leaseTtl(Duration.ofMillis(Long.parseLong(args[4])))
                        .heartbeatInterval(Duration.ofMillis(Long.parseLong(args[5])))
                        .pollInterval(Duration.ofMillis(100))
                        .idlePollInterval(Duration.ofMillis(100))
                        .build())
                .build();
        engine.start();
        System.out.println("READY " + engine.nodeId());
        System.out.flush();
        never.await();
    }
}
