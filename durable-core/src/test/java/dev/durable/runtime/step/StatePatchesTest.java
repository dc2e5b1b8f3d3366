package dev.durable.runtime.step;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durable.StatePatch;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The patches a history entry records (docs/DESIGN.md, "History", patches), without a database: applied to the state
 * before, each gives the state after; the same JSON in another notation is no change; a cut patch stays within its
 * limit.
 */
class StatePatchesTest {

    private static final JsonMapper TREES = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();
    private final StatePatches patches = new StatePatches(1 << 20);

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"a\":1}|{\"a\":2}",
            "{\"a\":1,\"b\":{\"c\":[1,2,3]}}|{\"b\":{\"c\":[0,1,2,3,4]},\"d\":null}",
            "{\"l\":[1,2,3,4,5]}|{\"l\":[1,5]}",
            "{\"l\":[1,2,3,4,5]}|{\"l\":[5,4,3,2,1]}",
            "{\"l\":[[1,2],[3]]}|{\"l\":[[1],[3,4],[]]}",
            "{\"l\":[{\"x\":1},{\"x\":2}]}|{\"l\":[{\"x\":2}]}",
            "{\"a\":{\"b\":1}}|{\"a\":[1]}",
            "{\"a\":null}|{\"a\":{\"b\":null}}",
            "{\"a/b\":1,\"c~d\":2,\"\":3}|{\"a/b\":2,\"\":4}",
            "[1,2]|{\"a\":1}",
            "\"text\"|7",
            "{\"s\":\"é ☃ \\\"q\\\"\"}|{\"s\":\"😀\"}"})
    void appliedToTheStateBeforeAPatchGivesTheStateAfter(String before, String after) {
        String patch = patches.between(before, after);

        assertThat(patch).isNotNull();
        assertThat(StatePatch.parse(patch).applyTo(TREES.readTree(before))).isEqualTo(TREES.readTree(after));
    }

    @Test
    void theSameJsonInAnotherNotationIsNoChange() {
        // jsonb writes keys in its own order and numbers in its own notation.
        assertThat(patches.between("{\"total\": 10000000000, \"rate\": 0.000010, \"n\": [1, 2.50]}",
                "{\"n\":[1,2.5],\"rate\":1.0E-5,\"total\":1.0E10}")).isNull();
        assertThat(patches.between("{\"a\":1}", null)).isNull();
        assertThat(patches.between(null, "{\"a\":1}")).isEqualTo("[{\"op\":\"replace\",\"path\":\"\",\"value\":{\"a\":1}}]");
    }

    @Test
    void randomChangesOfRandomStatesReplayExactlyAndCutPatchesStayWithinTheirLimit() {
        Random random = new Random(31);
        StatePatches capped = new StatePatches(300);
        for (int k = 0; k < 500; k++) {
            JsonNode before = randomNode(random, 0);
            JsonNode after = mutate(before.deepCopy(), random, 0);
            String patch = patches.between(before.toString(), after.toString());
            JsonNode rebuilt = patch == null ? before : StatePatch.parse(patch).applyTo(before);
            assertThat(rebuilt).as("%s -> %s with %s", before, after, patch).isEqualTo(after);

            String small = capped.between(before.toString(), after.toString());
            if (small != null) {
                assertThat(small.getBytes(StandardCharsets.UTF_8).length).as(small).isLessThanOrEqualTo(300);
                StatePatch read = StatePatch.parse(small);
                assertThat(read.cut()).isEqualTo(patch.getBytes(StandardCharsets.UTF_8).length > 300);
                if (read.cut()) {
                    assertThat(read.cutBytes()).isEqualTo(patch.getBytes(StandardCharsets.UTF_8).length);
                    assertThat(read.operations()).hasSizeLessThan(read.cutCount());
                } else {
                    assertThat(small).isEqualTo(patch);
                }
            }
        }
    }

    @Test
    void aPatchThatDoesNotApplyIsRefusedNamingTheOperation() {
        StatePatch patch = StatePatch.parse("[{\"op\":\"remove\",\"path\":\"/missing\"}]");

        assertThatThrownBy(() -> patch.applyTo(TREES.readTree("{\"a\":1}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cannot apply {\"op\":\"remove\",\"path\":\"/missing\"}: there is no '/missing'");
        assertThatThrownBy(() -> StatePatch.parse("{\"op\":\"add\"}")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be a JSON array of operations");
    }

    private static JsonNode randomNode(Random random, int depth) {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        int kind = depth > 3 ? random.nextInt(4) : random.nextInt(6);
        return switch (kind) {
            case 0 -> nodes.numberNode(random.nextInt(100));
            case 1 -> nodes.stringNode("s" + random.nextInt(10) + "/~".repeat(random.nextInt(2)));
            case 2 -> nodes.nullNode();
            case 3 -> nodes.booleanNode(random.nextBoolean());
            case 4 -> {
                ObjectNode object = nodes.objectNode();
                for (int k = random.nextInt(5); k > 0; k--) {
                    object.set("k" + random.nextInt(8), randomNode(random, depth + 1));
                }
                yield object;
            }
            default -> {
                ArrayNode array = nodes.arrayNode();
                for (int k = random.nextInt(6); k > 0; k--) {
                    array.add(randomNode(random, depth + 1));
                }
                yield array;
            }
        };
    }

    private static JsonNode mutate(JsonNode node, Random random, int depth) {
        if (random.nextInt(5) == 0) {
            return randomNode(random, depth);
        }
        if (node instanceof ObjectNode object) {
            for (String name : object.propertyNames().stream().toList()) {
                switch (random.nextInt(4)) {
                    case 0 -> object.remove(name);
                    case 1 -> object.set(name, mutate(object.get(name), random, depth + 1));
                    default -> { }
                }
            }
            if (random.nextBoolean()) {
                object.set("n" + random.nextInt(3), randomNode(random, depth + 1));
            }
        } else if (node instanceof ArrayNode array) {
            if (array.size() > 0 && random.nextBoolean()) {
                array.remove(random.nextInt(array.size()));
            }
            if (random.nextBoolean()) {
                array.insert(random.nextInt(array.size() + 1), randomNode(random, depth + 1));
            }
            for (int k = 0; k < array.size(); k++) {
                if (random.nextInt(3) == 0) {
                    array.set(k, mutate(array.get(k), random, depth + 1));
                }
            }
        }
        return node;
    }
}
