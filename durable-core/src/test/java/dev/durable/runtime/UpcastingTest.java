package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.HistoryEntry;
import dev.durable.HistoryEntry.Event;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.StartOptions;
import dev.durable.machine.MachineDefinition;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.LogCapture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.node.ObjectNode;

/**
 * Upcasting (docs/DESIGN.md, "Upcasting"): a node that runs only a machine's current version also picks the rows of
 * the older versions its upcasters reach, upcasts their states through the chain, runs their steps on the current
 * version (under their current names), and the outcome's commit writes the current version into the row. An upcast
 * that fails changes nothing.
 */
class UpcastingTest {

    /** Version 1: one name. */
    record ParcelV1(String id, String name, int grams) {
    }

    /** Version 2: the name split in two. */
    record ParcelV2(String id, String first, String last, int grams) {
    }

    /** Version 3: the weight in kilograms, as text. */
    record Parcel(String id, String first, String last, String kilos) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    @RegisterExtension
    final LogCapture logs = new LogCapture();

    /** Version 1: weigh, then await "picked-up", then send. */
    private static MachineDefinition version1() {
        return MachineDefinition.builder("parcel", 1, ParcelV1.class)
                .initialStep("weigh")
                .step("weigh", (parcel, ctx) -> Outcome.next("wait", parcel))
                .step("wait", (parcel, ctx) -> ctx.awaited("picked-up").isPresent() ? Outcome.next("send", parcel)
                        : Outcome.await("picked-up", parcel))
                .step("send", (parcel, ctx) -> Outcome.done("sent " + parcel.name()))
                .build();
    }

    private static final dev.durable.machine.StateUpcaster SPLIT_NAME = stored -> {
        ObjectNode parcel = (ObjectNode) stored;
        String[] name = parcel.remove("name").asString().split(" ", 2);
        return parcel.put("first", name[0]).put("last", name[1]);
    };

    private static final dev.durable.machine.StateUpcaster GRAMS_TO_KILOS = stored -> {
        ObjectNode parcel = (ObjectNode) stored;
        return parcel.put("kilos", String.valueOf(parcel.remove("grams").asInt() / 1000.0));
    };

    /** Version 2, which only upcasts from version 1; its step 'send' is now 'ship'. */
    private static MachineDefinition version2() {
        return MachineDefinition.builder("parcel", 2, ParcelV2.class)
                .initialStep("weigh")
                .step("weigh", (parcel, ctx) -> Outcome.next("wait", parcel))
                .step("wait", (parcel, ctx) -> ctx.awaited("picked-up").isPresent() ? Outcome.next("ship", parcel)
                        : Outcome.await("picked-up", parcel))
                .step("ship", (parcel, ctx) -> Outcome.done("shipped to " + parcel.first() + " " + parcel.last()
                        + " (v" + ctx.version() + ", " + ctx.step() + ")"))
                .formerStepNames("ship", "send")
                .upcaster(1, SPLIT_NAME)
                .build();
    }

    /** Version 3, which upcasts from versions 1 and 2. */
    private static MachineDefinition version3() {
        return MachineDefinition.builder("parcel", 3, Parcel.class)
                .initialStep("weigh")
                .step("weigh", (parcel, ctx) -> Outcome.next("wait", parcel))
                .step("wait", (parcel, ctx) -> ctx.awaited("picked-up").isPresent() ? Outcome.next("ship", parcel)
                        : Outcome.await("picked-up", parcel))
                .step("ship", (parcel, ctx) -> Outcome.done("shipped " + parcel.kilos() + " kg to " + parcel.first()))
                .formerStepNames("ship", "send")
                .upcaster(1, SPLIT_NAME)
                .upcaster(2, GRAMS_TO_KILOS)
                .build();
    }

    /** Parcels of version 1, parked on their pick-up by a node of version 1 that then stops. */
    private List<Long> parkedOnVersion1(int count) {
        DurableEngine old = engines.start("old", UnaryOperator.identity(), version1());
        List<Long> ids = LongStream.range(0, count).mapToObj(k -> old.client().start("parcel",
                new ParcelV1("p-" + k, "Ada Lovelace", 1500)).id()).toList();
        await().atMost(Duration.ofSeconds(10)).until(() -> ids.stream()
                .allMatch(id -> TestDatabase.status(id).equals("awaiting_signal")));
        old.close();
        return ids;
    }

    private static String stored(long id, String column) {
        return TestDatabase.jdbc().queryForObject("SELECT " + column + "::text FROM durable_it.durable_instance"
                + " WHERE id = ?", String.class, id);
    }

