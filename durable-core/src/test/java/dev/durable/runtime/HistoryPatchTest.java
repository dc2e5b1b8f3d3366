package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.HistoryEntry;
import dev.durable.HistoryEntry.Event;
import dev.durable.Outcome;
import dev.durable.StatePatch;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * What each transition changed (docs/DESIGN.md, "History", patches): every history entry of a transition that changed
 * the state holds the RFC 6902 patch from the stored state before it to the one it wrote, so the first state and the
 * patches rebuild the stored state at every transition; a step that changes nothing records none; a patch over the
 * limit is cut with a marker and breaks nothing; an upcast's patch is recorded as the upcast's.
 */
class HistoryPatchTest {

    record Address(String street, String city) {
    }

    record Line(String sku, int quantity, @Nullable String note) {
    }

    record Order(String customer, @Nullable Address address, List<Line> lines, Map<String, String> notes,
            @Nullable Integer discount, double total) {
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    /** The state as stored when each run of a step began, in the order the runs began. */
    private final List<String> seen = Collections.synchronizedList(new ArrayList<>());

    private static final Order FIRST = new Order("ann", new Address("1 High St", "Leeds"),
            List.of(new Line("a", 1, null), new Line("b", 2, "gift")), Map.of("a", "x"), null, 12.5);

    /**
     * price (nested change, an element added, a null set) -> edit (retried once with a change: an element removed
     * from the middle, a key removed and an odd one added; then parks with another change: an object becomes null;
     * woken, goes on with a change of the root's scalars) -> idle (changes nothing) -> reorder (an array reversed,
     * null back to an object, a value back to null, text outside ASCII) -> finish (done).
     */
    private MachineDefinition orders() {
        return MachineDefinition.builder("order", 1, Order.class)
                .initialStep("price")
                .step("price", (order, ctx) -> {
                    seen.add(stored(ctx.instanceId()));
                    List<Line> lines = new ArrayList<>(order.lines());
                    lines.add(new Line("c", 3, null));
                    return Outcome.next("edit", new Order(order.customer(), new Address(order.address().street(),
                            "York"), lines, order.notes(), 5, 1.0E10));
                })
                .step("edit", (order, ctx) -> {
                    seen.add(stored(ctx.instanceId()));
                    if (ctx.attempt() == 0) {
                        List<Line> lines = new ArrayList<>(order.lines());
                        lines.remove(1);
                        Map<String, String> notes = new LinkedHashMap<>();
                        notes.put("b/c~d", "odd");
                        return Outcome.retry(new Order(order.customer(), order.address(), lines, notes,
                                order.discount(), order.total()), Duration.ZERO);
                    }
                    if (ctx.awaited("go").isEmpty()) {
                        return Outcome.await("go", new Order(order.customer(), null, order.lines(), order.notes(),
                                order.discount(), order.total()));
                    }
                    return Outcome.next("idle", new Order("bob", null, order.lines(), order.notes(),
                            order.discount(), 0.1));
                })
                .step("idle", (order, ctx) -> {
                    seen.add(stored(ctx.instanceId()));
                    return Outcome.next("reorder", order);
                })
                .step("reorder", (order, ctx) -> {
                    seen.add(stored(ctx.instanceId()));
                    List<Line> lines = new ArrayList<>(order.lines());
                    Collections.reverse(lines);
                    return Outcome.next("finish", new Order("bøb ☃", new Address("2 Low St", "Hull"), lines,
                            Map.of(), null, 0.1));
                })
                .step("finish", (order, ctx) -> {
                    seen.add(stored(ctx.instanceId()));
                    return Outcome.done("ok");
                })
                .build();
    }

    @ParameterizedTest(name = "inline next steps: {0}")
    @ValueSource(booleans = {false, true})
    void replayingThePatchesFromTheFirstStateRebuildsTheStoredStateAtEveryTransition(boolean inline) {
        DurableClient client = engines.start("patches", settings -> settings.inlineNextSteps(inline), orders())
                .client();
        long id = client.start("order", FIRST).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        client.signal(id, "go", null).orThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));

