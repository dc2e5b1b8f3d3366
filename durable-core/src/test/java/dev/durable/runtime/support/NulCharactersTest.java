package dev.durable.runtime.support;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NulCharactersTest {

    @Test
    void namesThePathOfTheValueHoldingANul() {
        assertThat(NulCharacters.find("{\"a\":1,\"b\":{\"c\":[\"x\",\"y\\u0000\"]}}")).isEqualTo("$.b.c[1]");
        assertThat(NulCharacters.find("[{\"a\":\"ok\"},{\"a\":\"\\u0000\"}]")).isEqualTo("$[1].a");
        assertThat(NulCharacters.find("\"\\u0000\"")).isEqualTo("$");
    }

    @Test
    void namesAKeyHoldingANul() {
        assertThat(NulCharacters.find("{\"ok\":1,\"k\\u0000\":2}")).isEqualTo("$.k\\u0000 (a key)");
    }

    @Test
    void anEscapedBackslashFollowedByU0000IsNotANul() {
        // The text \u0000 (six characters) is written as "\\u0000": no NUL in it.
        assertThat(NulCharacters.find("{\"path\":\"C:\\\\u0000\"}")).isNull();
        assertThat(NulCharacters.find("{\"a\":\"plain\",\"n\":[1,2,{\"b\":null}]}")).isNull();
    }

    @Test
    void anIndexCountsValuesNotCommasInsideStrings() {
        assertThat(NulCharacters.find("[\"a,b\",{\"x\":[1,2]},\"\\u0000\"]")).isEqualTo("$[2]");
    }
}
