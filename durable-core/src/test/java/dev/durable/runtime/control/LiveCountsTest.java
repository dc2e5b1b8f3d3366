package dev.durable.runtime.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.Child;
import dev.durable.DurableClient;
import dev.durable.InstanceCounts;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.QueueSummary;
import dev.durable.StartOptions;
import dev.durable.WaitReason;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.DurableEngine;
import dev.durable.runtime.QueueSettings;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The live counts against the rows (docs/DESIGN.md, "Counting instances"): a running engine leaves instances in every
 * reason, orders and their lines on one queue, and {@code countLive()} finds each of them under its machine and reason,
 * group by group as a plain count of the rows classifies them; {@code summarizeLive()} is the same per queue;
 * {@code count(InstanceQuery)} counts a machine's instances, ended ones too, without its children.
 */
class LiveCountsTest {

    /** What an order does at its first step, and how many lines it has. */
    record Order(String mode, int lines) {
    }

    record Line(int n) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final CountDownLatch blocked = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void releaseTheBlockedStep() {
        release.countDown();
    }

    /** An order: each mode leaves it in one reason. Its lines run on its queue and wait for a signal. */
    private MachineDefinition order() {
        return MachineDefinition.builder("order", 1, Order.class)
                .queue("orders")
                .initialStep("reserve")
                .step("reserve", (order, ctx) -> switch (order.mode()) {
                    case "join" -> Outcome.awaitChildren(order).startingChildren(lines(order));
                    case "join-with-deadline" -> Outcome.awaitChildren(order, Outcome.Join.ALL, Duration.ofHours(1))
                            .startingChildren(lines(order));
                    case "pay" -> Outcome.await("payment", order, Duration.ofHours(1));
                    case "wait" -> Outcome.awaitAny(List.of("payment", "withdrawn"), order);
                    case "later" -> Outcome.next("reserve", new Order("done", 0), Duration.ofHours(1));
                    case "back-off" -> Outcome.retry(order, Duration.ofHours(1));
                    case "block" -> {
                        blocked.countDown();
                        release.await();
                        yield Outcome.done();
                    }
                    case "stop" -> Outcome.stop("out of stock");
                    default -> Outcome.done();
                })
                .build();
    }

    private static List<Child> lines(Order order) {
        return java.util.stream.IntStream.range(0, order.lines()).mapToObj(n -> Child.of("order-line", new Line(n)))
                .toList();
    }

    private static MachineDefinition line() {
        return MachineDefinition.builder("order-line", 1, Line.class)
                .queue("orders")
                .step("reserve", (line, ctx) -> ctx.awaited("stock").isPresent() ? Outcome.done()
                        : Outcome.await("stock", line))
                .build();
    }

    /** A machine on a queue this node does not work: its instances stay ready. */
    private static MachineDefinition report() {
        return MachineDefinition.builder("report", 1, Line.class)
                .queue("reports")
                .step("write", (line, ctx) -> Outcome.done())
                .build();
    }

    @Test
    void everyInstanceIsCountedOnceUnderItsMachineAndReasonAsItsRowSays() throws Exception {
        DurableEngine engine = engines.start("counter", settings -> settings.queue("reports", new QueueSettings(0, 1)),
                order(), line(), report());
        DurableClient client = engine.client();
        start(client, "join", 3);
        start(client, "join", 2);
        start(client, "join-with-deadline", 2);
        for (String mode : List.of("pay", "pay", "wait", "later", "back-off", "stop", "done", "block")) {
            start(client, mode, 0);
        }
        for (int i = 0; i < 4; i++) {
            client.start("report", new Line(i));
        }
        // A row stored by earlier code with a property the order no longer has: suspended when picked.
        TestDatabase.jdbc().update("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance"
                + " (machine, machine_version, step, state, queue) VALUES ('order', 1, 'reserve',"
                + " '{\"mode\": \"done\", \"lines\": 0, \"legacy\": true}', 'orders')");
        engine.wake("orders");
        assertThat(blocked.await(20, TimeUnit.SECONDS)).isTrue();
        // Every order and line has settled where its mode leaves it: 7 lines parked; 6 orders parked, 1 failed, 1 done;
        // 2 waiting on timers and the suspended one at 'infinity'.
        await().atMost(Duration.ofSeconds(20)).until(() -> rows("machine = 'order-line' AND status = 'awaiting_signal'")
                == 7 && rows("machine = 'order' AND status IN ('awaiting_signal', 'failed', 'done')") == 8
                && rows("machine = 'order' AND status = 'runnable' AND eligible_at > now()") == 3);

        InstanceCounts counts = client.countLive();

        // Group by group and reason, as a plain count of the rows classifies them.
        assertThat(asMap(counts)).isEqualTo(countedFromTheRows());
        // And what that is: the orders and their lines apart on the one queue.
        InstanceCounts orders = counts.machine("order");
        assertThat(orders.byReason()).containsExactlyInAnyOrderEntriesOf(reasons(Map.of(WaitReason.CHILDREN, 3L,
                WaitReason.DEADLINE, 2L, WaitReason.SIGNAL, 1L, WaitReason.TIMER, 2L, WaitReason.EXECUTING, 1L,
                WaitReason.SUSPENDED, 1L, WaitReason.FAILED, 1L)));
        assertThat(counts.machine("order-line").byReason()).containsExactlyInAnyOrderEntriesOf(
                reasons(Map.of(WaitReason.SIGNAL, 7L)));
        assertThat(counts.machine("report").byReason()).containsExactlyInAnyOrderEntriesOf(
                reasons(Map.of(WaitReason.READY, 4L)));
        assertThat(counts.queue("orders").count(InstanceStatus.AWAITING_SIGNAL)).isEqualTo(3 + 2 + 1 + 7);
        assertThat(counts.queues()).containsExactly("orders", "reports");
        assertThat(counts.queue("reports").oldestReadyAge()).isNotNull();
        assertThat(counts.queue("orders").expiredLeases()).isZero();

        // The live summary is the same statement summed per queue.
        for (QueueSummary summary : client.summarizeLive()) {
            InstanceCounts queue = counts.queue(summary.queue());
            for (InstanceStatus status : List.of(InstanceStatus.RUNNABLE, InstanceStatus.EXECUTING,
                    InstanceStatus.AWAITING_SIGNAL, InstanceStatus.SUSPENDED, InstanceStatus.FAILED)) {
                assertThat(summary.count(status)).as(summary.queue() + " " + status).isEqualTo(queue.count(status));
            }
        }

        // Every order, ended ones too, and none of its lines; the queue's count adds both up.
        assertThat(client.count(InstanceQuery.all().machine("order"))).isEqualTo(byStatus("machine = 'order'"))
                .containsEntry(InstanceStatus.DONE, 1L).containsEntry(InstanceStatus.SUSPENDED, 1L);
        assertThat(client.count().get("orders").get(InstanceStatus.AWAITING_SIGNAL)).isEqualTo(13);
        assertThat(client.count(InstanceQuery.all().machine("order").status(InstanceStatus.AWAITING_SIGNAL)))
                .containsEntry(InstanceStatus.AWAITING_SIGNAL, 6L).containsEntry(InstanceStatus.DONE, 0L);
    }

