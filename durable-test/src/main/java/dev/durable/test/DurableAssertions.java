package dev.durable.test;

/**
 * Entry point of the kit's AssertJ assertions: {@code assertThat(durable.instance(id)).isDone().hasResult(...)}.
 */
public final class DurableAssertions {

    private DurableAssertions() {
    }

    public static InstanceAssert assertThat(TestInstance instance) {
        return new InstanceAssert(instance);
    }
}
