package dev.durable.runtime.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A state's shape (its paths and JSON types), and the skeleton document a shape stands for. */
class StateShapesTest {

    @Test
    void aShapeListsEveryPathWithItsTypeParentsBeforeChildren() {
        assertThat(StateShapes.of("""
                {"reservation": "R-1", "lines": [{"sku": "A", "qty": 2}, {"sku": "B", "qty": 1, "gift": true}],
                 "customer": {"name": "Ada", "address": null}, "tags": [], "total": 12.5}
                """)).containsExactly(
                "$: object",
                "$.customer: object",
                "$.customer.address: null",
                "$.customer.name: string",
                "$.lines: array",
                "$.lines[]: object",
                "$.lines[].gift: boolean",
                "$.lines[].qty: number",
                "$.lines[].sku: string",
                "$.reservation: string",
                "$.tags: array",
                "$.total: number");
    }

    @Test
    void mixedArraysNestedArraysOddNamesAndScalarStatesHaveShapesToo() {
        assertThat(StateShapes.of("{\"a.b\": 1, \"it's\": [[1, \"x\"], null]}")).containsExactly(
                "$: object",
                "$['a.b']: number",
                "$['it\\'s']: array",
                "$['it\\'s'][]: array",
                "$['it\\'s'][]: null",
                "$['it\\'s'][][]: number",
                "$['it\\'s'][][]: string");
        assertThat(StateShapes.of("\"just text\"")).containsExactly("$: string");
        assertThat(StateShapes.of(null)).containsExactly("$: null");
    }

    @Test
    void aSkeletonHasTheStructureOfItsShapeWithNeutralLeaves() {
        List<String> shape = StateShapes.of("""
                {"reservation": "R-1", "lines": [{"sku": "A", "qty": 2}], "paid": true, "note": null, "meta": {}}
                """);

        assertThat(StateShapes.skeleton(shape, StateShapes.Strings.AS_NULL))
                .isEqualTo("{\"lines\":[{\"qty\":0,\"sku\":null}],\"meta\":{},\"note\":null,\"paid\":false,"
                        + "\"reservation\":null}");
        assertThat(StateShapes.skeleton(shape, StateShapes.Strings.AS_EMPTY))
                .isEqualTo("{\"lines\":[{\"qty\":0,\"sku\":\"\"}],\"meta\":{},\"note\":null,\"paid\":false,"
                        + "\"reservation\":\"\"}");
    }

    @Test
    void aSkeletonHasTheShapeItWasMadeFrom() {
        for (String json : List.of(
                "{\"a\": [1, \"x\", {\"b\": [true]}], \"c\": {\"d\": {\"e\": null}}}",
                "{\"odd key\": {\"it's\": [[[]]]}}",
                "[{\"a\": 1}, {\"a\": \"x\", \"b\": 2}]",
                "42")) {
            List<String> shape = StateShapes.of(json);
            assertThat(StateShapes.of(StateShapes.skeleton(shape, StateShapes.Strings.AS_EMPTY))).as(json)
                    .isEqualTo(shape);
        }
    }

    @Test
    void aLineThatIsNoPathAndTypeIsRefusedNamingIt() {
        assertThatThrownBy(() -> StateShapes.skeleton(List.of("$: object", "$.a: text"), StateShapes.Strings.AS_NULL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Unknown JSON type 'text'");
        assertThatThrownBy(() -> StateShapes.skeleton(List.of("reservation string"), StateShapes.Strings.AS_NULL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'reservation string'");
    }
}