    @Test
    void rowsOfVersion1CompleteOnANodeThatRegistersOnlyVersion2() {
        List<Long> ids = parkedOnVersion1(3);
        DurableEngine current = engines.start("current", UnaryOperator.identity(), version2());
        DurableClient client = current.client();
        ids.forEach(id -> client.signal(id, "picked-up", null, null).orThrow());

        await().atMost(Duration.ofSeconds(10)).until(() -> ids.stream()
                .allMatch(id -> TestDatabase.status(id).equals("done")));

        for (long id : ids) {
            DurableInstance parcel = client.find(id).orElseThrow();
            assertThat(parcel.version()).isEqualTo(2);
            assertThat(parcel.step()).isEqualTo("ship");
            // The state the upcaster made, with every property carried over, as the step left it.
            assertThat(parcel.state(ParcelV2.class)).isEqualTo(new ParcelV2("p-" + (id - ids.get(0)), "Ada",
                    "Lovelace", 1500));
            // The step ran on version 2, as 'ship', and knew it.
            assertThat(parcel.result(String.class)).isEqualTo("shipped to Ada Lovelace (v2, ship)");
            assertThat(client.history(id)).extracting(HistoryEntry::step, HistoryEntry::event,
                    HistoryEntry::nextStep).containsExactly(tuple("weigh", Event.NEXT, "wait"),
                    tuple("wait", Event.AWAIT, null), tuple("wait", Event.NEXT, "ship"),
                    tuple("ship", Event.DONE, null));
        }
        assertThat(current.stats().instancesSuspended()).isZero();
    }

    @Test
    void chainedUpcastersBringVersion1AndVersion2RowsToVersion3() {
        long v1 = parkedOnVersion1(1).get(0);
        DurableEngine middle = engines.start("middle", UnaryOperator.identity(), version2());
        long v2 = middle.client().start("parcel", new ParcelV2("p-2", "Grace", "Hopper", 250)).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(v2).equals("awaiting_signal"));
        middle.close();
        assertThat(stored(v1, "machine_version")).isEqualTo("1");
        assertThat(stored(v2, "machine_version")).isEqualTo("2");

