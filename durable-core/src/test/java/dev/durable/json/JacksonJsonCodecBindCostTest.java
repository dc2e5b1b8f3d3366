package dev.durable.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What finding lost properties costs a step (docs/DESIGN.md, "Lossy states"): every picked row's state is read with
 * {@link JsonCodec#bind} instead of {@link JsonCodec#read}. A microbenchmark without JMH, robust to a busy machine: the
 * two alternate in short rounds, each is judged by its fastest round, and a measurement a burst of other work spoiled
 * is taken again (at most three times).
 */
class JacksonJsonCodecBindCostTest {

    record Line(String sku, int qty, long priceCents) {
    }

    record Order(String id, String customer, String reservationId, List<Line> lines, long amountCents,
            String paymentId) {
    }

    private static final String STATE = """
            {"id": "o-1", "customer": "c-42", "reservationId": "R-7", "lines": [
             {"sku": "a-1", "qty": 1, "priceCents": 1200}, {"sku": "b-2", "qty": 3, "priceCents": 450},
             {"sku": "c-3", "qty": 2, "priceCents": 9900}], "amountCents": 22350, "paymentId": null}""";

    private static final int READS_PER_ROUND = 2_000;
    private static final int ROUNDS = 100;

    private final JacksonJsonCodec codec = new JacksonJsonCodec();
    private long sink;

    /** The fastest round of each, in microseconds per state: {read, bind}. */
    private double[] measure() {
        long bestRead = Long.MAX_VALUE;
        long bestBind = Long.MAX_VALUE;
        for (int round = 0; round < ROUNDS; round++) {
            // The first of each pair alternates, so that neither profits from always coming second.
            for (int turn = 0; turn < 2; turn++) {
                boolean binding = (round + turn) % 2 == 0;
                long started = System.nanoTime();
                for (int k = 0; k < READS_PER_ROUND; k++) {
                    if (binding) {
                        JsonCodec.Binding bound = codec.bind(STATE, Order.class);
                        sink += ((Order) bound.value()).amountCents() + bound.droppedPaths().size();
                    } else {
                        sink += ((Order) codec.read(STATE, Order.class)).amountCents();
                    }
                }
                long took = System.nanoTime() - started;
                if (binding) {
                    bestBind = Math.min(bestBind, took);
                } else {
                    bestRead = Math.min(bestRead, took);
                }
            }
        }
        return new double[] {bestRead / 1000.0 / READS_PER_ROUND, bestBind / 1000.0 / READS_PER_ROUND};
    }

    @Test
    void aBindThatLosesNothingCostsAboutWhatAReadCosts() {
        for (int k = 0; k < 30 * READS_PER_ROUND; k++) { // warm both paths up
            codec.read(STATE, Order.class);
            codec.bind(STATE, Order.class);
        }
        double[] best = null;
        for (int attempt = 0; attempt < 3 && (best == null || best[1] / best[0] > 1.2); attempt++) {
            double[] measured = measure();
            if (best == null || measured[1] / measured[0] < best[1] / best[0]) {
                best = measured;
            }
        }
        System.out.printf("bind cost: read %.2f us, bind %.2f us per state of %d bytes (fastest of %d rounds of %d;"
                + " ratio %.3f)%n", best[0], best[1], STATE.length(), ROUNDS, READS_PER_ROUND, best[1] / best[0]);

        assertThat(sink).isPositive();
        // A thread-local set and cleared around the same read: a few percent at most. The bound leaves room for a busy
        // machine, and still fails if a bind parsed or wrote the state a second time.
        assertThat(best[1]).isLessThan(best[0] * 1.5);
    }
}
