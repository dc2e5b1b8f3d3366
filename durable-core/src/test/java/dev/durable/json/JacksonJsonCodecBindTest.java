package dev.durable.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.lang.reflect.Type;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one definition of a lossy read (docs/DESIGN.md, "Lossy states"): {@link JsonCodec#bind} reads stored JSON as a
 * type and names every stored property the value would not keep; what the type adds, keeps or declares it ignores is
 * no loss.
 */
class JacksonJsonCodecBindTest {

    record Line(String sku, int qty) {
    }

    record Order(String id, List<Line> lines) {
    }

    record Grid(List<List<Line>> cells) {
    }

    record WithExtras(String id, Map<String, Object> extras, JsonNode raw) {
    }

    @JsonIgnoreProperties(ignoreUnknown = true)
    record Lenient(String id) {
    }

    @JsonIgnoreProperties("legacy")
    record NamedIgnore(String id) {
    }

    record WithIgnoredField(String id, @JsonIgnore @Nullable String secret) {
    }

    public static final class CatchAll {
        public String id;
        final Map<String, Object> rest = new HashMap<>();

        @JsonAnySetter
        public void put(String name, Object value) {
            rest.put(name, value);
        }
    }

    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "@type")
    @JsonSubTypes(@JsonSubTypes.Type(value = Cat.class, name = "cat"))
    interface Animal {
    }

    record Cat(String name) implements Animal {
    }

    record Zoo(Animal pet) {
    }

    private final JacksonJsonCodec codec = new JacksonJsonCodec();

    @Test
    void everyStoredPropertyTheTypeWouldDropIsReportedWithItsPath() {
        JsonCodec.Binding binding = codec.bind("""
                {"id": "o-1", "reservation": "R-7", "lines": [{"sku": "a", "qty": 1},
                 {"sku": "b", "qty": 2, "gift": {"wrap": [1, 2]}}], "note": ["x"]}""", Order.class);

        assertThat(binding.lossy()).isTrue();
        assertThat(binding.droppedPaths()).containsExactly("$.reservation", "$.lines[1].gift", "$.note");
        // The value is read as the read of the step would read it.
        assertThat(binding.value()).isEqualTo(new Order("o-1", List.of(new Line("a", 1), new Line("b", 2))));
    }

    /**
     * A record is built through its constructor, and Jackson replays its unknown properties from a buffer once it is
     * built; their paths are the stored ones all the same, wherever they stand among the known ones.
     */
    @Test
    void droppedObjectsAndArraysOfRecordsAreNamedByTheirStoredPaths() {
        JsonCodec.Binding binding = codec.bind("""
                {"reservation": {"id": "R-7", "until": [2026, 12]}, "id": "o-1",
                 "lines": [{"gift": {"wrap": true}, "sku": "a", "qty": 1}, {"sku": "b", "gift": [1], "qty": 2}]}""",
                Order.class);

        assertThat(binding.droppedPaths()).containsExactly("$.reservation", "$.lines[0].gift", "$.lines[1].gift");
    }

    @Test
    void pathsNameArraysInArraysAndPolymorphicValues() {
        assertThat(codec.bind("{\"cells\": [[], [{\"sku\": \"a\", \"qty\": 1, \"old\": true}]]}", Grid.class)
                .droppedPaths()).containsExactly("$.cells[1][0].old");
        // The type id after the properties: Jackson buffers them, and the path is still the stored one.
        assertThat(codec.bind("{\"pet\": {\"name\": \"tom\", \"age\": 3, \"@type\": \"cat\"}}", Zoo.class)
                .droppedPaths()).containsExactly("$.pet.age");
    }

    @Test
    void aPropertyTheTypeAddsAndTheStoredStateLacksIsNoLoss() {
        JsonCodec.Binding binding = codec.bind("{\"id\": \"o-1\"}", Order.class);

        assertThat(binding.lossy()).isFalse();
        assertThat(binding.value()).isEqualTo(new Order("o-1", null));
    }

    /** A stored null held nothing: the type without the property reads the same. */
    @Test
    void aDroppedNullIsNoLoss() {
        assertThat(codec.bind("{\"id\": \"o-1\", \"reservation\": null}", Order.class).droppedPaths()).isEmpty();
    }

    @Test
    void whatTheTypeKeepsInACatchAllIsNoLoss() {
        assertThat(codec.bind("{\"id\": \"x\", \"extras\": {\"a\": 1}, \"raw\": {\"b\": [2]}}", WithExtras.class)
                .droppedPaths()).isEmpty();
        JsonCodec.Binding catchAll = codec.bind("{\"id\": \"x\", \"reservation\": \"R-7\"}", CatchAll.class);
        assertThat(catchAll.droppedPaths()).isEmpty();
        assertThat(((CatchAll) catchAll.value()).rest).containsEntry("reservation", "R-7");
    }

    /** The author said so in the type: ignoring unknown properties, or named ones, is a decision, not a loss. */
    @Test
    void whatTheTypeDeclaresItIgnoresIsNoLoss() {
        assertThat(codec.bind("{\"id\": \"x\", \"reservation\": \"R-7\"}", Lenient.class).droppedPaths()).isEmpty();
        assertThat(codec.bind("{\"id\": \"x\", \"legacy\": 1}", NamedIgnore.class).droppedPaths()).isEmpty();
        assertThat(codec.bind("{\"id\": \"x\", \"secret\": \"s\"}", WithIgnoredField.class).droppedPaths())
                .isEmpty();
    }

    @Test
    void aMapperThatFailsOnUnknownPropertiesStillFails() {
        JacksonJsonCodec strict = new JacksonJsonCodec(JsonMapper.builder()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build());

        assertThatThrownBy(() -> strict.bind("{\"id\": \"o-1\", \"reservation\": \"R-7\"}", Order.class))
                .isInstanceOf(JsonCodecException.class)
                .hasMessageContaining("Cannot read JSON as " + Order.class.getName())
                .hasMessageContaining("reservation");
    }

    /** A plain read still reads as before: the application's mapper decides, and nothing is collected. */
    @Test
    void aPlainReadIsUnchanged() {
        assertThat(codec.read("{\"id\": \"o-1\", \"reservation\": \"R-7\"}", Order.class))
                .isEqualTo(new Order("o-1", null));
        // ... and a bind after it reports only its own losses.
        assertThat(codec.bind("{\"id\": \"o-1\", \"other\": 1}", Order.class).droppedPaths())
                .containsExactly("$.other");
    }

    @Test
    void aStateThatCannotBeReadFailsNamingTheType() {
        assertThatThrownBy(() -> codec.bind("{\"id\": [1]}", Order.class))
                .isInstanceOf(JsonCodecException.class)
                .hasMessageStartingWith("Cannot read JSON as " + Order.class.getName());
    }

    /** Another codec that knows nothing of losses reports none, and reads as it always did. */
    @Test
    void aCodecWithoutItsOwnBindReportsNoLoss() {
        JsonCodec plain = new JsonCodec() {
            @Override
            public String write(@Nullable Object value) {
                return codec.write(value);
            }

            @Override
            public @Nullable Object read(String json, Type type) {
                return codec.read(json, type);
            }
        };

        JsonCodec.Binding binding = plain.bind("{\"id\": \"o-1\", \"reservation\": \"R-7\"}", Order.class);

        assertThat(binding.lossy()).isFalse();
        assertThat(binding.value()).isEqualTo(new Order("o-1", null));
    }
}