        List<HistoryEntry> history = client.history(id);
        assertThat(history).extracting(HistoryEntry::step, HistoryEntry::event).containsExactly(
                tuple("price", Event.NEXT), tuple("edit", Event.RETRY), tuple("edit", Event.AWAIT),
                tuple("edit", Event.NEXT), tuple("idle", Event.NEXT), tuple("reorder", Event.NEXT),
                tuple("finish", Event.DONE));
        // The stored state after each transition: what the next run found, then the row as it ended.
        List<String> stored = new ArrayList<>(seen);
        stored.add(stored(id));
        assertThat(stored).hasSize(history.size() + 1);
        JsonNode first = JSON.readTree(stored.get(0));
        assertThat(sameJson(JSON.writeValueAsString(FIRST), stored.get(0))).isTrue();
        for (int k = 0; k < history.size(); k++) {
            JsonNode rebuilt = StatePatch.replay(first, history.subList(0, k + 1));
            assertThat(sameJson(rebuilt.toString(), stored.get(k + 1)))
                    .as("after entry %d (%s %s): rebuilt %s, stored %s", k, history.get(k).step(),
                            history.get(k).event(), rebuilt, stored.get(k + 1))
                    .isTrue();
        }
        // What each changed, path by path (values read back in jsonb's order of keys); a step that returned its state
        // unchanged, and done, record none. 1.0E10 is stored as 10000000000, and the retry's state, which keeps it,
        // does not count it as a change.
        assertThat(ops(history.get(0))).containsExactlyInAnyOrder("replace /address/city \"York\"", "add /lines/2 "
                + "{\"sku\":\"c\",\"note\":null,\"quantity\":3}", "replace /discount 5",
                "replace /total 10000000000");
        assertThat(ops(history.get(1))).containsExactlyInAnyOrder("remove /lines/1", "remove /notes/a",
                "add /notes/b~1c~0d \"odd\"");
        assertThat(ops(history.get(2))).containsExactly("replace /address null");
        assertThat(history.get(4).patch()).isNull();
        assertThat(history.get(6).patch()).isNull();
        assertThat(history).allSatisfy(entry -> assertThat(entry.upcastPatch()).isNull());
    }

    @Test
    void aPatchOverTheLimitKeepsWhatFitsAndEndsWithTheMarkerAndNothingElseBreaks() {
        int limit = 512;
        MachineDefinition bulky = MachineDefinition.builder("bulky", 1, Order.class)
                .initialStep("grow")
                .step("grow", (order, ctx) -> Outcome.next("touch", new Order(order.customer(), order.address(),
                        IntStream.range(0, 40).mapToObj(k -> new Line("sku-" + k, k, "n".repeat(30))).toList(),
                        order.notes(), order.discount(), order.total())))
                .step("touch", (order, ctx) -> Outcome.next("end", new Order("cat", order.address(), order.lines(),
                        order.notes(), order.discount(), order.total())))
                .step("end", (order, ctx) -> Outcome.done("ok"))
                .build();
        DurableClient client = engines.start("capped", settings -> settings.historyPatchMaxBytes(limit), bulky)
                .client();
        long id = client.start("bulky", FIRST).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));

        List<HistoryEntry> history = client.history(id);
        StatePatch cut = history.get(0).patch();
        assertThat(cut).isNotNull();
        assertThat(cut.cut()).isTrue();
        // The 2 lines there were changed in place (3 replaces each), 38 added: 44 operations, far over the limit.
        assertThat(cut.cutCount()).isEqualTo(44);
        assertThat(cut.cutBytes()).isGreaterThan(limit);
        assertThat(cut.operations()).isNotEmpty().hasSizeLessThan(44);
        String written = TestDatabase.jdbc().queryForObject("SELECT patch::text FROM " + TestDatabase.SCHEMA
                + ".durable_history WHERE id = ?", String.class, history.get(0).id());
        JsonNode marker = JSON.readTree(written).get(cut.operations().size());
        assertThat(marker.path("op").asString()).isEqualTo(StatePatch.CUT);
        assertThat(JSON.writeValueAsString(cut.toJson()).getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .hasSizeLessThanOrEqualTo(limit);
        // The next, small change is whole; the instance ran to its end.
        assertThat(ops(history.get(1))).containsExactly("replace /customer \"cat\"");
        assertThat(history.get(1).patch().cut()).isFalse();
        assertThat(client.find(id).orElseThrow().resultJson()).isEqualTo("\"ok\"");
        // The state after a cut patch cannot be rebuilt, and the replay says where; before it, it can.
        JsonNode first = JSON.readTree(JSON.writeValueAsString(FIRST));
        assertThat(StatePatch.replay(first, List.of())).isEqualTo(first);
        assertThatThrownBy(() -> StatePatch.replay(first, history))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("history entry " + history.get(0).id())
                .hasMessageContaining("was cut at the size limit");
        assertThatThrownBy(() -> cut.applyTo(first)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void withPatchesOffTheHistoryIsRecordedWithoutThem() {
        DurableClient client = engines.start("no-patches", settings -> settings.historyPatchMaxBytes(0), orders())
                .client();
        long id = client.start("order", FIRST).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));

        assertThat(client.history(id)).hasSize(3).allSatisfy(entry -> assertThat(entry.patch()).isNull());
    }

    @Test
    void aLimitBelowTheMarkersRoomIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> EngineSettings.builder().historyPatchMaxBytes(100).build())
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("history.patchMaxBytes")
                .hasMessageContaining("must be 0 (no patches) or at least 128, was 100");
    }

    // ------------------------------------------------------------------ upcasts

    record ParcelV1(String name, int grams) {
    }

    record ParcelV2(String first, String last, int grams, String tier) {
    }

    /**
     * A row stored by version 1 and upcast by version 2 (the name split, a tier added) records the upcast's patch as
     * the upcast's, beside the step's own; the first state and both rebuild the stored state.
     */
    @Test
    void anUpcastThatChangesTheStateRecordsItsPatchAsTheUpcasts() {
        MachineDefinition version1 = MachineDefinition.builder("parcel", 1, ParcelV1.class)
                .initialStep("wait")
                .step("wait", (parcel, ctx) -> ctx.awaited("go").isPresent() ? Outcome.next("send", parcel)
                        : Outcome.await("go", parcel))
                .step("send", (parcel, ctx) -> Outcome.done("sent"))
                .build();
        MachineDefinition version2 = MachineDefinition.builder("parcel", 2, ParcelV2.class)
                .initialStep("wait")
                .step("wait", (parcel, ctx) -> {
                    seen.add(stored(ctx.instanceId()));
                    return Outcome.next("send", new ParcelV2(parcel.first(), parcel.last(), parcel.grams() + 1,
                            parcel.tier()));
                })
                .step("send", (parcel, ctx) -> Outcome.done("sent"))
                .upcaster(1, stored -> {
                    ObjectNode parcel = (ObjectNode) stored;
                    String[] name = parcel.remove("name").asString().split(" ", 2);
                    return parcel.put("first", name[0]).put("last", name[1]).put("tier", "gold");
                })
                .build();
        DurableEngine old = engines.start("old", UnaryOperator.identity(), version1);
        long id = old.client().start("parcel", new ParcelV1("Ada Lovelace", 1500)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        String first = stored(id);
        old.close();
        DurableClient client = engines.start("current", UnaryOperator.identity(), version2).client();

        client.signal(id, "go", null).orThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));

        List<HistoryEntry> history = client.history(id);
        assertThat(history).extracting(HistoryEntry::step, HistoryEntry::event).containsExactly(
                tuple("wait", Event.AWAIT), tuple("wait", Event.NEXT), tuple("send", Event.DONE));
        HistoryEntry upcast = history.get(1);
        assertThat(upcast.upcastPatch()).isNotNull();
        assertThat(upcast.upcastPatch().operations()).extracting(op -> op.path("op").asString() + " "
                + op.path("path").asString()).containsExactly("remove /name", "add /first", "add /last", "add /tier");
        assertThat(ops(upcast)).containsExactly("replace /grams 1501");
        // The upcast lived in memory until the step's commit: the step's run found the row as version 1 stored it.
        assertThat(sameJson(seen.get(0), first)).isTrue();
        assertThat(sameJson(upcast.upcastPatch().applyTo(JSON.readTree(first)).toString(),
                "{\"first\":\"Ada\",\"last\":\"Lovelace\",\"grams\":1500,\"tier\":\"gold\"}")).isTrue();
        // The first state and the patches, the upcast's first, rebuild the state stored since.
        assertThat(sameJson(StatePatch.replay(JSON.readTree(first), history).toString(), stored(id))).isTrue();
        assertThat(history.get(0).upcastPatch()).isNull();
        assertThat(history.get(2).upcastPatch()).isNull();
        assertThat(history.get(2).patch()).isNull();
    }

    private static List<String> ops(HistoryEntry entry) {
        assertThat(entry.patch()).as("the patch of %s", entry).isNotNull();
        return entry.patch().operations().stream().map(op -> op.path("op").asString() + " " + op.path("path")
                .asString() + (!op.has("value") ? "" : op.get("value").isNumber()
                        ? " " + op.get("value").decimalValue().stripTrailingZeros().toPlainString()
                        : " " + op.get("value"))).toList();
    }

    private static String stored(long id) {
        return TestDatabase.jdbc().queryForObject("SELECT state::text FROM " + TestDatabase.SCHEMA
                + ".durable_instance WHERE id = ?", String.class, id);
    }

    /** Whether PostgreSQL holds the two texts for the same JSON (numbers by value, keys in any order). */
    private static boolean sameJson(String a, String b) {
        return Boolean.TRUE.equals(TestDatabase.jdbc().queryForObject("SELECT ?::jsonb = ?::jsonb", Boolean.class,
                a, b));
    }
}
