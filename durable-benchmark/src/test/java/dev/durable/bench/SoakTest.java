package dev.durable.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SoakTest {

    @Test
    void theSharesCoverEveryDrawOnce() {
        int[] drawn = new int[Soak.MACHINES.length];
        for (int draw = 0; draw < 100; draw++) {
            drawn[Soak.machineOf(draw)]++;
        }
        assertThat(drawn).containsExactly(Soak.SHARES);
        assertThatThrownBy(() -> Soak.machineOf(100)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0 to 99");
    }

    @Test
    void stepsPerStartAreTheSharesWeightedSteps() {
        // 0.3 x 1 + 0.2 x 5 + 0.15 x 2 + 0.15 x 2 + 0.1 x 2 + 0.1 x (2 + 3 children)
        assertThat(Soak.STEPS_PER_START).isCloseTo(2.6, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void tableSettingsAreParsedTableByTable() {
        assertThat(Soak.tableSettings("")).isEmpty();
        assertThat(Soak.tableSettings(
                "durable_instance:fillfactor=70, autovacuum_vacuum_scale_factor=0.02;durable_signal:fillfactor=80"))
                .isEqualTo(Map.of("durable_instance", "fillfactor = 70, autovacuum_vacuum_scale_factor = 0.02",
                        "durable_signal", "fillfactor = 80"));
    }

    @Test
    void malformedTableSettingsAreRefusedNamingThePart() {
        assertThatThrownBy(() -> Soak.tableSettings("fillfactor=70"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"fillfactor=70\"");
        assertThatThrownBy(() -> Soak.tableSettings("durable_instance:fillfactor"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"fillfactor\" of table");
        assertThatThrownBy(() -> Soak.tableSettings("durable_instance:fillfactor=70); DROP TABLE x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not name=value");
    }
}
