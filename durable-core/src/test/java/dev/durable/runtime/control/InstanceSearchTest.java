package dev.durable.runtime.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.StartOptions;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Listing and searching instances (docs/DESIGN.md, "Finding instances"): each criterion of an {@link InstanceQuery}
 * selects exactly the instances that meet it, criteria combine, and keyset pages in either order cover every match
 * once. Bad criteria are refused as the query is built ({@code InstanceQueryTest}); the plans on a large table are in
 * {@code QueryPlanTest}.
 */
class InstanceSearchTest {

    record Order(String item) {
    }

    private static final Instant MONDAY = Instant.parse("2026-11-23T00:00:00Z");
    private static final Instant TUESDAY = Instant.parse("2026-11-24T00:00:00Z");
    private static final Instant WEDNESDAY = Instant.parse("2026-11-25T00:00:00Z");

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private DurableClient client;

    private static MachineDefinition orders(int version) {
        return MachineDefinition.builder("orders", version, Order.class)
                .initialStep("reserve")
                .step("reserve", (order, ctx) -> Outcome.next("ship", order))
                .step("ship", (order, ctx) -> Outcome.done("shipped"))
                .build();
    }

    private static MachineDefinition invoices() {
        return MachineDefinition.builder("invoices", 1, Order.class)
                .queue("billing")
                .step("bill", (order, ctx) -> Outcome.done("billed"))
                .build();
    }

    @BeforeEach
    void client() {
        client = engines.clientOnly(orders(1), orders(2), invoices());
    }

    /**
     * The instances, as an operator would find them: an order that ended done and let go of its key, the order that
     * holds that key now, a failed shipment, a cancelled order, and an invoice on another queue.
     */
    @Test
    void eachCriterionSelectsExactlyTheInstancesThatMeetIt() {
        long endedOrder = start("orders", 1, StartOptions.defaults().uniqueKey("order-1").correlationKey("cust-1"));
        arrange(endedOrder, "done", "ship", null, MONDAY, MONDAY);
        long order = start("orders", 1, StartOptions.defaults().uniqueKey("order-1").correlationKey("cust-1"));
        arrange(order, "runnable", "reserve", null, TUESDAY, TUESDAY);
        long failed = start("orders", 2, StartOptions.defaults().uniqueKey("order-2").correlationKey("cust-2"));
        arrange(failed, "failed", "ship", "java.io.IOException: Carrier DOWN (50%_off label)", TUESDAY, WEDNESDAY);
        long cancelled = start("orders", 2, StartOptions.defaults().correlationKey("cust-1"));
        arrange(cancelled, "cancelled", "reserve", "customer withdrew", MONDAY, WEDNESDAY);
        long invoice = start("invoices", 1, StartOptions.defaults().correlationKey("cust-1"));
        arrange(invoice, "awaiting_signal", "bill", null, WEDNESDAY, WEDNESDAY);

        assertThat(ids(InstanceQuery.all())).containsExactly(endedOrder, order, failed, cancelled, invoice);
        assertThat(ids(InstanceQuery.all().machine("orders"))).containsExactly(endedOrder, order, failed, cancelled);
        assertThat(ids(InstanceQuery.all().machine("orders").version(2))).containsExactly(failed, cancelled);
        assertThat(ids(InstanceQuery.all().version(1))).containsExactly(endedOrder, order, invoice);
        assertThat(ids(InstanceQuery.all().step("ship"))).containsExactly(endedOrder, failed);
        assertThat(ids(InstanceQuery.all().queue("billing"))).containsExactly(invoice);
        assertThat(ids(InstanceQuery.all().status(InstanceStatus.FAILED))).containsExactly(failed);
        assertThat(ids(InstanceQuery.all().statuses(List.of(InstanceStatus.CANCELLED, InstanceStatus.DONE))))
                .containsExactly(endedOrder, cancelled);
        assertThat(ids(InstanceQuery.all().statuses(InstanceStatus.ACTIVE))).containsExactly(order, invoice);
        // Every instance that carried the key, the ended one too; only one holds it.
        List<DurableInstance> carried = client.list(InstanceQuery.all().uniqueKey("order-1"));
        assertThat(carried).extracting(DurableInstance::id).containsExactly(endedOrder, order);
        assertThat(carried).extracting(DurableInstance::holdsUniqueKey).containsExactly(false, true);
        assertThat(ids(InstanceQuery.all().correlationKey("cust-1")))
                .containsExactly(endedOrder, order, cancelled, invoice);
        assertThat(client.find(invoice).orElseThrow().correlationKey()).isEqualTo("cust-1");
        assertThat(ids(InstanceQuery.all().createdFrom(TUESDAY))).containsExactly(order, failed, invoice);
        assertThat(ids(InstanceQuery.all().createdBefore(TUESDAY))).containsExactly(endedOrder, cancelled);
        assertThat(ids(InstanceQuery.all().createdFrom(TUESDAY).createdBefore(WEDNESDAY)))
                .containsExactly(order, failed);
        assertThat(ids(InstanceQuery.all().updatedFrom(WEDNESDAY))).containsExactly(failed, cancelled, invoice);
        assertThat(ids(InstanceQuery.all().updatedBefore(WEDNESDAY))).containsExactly(endedOrder, order);
        // The error text is a substring, whatever its case, with no pattern characters: % and _ are just text.
        assertThat(ids(InstanceQuery.all().errorContains("carrier down"))).containsExactly(failed);
        assertThat(ids(InstanceQuery.all().errorContains("50%_OFF"))).containsExactly(failed);
        assertThat(ids(InstanceQuery.all().errorContains("%"))).containsExactly(failed);
        assertThat(ids(InstanceQuery.all().errorContains("withdrew"))).containsExactly(cancelled);
        // Criteria combine: all must be met.
        assertThat(ids(InstanceQuery.all().correlationKey("cust-1").machine("orders").status(InstanceStatus.DONE)
                .createdBefore(TUESDAY))).containsExactly(endedOrder);
        assertThat(ids(InstanceQuery.all().uniqueKey("order-2").status(InstanceStatus.DONE))).isEmpty();
        assertThat(ids(InstanceQuery.all().uniqueKey("order-404"))).isEmpty();
    }