    private static long start(DurableClient client, String mode, int lines) {
        return client.start("order", new Order(mode, lines), StartOptions.defaults()).id();
    }

    private static long rows(String where) {
        return TestDatabase.jdbc().queryForObject("SELECT count(*) FROM " + TestDatabase.SCHEMA
                + ".durable_instance WHERE " + where, Long.class);
    }

    private static Map<WaitReason, Long> reasons(Map<WaitReason, Long> some) {
        Map<WaitReason, Long> every = new EnumMap<>(WaitReason.class);
        for (WaitReason reason : WaitReason.values()) {
            every.put(reason, some.getOrDefault(reason, 0L));
        }
        return every;
    }

    /** "queue machine vversion reason" to the count, of the groups' non-zero reasons. */
    private static Map<String, Long> asMap(InstanceCounts counts) {
        Map<String, Long> map = new TreeMap<>();
        for (InstanceCounts.Group group : counts.groups()) {
            group.counts().forEach((reason, n) -> {
                if (n != 0) {
                    map.put(group.queue() + " " + group.machine() + " v" + group.version() + " " + reason, n);
                }
            });
        }
        return map;
    }

    /** The same, classified from the rows' own columns by the definitions of docs/DESIGN.md, "Counting instances". */
    private static Map<String, Long> countedFromTheRows() {
        Map<String, Long> map = new TreeMap<>();
        TestDatabase.jdbc().query("""
                SELECT queue || ' ' || machine || ' v' || machine_version || ' ' ||
                       CASE WHEN status = 'runnable' AND suspension IS NOT NULL THEN 'suspended'
                            WHEN status = 'runnable' AND eligible_at <= now() THEN 'ready'
                            WHEN status = 'runnable' THEN 'timer'
                            WHEN status = 'executing' THEN 'executing'
                            WHEN status = 'awaiting_signal' AND awaits_children IS NOT NULL THEN 'children'
                            WHEN status = 'awaiting_signal' AND deadline IS NOT NULL THEN 'deadline'
                            WHEN status = 'awaiting_signal' THEN 'signal'
                            WHEN status = 'failed' THEN 'failed' END AS key,
                       count(*) AS n
                FROM %s.durable_instance
                WHERE status NOT IN ('done', 'cancelled')
                GROUP BY 1
                """.formatted(TestDatabase.SCHEMA), rs -> {
                    map.put(rs.getString("key"), rs.getLong("n"));
                });
        return map;
    }

    private static Map<InstanceStatus, Long> byStatus(String where) {
        Map<InstanceStatus, Long> counts = new EnumMap<>(InstanceStatus.class);
        for (InstanceStatus status : InstanceStatus.values()) {
            counts.put(status, 0L);
        }
        TestDatabase.jdbc().query("SELECT CASE WHEN status = 'runnable' AND suspension IS NOT NULL THEN 'suspended'"
                + " ELSE status::text END AS status, count(*) AS n FROM " + TestDatabase.SCHEMA
                + ".durable_instance WHERE " + where + " GROUP BY 1", rs -> {
                    counts.put(InstanceStatus.fromLabel(rs.getString("status")), rs.getLong("n"));
                });
        return counts;
    }
}
