package dev.durable.boot.docs.starter;

import dev.durable.DurableClient;
import dev.durable.json.JacksonJsonCodec;
import dev.durable.machine.MachineRegistry;
import dev.durable.test.DeployAssertions;
import java.nio.file.Path;
import tools.jackson.databind.json.JsonMapper;

/** The starter's README, section "Check a deploy": keeping what is in flight, and checking the next release. */
final class CheckADeploy {

    private CheckADeploy() {
    }

    static void keep(DurableClient durable) {
        durable.inFlight().write(Path.of("src/test/resources/in-flight.json"));
    }

    static void check(MachineRegistry machines, JsonMapper jsonMapper) {
        // machines: the application's MachineRegistry bean; jsonMapper: its JsonMapper bean
        DeployAssertions.assertCanRun(machines, new JacksonJsonCodec(jsonMapper),
                Path.of("src/test/resources/in-flight.json"));
    }
}
