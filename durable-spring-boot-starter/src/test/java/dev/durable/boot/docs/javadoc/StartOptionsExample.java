package dev.durable.boot.docs.javadoc;

import dev.durable.StartOptions;

/** The javadoc of {@link StartOptions}: a chain of options. */
final class StartOptionsExample {

    private StartOptionsExample() {
    }

    static StartOptions options() {
        StartOptions options = StartOptions.defaults().partitionKey("customer:7").uniqueKey("order:42").priority(-1);
        return options;
    }
}
