package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.Outcome;
import dev.durable.json.JacksonJsonCodec;
import dev.durable.json.JsonCodec;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** How states, results and payloads reach jsonb, and what happens when they cannot (pitfalls P10 and P12). */
class PayloadEncodingTest {

    record Box(Object content) {
    }

    record Order(int id, List<String> items) {
    }

    /** Serializing it calls a getter that throws. */
    public static final class Exploding {
        public String getValue() {
            throw new IllegalStateException("cannot serialize me");
        }
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final List<Integer> attempts = new CopyOnWriteArrayList<>();

    /** JSON is bound as jsonb, so an object is stored as an object, not a JSON string (pitfall P12). */
    @Test
    void statesResultsAndPayloadsAreStoredAsJsonValuesNotAsJsonStrings() {
        MachineDefinition machine = MachineDefinition.builder("typed", 1, Order.class)
                .step("go", (state, ctx) -> ctx.awaited("paid").isPresent()
                        ? Outcome.done(Map.of("total", 3)) : Outcome.await("paid", state))
                .build();
        DurableClient client = engines.start(machine).client();
        long id = client.start("typed", new Order(1, List.of("a", "b"))).id();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("awaiting_signal"));
        assertThat(typeOf("state", "durable_instance", id)).isEqualTo("object");
        assertThat(TestDatabase.jdbc().queryForObject(
                "SELECT state -> 'items' ->> 1 FROM durable_it.durable_instance WHERE id = ?", String.class, id))
                .isEqualTo("b");

        client.signal(id, "other", Map.of("cents", 100)); // stays in the inbox: typed before being consumed
        assertThat(TestDatabase.jdbc().queryForObject("SELECT jsonb_typeof(payload) FROM durable_it.durable_signal"
                + " WHERE instance_id = ?", String.class, id)).isEqualTo("object");
        client.signal(id, "paid", Map.of("cents", 100));

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(typeOf("result", "durable_instance", id)).isEqualTo("object");
    }

    /** An outcome that cannot be serialized takes the error path; it does not loop via the reaper (pitfall P10). */
    @Test
    void anUnserializableStateFailsTheInstanceOnceInsteadOfCrashingTheWorker() {
        MachineDefinition machine = MachineDefinition.builder("boxes", 1, Box.class)
                .initialStep("fill")
                .step("fill", (state, ctx) -> {
                    attempts.add(ctx.attempt());
                    return Outcome.next("ship", new Box(new Exploding()));
                })
                .step("ship", (state, ctx) -> Outcome.done())
                .build();
        DurableEngine engine = engines.start(machine);
        long id = engine.client().start("boxes", new Box("ok")).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat((String) TestDatabase.row(id).get("last_error"))
                .startsWith("dev.durable.machine.StepFailureException$InvalidOutcome: Step 'fill' of boxes v1 "
                        + "(instance " + id + ") returned a state that cannot be serialized")
                .contains("cannot serialize me");
        assertThat(attempts).containsExactly(0);
        assertThat(engine.stats().reaped()).isZero();
        assertThat(TestDatabase.row(id)).containsEntry("state", "{\"content\": \"ok\"}");
    }

    /** A NUL character in an outcome's state is refused before the write, naming the field. */
    @Test
    void anOutcomeHoldingANulCharacterFailsTheInstanceNamingTheField() {
        MachineDefinition machine = MachineDefinition.builder("nul", 1, Box.class)
                .step("go", (state, ctx) -> {
                    attempts.add(ctx.attempt());
                    return Outcome.retry(new Box("a\u0000b"), Duration.ZERO); // jsonb cannot hold \u0000
                })
                .build();
        DurableEngine engine = engines.start(machine);
        long id = engine.client().start("nul", new Box("ok")).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat((String) TestDatabase.row(id).get("last_error")).isEqualTo("dev.durable.machine."
                + "StepFailureException$InvalidOutcome: Step 'go' of nul v1 (instance " + id + ") returned a state"
                + " that cannot be stored; the step takes the error path: its field $.content holds a NUL character"
                + " (\\u0000), which PostgreSQL's jsonb cannot store");
        assertThat(attempts).containsExactly(0);
        assertThat(engine.stats().reaped()).isZero();
    }

    /**
     * Pitfall P10 (docs/DESIGN.md), the database's side: JSON that jsonb refuses (here a number too large for it, from
     * a codec that writes one) fails the instance with PostgreSQL's reason, and never with the statement's SQL text.
     */
    @Test
    void anOutcomeTheDatabaseRefusesFailsTheInstanceWithTheDatabasesReasonAndNoSql() {
        JsonCodec overflowing = new JsonCodec() {
            private final JsonCodec jackson = new JacksonJsonCodec();

            @Override
            public String write(Object value) {
                return value instanceof Box box && "overflow".equals(box.content()) ? "{\"content\": 1e1000000}"
                        : jackson.write(value);
            }

            @Override
            public Object read(String json, java.lang.reflect.Type type) {
                return jackson.read(json, type);
            }

            @Override
            public void checkReadsBack(String json, java.lang.reflect.Type type) {
            }
        };
        MachineDefinition machine = MachineDefinition.builder("overflow", 1, Box.class)
                .step("go", (state, ctx) -> {
                    attempts.add(ctx.attempt());
                    return Outcome.retry(new Box("overflow"), Duration.ZERO);
                })
                .build();
        DurableEngine engine = engines.start(DurableEngine.builder(TestDatabase.dataSource(), MachineRegistry.of(machine))
                .settings(EngineFixture.fastSettings("test-node", machine).build())
                .jsonCodec(overflowing)
                .build());
        long id = engine.client().start("overflow", new Box("ok")).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("failed"));
        assertThat((String) TestDatabase.row(id).get("last_error"))
                .isEqualTo("org.postgresql.util.PSQLException: ERROR: value overflows numeric format");
        assertThat(attempts).containsExactly(0);
        assertThat(engine.stats().reaped()).isZero();
    }

    private static String typeOf(String column, String table, long id) {
        return TestDatabase.jdbc().queryForObject("SELECT jsonb_typeof(" + column + ") FROM durable_it." + table
                + " WHERE id = ?", String.class, id);
    }
}
