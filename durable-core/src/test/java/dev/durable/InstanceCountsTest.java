package dev.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The reasons an instance waits for have one spelling outside Java, and each belongs to one status; the live counts
 * add up by queue, machine, reason and status (docs/DESIGN.md, "Counting instances").
 */
class InstanceCountsTest {

    private final JsonMapper json = JsonMapper.builder().build();

    @Test
    void aReasonIsSpelledByItsLabelAndBelongsToOneStatusOfAnInstanceThatHasNotEndedOrFailed() {
        assertThat(Arrays.stream(WaitReason.values()).map(WaitReason::label)).containsExactly("ready", "timer",
                "executing", "signal", "deadline", "children", "suspended", "failed");
        for (WaitReason reason : WaitReason.values()) {
            assertThat(reason).hasToString(reason.label());
            assertThat(json.writeValueAsString(reason)).isEqualTo("\"" + reason.label() + "\"");
            assertThat(json.readValue("\"" + reason.label() + "\"", WaitReason.class)).isEqualTo(reason);
            assertThat(reason.status().isTerminal()).isEqualTo(reason == WaitReason.FAILED);
        }
        // Every status but done and cancelled has reasons; the refined ones have several.
        assertThat(Arrays.stream(WaitReason.values()).collect(Collectors.groupingBy(WaitReason::status,
                Collectors.counting()))).containsExactlyInAnyOrderEntriesOf(Map.of(InstanceStatus.RUNNABLE, 2L,
                        InstanceStatus.EXECUTING, 1L, InstanceStatus.AWAITING_SIGNAL, 3L, InstanceStatus.SUSPENDED, 1L,
                        InstanceStatus.FAILED, 1L));
        assertThatThrownBy(() -> WaitReason.fromLabel("TIMER")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Unknown wait reason 'TIMER'; reasons are ready, timer, executing, signal, deadline,"
                        + " children, suspended, failed");
    }

    @Test
    void countsAddUpByQueueMachineReasonAndStatus() {
        InstanceCounts counts = new InstanceCounts(List.of(
                new InstanceCounts.Group("orders", "reserve-line", 1, Map.of(WaitReason.READY, 4L), null, 0),
                new InstanceCounts.Group("orders", "order", 2, Map.of(WaitReason.CHILDREN, 3L,
                        WaitReason.DEADLINE, 2L, WaitReason.TIMER, 1L), Duration.ofSeconds(5), 0),
                new InstanceCounts.Group("default", "report", 1, Map.of(WaitReason.READY, 1L,
                        WaitReason.EXECUTING, 2L), Duration.ofSeconds(9), 1)));

        assertThat(counts.groups()).extracting(InstanceCounts.Group::machine)
                .containsExactly("report", "order", "reserve-line");
        assertThat(counts.groups().get(1).counts()).hasSize(WaitReason.values().length)
                .containsEntry(WaitReason.SIGNAL, 0L);
        assertThat(counts.queues()).containsExactly("default", "orders");
        assertThat(counts.total()).isEqualTo(13);
        assertThat(counts.count(WaitReason.READY)).isEqualTo(5);
        assertThat(counts.count(InstanceStatus.AWAITING_SIGNAL)).isEqualTo(5);
        assertThat(counts.count(InstanceStatus.RUNNABLE)).isEqualTo(6);
        assertThat(counts.queue("orders").machine("order").count(InstanceStatus.RUNNABLE)).isEqualTo(1);
        assertThat(counts.machine("order", 1).groups()).isEmpty();
        assertThat(counts.queue("orders").byReason()).containsEntry(WaitReason.READY, 4L)
                .containsEntry(WaitReason.CHILDREN, 3L).containsEntry(WaitReason.FAILED, 0L);
        assertThat(counts.oldestReadyAge()).isEqualTo(Duration.ofSeconds(9));
        assertThat(counts.queue("orders").oldestReadyAge()).isEqualTo(Duration.ofSeconds(5));
        assertThat(counts.queue("nowhere").oldestReadyAge()).isNull();
        assertThat(counts.expiredLeases()).isOne();
    }

    @Test
    void doneAndCancelledAreNotCountedAndSaySo() {
        InstanceCounts counts = new InstanceCounts(List.of());

        for (InstanceStatus ended : List.of(InstanceStatus.DONE, InstanceStatus.CANCELLED)) {
            assertThatThrownBy(() -> counts.count(ended)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("The live counts hold no " + ended + " instances: count them with"
                            + " DurableClient.count(InstanceQuery), which reads every instance the query selects");
        }
        assertThat(counts.count(InstanceStatus.FAILED)).isZero();
    }
}
