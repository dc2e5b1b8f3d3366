package dev.durable.runtime;

import dev.durable.jdbc.DurableSchema;
import dev.durable.runtime.control.CancelRepository;
import dev.durable.runtime.control.RetentionRepository;
import dev.durable.runtime.control.SignalRepository;
import dev.durable.runtime.control.StartRepository;
import dev.durable.runtime.jdbc.History;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.runtime.queue.ClaimRepository;
import dev.durable.runtime.queue.TransitionRepository;
import dev.durable.runtime.time.DeadlineRepository;
import dev.durable.runtime.time.ScheduleRepository;
import dev.durable.testing.TestDatabase;

/**
 * The engine's repositories on the tests' database, sharing one {@link StatementPlanning} as an engine's do: for the
 * tests that drive statements directly, to force their order (race tests) or to read what one answers.
 */
record Repositories(StatementPlanning planning, StartRepository starts, ClaimRepository claims,
        TransitionRepository transitions, SignalRepository signals, DeadlineRepository deadlines,
        ScheduleRepository schedules, RetentionRepository retention, CancelRepository cancels) {

    /** The history these repositories record, as an engine's do by default, under a node id of the tests. */
    static final History HISTORY = new History(true, "test:node");

    static Repositories onTestDatabase() {
        StatementPlanning planning = new StatementPlanning(TestDatabase.dataSource(),
                DurableSchema.named(TestDatabase.SCHEMA));
        return new Repositories(planning, new StartRepository(planning, "test-node", java.time.Duration.ofMinutes(1)), new ClaimRepository(planning, HISTORY),
                new TransitionRepository(TestDatabase.dataSource(), planning, HISTORY), new SignalRepository(planning),
                new DeadlineRepository(planning), new ScheduleRepository(planning), new RetentionRepository(planning),
                new CancelRepository(TestDatabase.dataSource(), planning, HISTORY));
    }
}
