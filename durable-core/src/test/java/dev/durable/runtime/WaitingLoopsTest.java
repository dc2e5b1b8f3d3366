package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.runtime.support.BackgroundLoop;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The loops that wait for an instant the database holds (the pollers for timers, the deadline sweep, the schedule
 * sweep) pause until it, at most a poll interval, and a full poll interval when nothing waits: the statements that
 * say how long answer NULL then, never 0 (which would make an idle node spin on the database).
 */
class WaitingLoopsTest {

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    private final Repositories repositories = Repositories.onTestDatabase();

    @Test
    void withNothingWaitingEachLoopHearsNullAndPausesAWholePollInterval() {
        assertThat(repositories.claims().millisUntilNextEligible("default")).isNull();
        assertThat(repositories.deadlines().millisUntilNext()).isNull();
        assertThat(repositories.schedules().millisUntilNext(List.of("report"))).isNull();
        assertThat(BackgroundLoop.pauseUntil(null, Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void somethingDueSoonIsWaitedForAndSomethingAlreadyDueAtOnce() {
        TestDatabase.jdbc().update("""
                INSERT INTO durable_it.durable_instance (machine, machine_version, step, queue, eligible_at)
                VALUES ('m', 1, 's', 'default', now() + interval '300 milliseconds')
                """);
        Long untilNext = repositories.claims().millisUntilNextEligible("default");
        assertThat(untilNext).isBetween(1L, 300L);
        assertThat(repositories.claims().millisUntilNextEligible("other")).isNull();

        Duration max = Duration.ofSeconds(1);
        assertThat(BackgroundLoop.pauseUntil(250L, max)).isEqualTo(Duration.ofMillis(251));
        assertThat(BackgroundLoop.pauseUntil(0L, max)).isEqualTo(Duration.ofMillis(1));
        assertThat(BackgroundLoop.pauseUntil(-40L, max)).as("already due").isEqualTo(Duration.ofMillis(1));
        assertThat(BackgroundLoop.pauseUntil(5_000L, max)).isEqualTo(max);
    }
}
