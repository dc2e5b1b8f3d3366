package dev.durable.boot.docs.javadoc;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.OnError;
import java.time.Duration;

/** The javadoc of {@link OnError}: a handler retrying with a growing backoff. */
class OnErrorExample {

    record State(long orderId) {
    }

    @OnError
    Outcome onError(Exception e, State s, StepContext ctx) {
        return ctx.attempt() < 5 ? Outcome.retry(s, Duration.ofSeconds(1L << ctx.attempt()))
                                 : Outcome.stop(e.toString());
    }
}
