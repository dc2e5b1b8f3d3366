package dev.durable.boot.docs.javadoc;

import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.EngineSettings;
import dev.durable.runtime.QueueSettings;
import javax.sql.DataSource;

/** The javadoc of {@link DurableEngine}: an engine without Spring Boot, on the machine of the MachineDefinition. */
final class DurableEngineExample {

    private DurableEngineExample() {
    }

    static void run(DataSource dataSource, MachineDefinition checkout) {
        DurableEngine engine = DurableEngine.builder(dataSource, MachineRegistry.of(checkout))
                .settings(EngineSettings.builder().queue("checkout", QueueSettings.concurrency(8)).build())
                .build();
        engine.start();
        engine.client().start("checkout", new Checkout.State(42));
        // ... the node runs steps of this and other nodes' instances until it stops
        engine.stop();   // graceful: running steps finish within the grace period, the rest is released
    }
}
