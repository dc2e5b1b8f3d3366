package dev.durable.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durable.json.JacksonJsonCodec;
import dev.durable.json.JsonCodec;
import dev.durable.machine.MachineDefinition;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The rolling deploy's machine really needs its upcaster: a version 1 state read as version 2's type would lose what
 * version 1 wrote (so a node of version 2 without the upcaster would suspend the instance, and with a codec that did
 * not tell, run on the narrowed state), and the upcaster carries every token over, in order, as written by version 1.
 */
class DeployMachinesTest {

    private final JsonMapper json = JsonMapper.builder().build();
    private final JsonCodec codec = new JacksonJsonCodec();

    @Test
    void aVersion1StateReadAsVersion2WithoutTheUpcasterLosesItsTokens() {
        String stored = json.writeValueAsString(new DeployMachines.LedgerV1(3, 1000, List.of("1@11", "2@12")));

        JsonCodec.Binding binding = codec.bind(stored, DeployMachines.LedgerV2.class);

        assertThat(binding.lossy()).isTrue();
        assertThat(binding.droppedPaths()).containsExactly("$.tokens");
    }

    @Test
    void theUpcasterCarriesEveryTokenIntoTheTrailAsWrittenByVersion1() throws Exception {
        String stored = json.writeValueAsString(new DeployMachines.LedgerV1(3, 1000, List.of("1@11", "2@12")));
        MachineDefinition v2 = DeployMachines.v2();

        JsonNode upcast = v2.upcasters().get(1).upcast(json.readTree(stored));
        JsonCodec.Binding binding = codec.bind(json.writeValueAsString(upcast), DeployMachines.LedgerV2.class);

        assertThat(binding.lossy()).as(binding.droppedPaths().toString()).isFalse();
        assertThat(binding.value()).isEqualTo(new DeployMachines.LedgerV2(3, 1000, List.of(
                new DeployMachines.Mark("1@11", 1), new DeployMachines.Mark("2@12", 1))));
        assertThat(v2.currentStepName(DeployMachines.V1_STEP)).isEqualTo(DeployMachines.V2_STEP);
        assertThat(v2.oldestUpcastVersion()).isEqualTo(1);
    }

    @Test
    void aStateWithoutTokensIsRefusedByTheUpcasterNotNarrowed() {
        JsonNode broken = json.readTree("{\"planned\":3,\"pauseMs\":1000}");

        assertThatThrownBy(() -> DeployMachines.v2().upcasters().get(1).upcast(broken))
                .hasMessageContaining("array of tokens");
    }

    @Test
    void aNodeRegistersOneVersionOnly() {
        assertThat(DeployMachines.forVersion(1).version()).isEqualTo(1);
        assertThat(DeployMachines.forVersion(2).version()).isEqualTo(2);
        assertThatThrownBy(() -> DeployMachines.forVersion(3)).hasMessageContaining("deployVersion must be 1 or 2");
    }
}
