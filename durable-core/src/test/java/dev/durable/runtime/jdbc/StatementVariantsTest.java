package dev.durable.runtime.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class StatementVariantsTest {

    private static final String TEXT = """
            /* durable: delete {status} */ -- in: plain
            /* durable: delete {status} again */ -- in: again
            DELETE FROM {schema}.t
            WHERE status = '{status}'
              AND seen -- in: again
            """;

    @Test
    void eachVariantKeepsTheUnmarkedLinesAndItsOwnAndWritesItsLiterals() {
        Map<String, String> variants = StatementVariants.render(TEXT, Map.of(
                "plain", Map.of("status", "done"), "again", Map.of("status", "failed")));

        assertThat(variants.get("plain")).isEqualTo("""
                /* durable: delete done */
                DELETE FROM {schema}.t
                WHERE status = 'done'
                """);
        assertThat(variants.get("again")).isEqualTo("""
                /* durable: delete failed again */
                DELETE FROM {schema}.t
                WHERE status = 'failed'
                  AND seen
                """);
    }

    @Test
    void aMarkNamingNoVariantIsRefused() {
        assertThatThrownBy(() -> StatementVariants.render(TEXT, Map.of("plain", Map.of("status", "done"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[again]");
    }

    @Test
    void aLiteralThatIsNotAWordOrANumberIsRefused() {
        assertThatThrownBy(() -> StatementVariants.render(TEXT, Map.of("plain", Map.of("status", "x' OR '1"),
                "again", Map.of("status", "failed"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("{status}");
    }

    @Test
    void aLiteralWithoutAValueIsRefused() {
        assertThatThrownBy(() -> StatementVariants.render(TEXT, Map.of("plain", Map.of(), "again", Map.of())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("{status}");
    }

    @Test
    void variantsThatRenderTheSameTextAreRefused() {
        assertThatThrownBy(() -> StatementVariants.render("SELECT 1 -- in: a\nSELECT 1 -- in: b\n", "a", "b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("same text");
    }
}