    @Test
    void keysetPagesInEitherOrderCoverEveryMatchOnce() {
        List<Long> started = LongStream.range(0, 25)
                .map(i -> start(i % 5 == 0 ? "invoices" : "orders", 1, StartOptions.defaults())).boxed().toList();
        List<Long> orders = started.stream().filter(id -> !client.find(id).orElseThrow().machine().equals("invoices"))
                .toList();

        List<Long> oldestFirst = pages(InstanceQuery.all().machine("orders").limit(7));
        List<Long> newestFirst = pages(InstanceQuery.all().machine("orders").limit(7).newestFirst());

        assertThat(oldestFirst).containsExactlyElementsOf(orders);
        List<Long> reversed = new ArrayList<>(orders);
        Collections.reverse(reversed);
        assertThat(newestFirst).containsExactlyElementsOf(reversed);
        // A page starts after the id it is given, in its order.
        long middle = orders.get(10);
        assertThat(ids(InstanceQuery.all().machine("orders").afterId(middle).limit(2)))
                .containsExactly(orders.get(11), orders.get(12));
        assertThat(ids(InstanceQuery.all().machine("orders").afterId(middle).limit(2).newestFirst()))
                .containsExactly(orders.get(9), orders.get(8));
    }

    /**
     * The two searches and the bulk operations' lock are variants of one text block (docs/DESIGN.md, "Where the SQL
     * lives"): they test the criteria alike, and differ only in their columns, keyset, order and lock.
     */
    @Test
    void theSearchesAndTheBulkLockTestTheSameCriteria() {
        // the statuses (the stored ones, then which runnable rows: suspended or not), eleven optional criteria, the
        // error text's test on two lines, the wait's on three
        assertThat(criteria(SearchRepository.SEARCH)).hasSize(19);
        assertThat(criteria(SearchRepository.SEARCH_NEWEST_FIRST)).isEqualTo(criteria(SearchRepository.SEARCH));
        assertThat(criteria(SearchRepository.LOCK_PAGE)).isEqualTo(criteria(SearchRepository.SEARCH));
    }

    /** The lines of a statement between its keyset test (the WHERE line) and its ORDER BY. */
    private static List<String> criteria(String statement) {
        List<String> lines = statement.lines().map(String::strip).toList();
        int where = lines.indexOf(lines.stream().filter(line -> line.startsWith("WHERE ")).findFirst().orElseThrow());
        int order = lines.indexOf(lines.stream().filter(line -> line.startsWith("ORDER BY")).findFirst().orElseThrow());
        return lines.subList(where + 1, order);
    }

    /** Every page of {@code query}, concatenated, each starting after the last id of the one before. */
    private List<Long> pages(InstanceQuery query) {
        List<Long> all = new ArrayList<>();
        for (List<Long> page = ids(query); !page.isEmpty(); page = ids(query.afterId(page.get(page.size() - 1)))) {
            assertThat(page.size()).isLessThanOrEqualTo(query.limit());
            all.addAll(page);
        }
        return all;
    }

    private List<Long> ids(InstanceQuery query) {
        return client.list(query).stream().map(DurableInstance::id).toList();
    }

    private long start(String machine, int version, StartOptions options) {
        return client.start(machine, new Order("book"), options.version(version)).id();
    }

    /** Puts an instance where a test needs it, as the engine would have left it. */
    private static void arrange(long id, String status, String step, String error, Instant created, Instant updated) {
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance SET status = ?::"
                + TestDatabase.SCHEMA + ".durable_status, step = ?, last_error = ?, created_at = ?, updated_at = ?"
                + " WHERE id = ?", status, step, error, Timestamp.from(created),
                Timestamp.from(updated), id);
    }
}