        DurableEngine newest = engines.start("newest", UnaryOperator.identity(), version3());
        List.of(v1, v2).forEach(id -> newest.client().signal(id, "picked-up", null, null).orThrow());

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(v1).equals("done")
                && TestDatabase.status(v2).equals("done"));
        assertThat(newest.client().find(v1).orElseThrow().result(String.class)).isEqualTo("shipped 1.5 kg to Ada");
        assertThat(newest.client().find(v2).orElseThrow().result(String.class)).isEqualTo("shipped 0.25 kg to Grace");
        assertThat(stored(v1, "state")).isEqualTo("{\"id\": \"p-0\", \"last\": \"Lovelace\", \"first\": \"Ada\","
                + " \"kilos\": \"1.5\"}");
        assertThat(stored(v1, "machine_version")).isEqualTo("3");
        assertThat(stored(v2, "machine_version")).isEqualTo("3");
    }

    /** The pick reaches a version only through the upcasters: without them, the rows wait, reported stranded. */
    @Test
    void aNodeWithoutTheUpcasterLeavesOlderRowsStrandedAndOneWithItPicksThemAndDoesNotReportThem() {
        long id = parkedOnVersion1(1).get(0);
        MachineDefinition withoutUpcaster = MachineDefinition.builder("parcel", 2, ParcelV2.class)
                .step("wait", (parcel, ctx) -> Outcome.done()).build();
        DurableEngine plain = engines.start("plain", UnaryOperator.identity(), withoutUpcaster);
        plain.client().signal(id, "picked-up", null, null).orThrow();

        await().atMost(Duration.ofSeconds(10)).until(() -> {
            plain.reapNow();
            return !plain.stranded().isEmpty();
        });
        assertThat(plain.stranded()).singleElement().satisfies(stranded -> {
            assertThat(stranded.machine()).isEqualTo("parcel");
            assertThat(stranded.version()).isEqualTo(1);
        });
        assertThat(TestDatabase.status(id)).isEqualTo("runnable");
        plain.close();

        DurableEngine upcasting = engines.start("upcasting", UnaryOperator.identity(), version2());
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        // Registered as running version 1 too, so no node reports version 1's rows stranded.
        assertThat(TestDatabase.jdbc().queryForList("SELECT machine_version FROM durable_it.durable_node_machine m"
                + " JOIN durable_it.durable_node n ON n.id = m.node_id WHERE n.id = ? ORDER BY 1", Integer.class,
                upcasting.nodeId())).containsExactly(1, 2);
        upcasting.close();
        // A node of the same code that works no slot of the queue: it picks nothing, and reports nothing stranded.
        long another = parkedOnVersion1(1).get(0);
        DurableEngine watcher = engines.start("watcher",
                settings -> settings.queue("default", QueueSettings.concurrency(0)), version2());
        watcher.client().signal(another, "picked-up", null, null).orThrow();
        watcher.reapNow();
        assertThat(TestDatabase.status(another)).isEqualTo("runnable");
        assertThat(watcher.stranded()).isEmpty();
    }

    /** A version still registered runs on its own definition: nothing is upcast or renamed. */
    @Test
    void rowsOfAVersionTheNodeStillRegistersRunOnIt() {
        List<Long> ids = parkedOnVersion1(1);
        DurableEngine both = engines.start("both", UnaryOperator.identity(), version1(), version2());
        both.client().signal(ids.get(0), "picked-up", null, null).orThrow();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(ids.get(0)).equals("done"));
        DurableInstance parcel = both.client().find(ids.get(0)).orElseThrow();
        assertThat(parcel.version()).isEqualTo(1);
        assertThat(parcel.step()).isEqualTo("send");
        assertThat(parcel.result(String.class)).isEqualTo("sent Ada Lovelace");
    }

    /** A row at a former step name runs the step that has it, on its own version: no upcast needed. */
    @Test
    void aRenamedStepRunsUnderItsNewNameOnTheSameVersion() {
        MachineDefinition renamed = MachineDefinition.builder("parcel", 1, ParcelV1.class)
                .initialStep("weigh")
                .step("weigh", (parcel, ctx) -> Outcome.next("wait", parcel))
                .step("wait", (parcel, ctx) -> ctx.awaited("picked-up").isPresent() ? Outcome.retry(parcel,
                        Duration.ZERO) : Outcome.await("picked-up", parcel))
                .step("dispatch", (parcel, ctx) -> ctx.attempt() == 0 ? Outcome.retry(parcel, Duration.ZERO)
                        : Outcome.done(ctx.step() + " " + parcel.name()))
                .formerStepNames("dispatch", "send")
                .build();
        long id = parkedOnVersion1(1).get(0);
        // Stopped at 'send' by the old code (as a node of it would leave a row whose step it moved to).
        TestDatabase.jdbc().update("UPDATE durable_it.durable_instance SET step = 'send', status = 'runnable',"
                + " awaits = NULL WHERE id = ?", id);

        DurableEngine engine = engines.start("renamed", UnaryOperator.identity(), renamed);

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(engine.client().find(id).orElseThrow().result(String.class)).isEqualTo("dispatch Ada Lovelace");
        // The retry's commit already wrote the current name: the history knows the step by it.
        assertThat(engine.client().history(id)).extracting(HistoryEntry::step, HistoryEntry::event).endsWith(
                tuple("dispatch", Event.RETRY), tuple("dispatch", Event.DONE));
        assertThat(stored(id, "step")).isEqualTo("dispatch");
    }

    /** With inline execution, the chain goes on at version 2 on the same claim. */
    @Test
    void anInlineChainGoesOnAtTheUpcastVersion() {
        long id = parkedOnVersion1(1).get(0);
        DurableEngine inline = engines.start("inline", settings -> settings.inlineNextSteps(true), version2());
        inline.client().signal(id, "picked-up", null, null).orThrow();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(inline.client().find(id).orElseThrow().result(String.class))
                .isEqualTo("shipped to Ada Lovelace (v2, ship)");
    }

    /** A terminal outcome keeps the state: the upcast one, at the version it was made for. */
    @Test
    void aTerminalOutcomeAfterAnUpcastWritesTheUpcastStateWithItsVersion() {
        long id = parkedOnVersion1(1).get(0);
        TestDatabase.jdbc().update("UPDATE durable_it.durable_instance SET step = 'send', status = 'runnable',"
                + " awaits = NULL WHERE id = ?", id);

        DurableEngine engine = engines.start("current", UnaryOperator.identity(), version2());

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(stored(id, "machine_version")).isEqualTo("2");
        assertThat(stored(id, "step")).isEqualTo("ship");
        assertThat(engine.client().find(id).orElseThrow().state(ParcelV2.class))
                .isEqualTo(new ParcelV2("p-0", "Ada", "Lovelace", 1500));
    }

    @Test
    void anUpcasterThatThrowsLeavesTheRowAsStoredAndSuspendsItNamingTheMachineVersionAndError() {
        long id = parkedOnVersion1(1).get(0);
        MachineDefinition failing = MachineDefinition.builder("parcel", 2, ParcelV2.class)
                .step("wait", (parcel, ctx) -> Outcome.done())
                .upcaster(1, stored -> {
                    throw new IllegalArgumentException("no surname in '" + stored.get("name").asString() + "'");
                })
                .build();
        DurableEngine engine = engines.start("failing", UnaryOperator.identity(), failing);
        engine.client().signal(id, "picked-up", null, null).orThrow();
        Map<String, Object> before = rowWithoutBookkeeping(id);

        await().atMost(Duration.ofSeconds(10)).until(() -> engine.client().find(id).orElseThrow().status()
                == InstanceStatus.SUSPENDED);

        assertThat(rowWithoutBookkeeping(id)).isEqualTo(before);
        assertThat(stored(id, "machine_version")).isEqualTo("1");
        assertThat(stored(id, "step")).isEqualTo("wait");
        assertThat(stored(id, "state")).isEqualTo("{\"id\": \"p-0\", \"name\": \"Ada Lovelace\", \"grams\": 1500}");
        String reason = engine.client().find(id).orElseThrow().lastError();
        assertThat(reason).isEqualTo("Upcasting the state of parcel v1 to v2 failed: the upcaster from version 1 threw"
                + " java.lang.IllegalArgumentException: no surname in 'Ada Lovelace'; the step was not run, and the"
                + " row's state, version and step are kept as stored");
        // Logged once, with the upcaster's exception.
        List<ILoggingEvent> warnings = logs.events(Level.WARN).stream()
                .filter(event -> event.getFormattedMessage().startsWith("Instance " + id + " ")).toList();
        assertThat(warnings).singleElement().satisfies(warning -> {
            assertThat(warning.getFormattedMessage()).isEqualTo("Instance " + id + " (parcel v1) suspended at step"
                    + " 'wait': " + reason);
            assertThat(warning.getThrowableProxy().getClassName()).isEqualTo(IllegalArgumentException.class.getName());
        });
    }

    @Test
    void anUpcasterThatReturnsWhatTheStateTypeCannotReadSuspendsTheRowAsStored() {
        long id = parkedOnVersion1(1).get(0);
        MachineDefinition unusable = MachineDefinition.builder("parcel", 2, ParcelV2.class)
                .step("wait", (parcel, ctx) -> Outcome.done())
                .upcaster(1, stored -> ((ObjectNode) stored).putArray("grams"))
                .build();
        String state = stored(id, "state");
        DurableEngine engine = engines.start("unusable", UnaryOperator.identity(), unusable);
        engine.client().signal(id, "picked-up", null, null).orThrow();

        await().atMost(Duration.ofSeconds(10)).until(() -> engine.client().find(id).orElseThrow().status()
                == InstanceStatus.SUSPENDED);
        assertThat(engine.client().find(id).orElseThrow().lastError()).startsWith("Upcasting the state of parcel v1"
                + " to v2 failed: the upcast state cannot be read as " + ParcelV2.class.getName());
        assertThat(stored(id, "state")).isEqualTo(state);
        assertThat(stored(id, "machine_version")).isEqualTo("1");
    }

    /** New instances of the current version run as ever, next to upcast ones. */
    @Test
    void newInstancesOfTheCurrentVersionAreNotUpcast() {
        DurableEngine engine = engines.start("current", UnaryOperator.identity(), version2());
        long id = engine.client().start("parcel", new ParcelV2("p-9", "Alan", "Turing", 10),
                StartOptions.defaults()).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        engine.client().signal(id, "picked-up", null, null).orThrow();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(engine.client().find(id).orElseThrow().result(String.class))
                .isEqualTo("shipped to Alan Turing (v2, ship)");
    }

    /** The row's columns but what a suspension writes of its own (its reason, where it waits, the lease, when). */
    private static Map<String, Object> rowWithoutBookkeeping(long id) {
        return TestDatabase.jdbc().queryForMap("""
                SELECT (to_jsonb(t) - ARRAY['eligible_at', 'suspension', 'last_error', 'lease_owner', 'lease_token',
                                            'lease_expires_at', 'updated_at', 'status'])::text AS data
                FROM durable_it.durable_instance t WHERE id = ?""", id);
    }
}
