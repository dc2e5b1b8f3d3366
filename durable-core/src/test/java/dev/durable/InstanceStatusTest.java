package dev.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.json.JsonMapper;

/** A status has one spelling outside Java code: the database's lower-case label. */
class InstanceStatusTest {

    private final JsonMapper json = JsonMapper.builder().build();

    @Test
    void toStringIsTheDatabaseLabel() {
        assertThat(InstanceStatus.AWAITING_SIGNAL).hasToString("awaiting_signal");
        assertThat(InstanceStatus.ACTIVE.toString()).isEqualTo("[runnable, executing, awaiting_signal]");
        for (InstanceStatus status : InstanceStatus.values()) {
            assertThat(status.toString()).isEqualTo(status.label());
        }
    }

    @Test
    void jacksonWritesAndReadsTheLabel() {
        for (InstanceStatus status : InstanceStatus.values()) {
            String written = json.writeValueAsString(status);
            assertThat(written).isEqualTo("\"" + status.label() + "\"");
            assertThat(json.readValue(written, InstanceStatus.class)).isEqualTo(status);
        }
    }

    @Test
    void jacksonSpellsMapKeysByLabelToo() {
        Map<InstanceStatus, Long> counts = new EnumMap<>(InstanceStatus.class);
        counts.put(InstanceStatus.AWAITING_SIGNAL, 3L);
        counts.put(InstanceStatus.DONE, 7L);

        String written = json.writeValueAsString(counts);

        assertThat(written).isEqualTo("{\"awaiting_signal\":3,\"done\":7}");
        assertThat(json.readValue(written, new TypeReference<Map<InstanceStatus, Long>>() { })).isEqualTo(counts);
    }

    @Test
    void anUnknownSpellingIsRefusedNamingTheLabelsThereAre() {
        assertThatThrownBy(() -> InstanceStatus.fromLabel("AWAITING_SIGNAL"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Unknown instance status 'AWAITING_SIGNAL'; statuses are runnable, executing,"
                        + " awaiting_signal, suspended, done, failed, cancelled");
        assertThatThrownBy(() -> json.readValue("\"RUNNABLE\"", InstanceStatus.class))
                .isInstanceOf(DatabindException.class)
                .hasMessageContaining("Unknown instance status 'RUNNABLE'");
    }
}
