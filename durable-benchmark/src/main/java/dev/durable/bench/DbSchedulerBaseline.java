package dev.durable.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import com.zaxxer.hikari.HikariDataSource;
import dev.durable.test.postgres.TestPostgres;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The peer of the benchmark's scenario (x): db-scheduler draining one-time no-op tasks on the same PostgreSQL, in its
 * best configuration there, lock-and-fetch polling ({@code SELECT ... FOR UPDATE SKIP LOCKED} claiming a batch), at a
 * given number of executor threads. Its table is db-scheduler's documented PostgreSQL schema, in the benchmark's
 * schema.
 */
final class DbSchedulerBaseline {

    /** db-scheduler's table for PostgreSQL, as its documentation gives it. */
    private static final String DDL = """
            CREATE TABLE %1$s.scheduled_tasks (
                task_name text NOT NULL,
                task_instance text NOT NULL,
                task_data bytea,
                execution_time timestamp with time zone NOT NULL,
                picked boolean NOT NULL,
                picked_by text,
                last_success timestamp with time zone,
                last_failure timestamp with time zone,
                consecutive_failures int,
                last_heartbeat timestamp with time zone,
                version bigint NOT NULL,
                priority smallint,
                PRIMARY KEY (task_name, task_instance)
            );
            CREATE INDEX execution_time_idx ON %1$s.scheduled_tasks (execution_time);
            CREATE INDEX last_heartbeat_idx ON %1$s.scheduled_tasks (last_heartbeat);
            CREATE INDEX priority_execution_time_idx ON %1$s.scheduled_tasks (priority DESC, execution_time ASC)
            """;

    /**
     * A lock-and-fetch configuration: refill when at most {@code lower * threads} claimed executions are left, up to
     * {@code upper * threads}.
     */
    record Polling(double lower, double upper) {

        @Override
        public String toString() {
            return "lock-and-fetch(" + lower + ", " + upper + ")";
        }
    }

    /** PostgreSQL's default max_connections is 100: the pool stays below it, with room for the benchmark's own. */
    private static final int MAX_CONNECTIONS = 80;

    private final JdbcTemplate jdbc;
    private final String schema;

    DbSchedulerBaseline(DataSource dataSource, String schema) {
        this.jdbc = new JdbcTemplate(dataSource);
        this.schema = schema;
    }

    /**
     * One drain: executions per second, and the CPU the JVM and PostgreSQL spent from the scheduler's start until the
     * last task ran (NaN for PostgreSQL's when the server's processes cannot be read), in seconds.
     */
    record Drained(double rate, double jvmCpuSeconds, double postgresCpuSeconds) {
    }

    /**
     * Schedules {@code n} one-time tasks due now, then starts a scheduler of {@code threads} executor threads and
     * times it until all have run. The CPU is read before the scheduler stops and its pool closes: a server process
     * whose connection closed takes its CPU time with it until the postmaster has reaped it, which is why an earlier
     * reading after the close found a few microseconds of PostgreSQL CPU per task.
     */
    Drained drain(int n, int threads, Polling polling, @Nullable PostgresCpu postgresCpu) throws Exception {
        // A connection per executor thread, as db-scheduler expects (each completes its execution on its own), as
        // far as the server allows.
        try (HikariDataSource pool = TestPostgres.get().newDataSource("db-scheduler",
                Math.min(threads + 2, MAX_CONNECTIONS))) {
            pool.getHikariConfigMXBean().setConnectionTimeout(120_000);
            return drain(pool, n, threads, polling, postgresCpu);
        }
    }

    /**
     * db-scheduler for (q): at its defaults (ten executor threads, fetch-and-lock-on-execute polling every 10 s) with
     * immediate execution on, over {@code pool}, its table new and empty. The caller closes it, which stops the
     * scheduler.
     */
    Immediate immediate(DataSource pool) {
        jdbc.execute("DROP TABLE IF EXISTS " + schema + ".scheduled_tasks");
        jdbc.execute(DDL.formatted(schema));
        return new Immediate(pool);
    }

    /** One start at a time, each scheduled due now through the scheduler itself, which wakes its own poller. */
    final class Immediate implements AutoCloseable {

        private final Scheduler scheduler;
        private final OneTimeTask<Void> task;
        private final AtomicLong started = new AtomicLong();
        private volatile CountDownLatch ran = new CountDownLatch(1);
        private int next;

        private Immediate(DataSource pool) {
            this.task = Tasks.oneTime("quiet").execute((instance, context) -> {
                started.set(System.nanoTime());
                ran.countDown();
            });
            this.scheduler = Scheduler.create(pool, task)
                    .tableName(schema + ".scheduled_tasks")
                    .enableImmediateExecution()
                    .build();
            scheduler.start();
        }

        /** Schedules one task due now and waits for its body: the time from before the call to the body. */
        long startAndTime() throws InterruptedException {
            CountDownLatch latch = new CountDownLatch(1);
            ran = latch;
            long sent = System.nanoTime();
            scheduler.schedule(task.instance("q" + next++), Instant.now());
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("db-scheduler did not run task q" + (next - 1) + " within 10 s");
            }
            return started.get() - sent;
        }

        @Override
        public void close() {
            scheduler.stop();
        }
    }

    private Drained drain(DataSource dataSource, int n, int threads, Polling polling,
            @Nullable PostgresCpu postgresCpu) throws Exception {
        jdbc.execute("DROP TABLE IF EXISTS " + schema + ".scheduled_tasks");
        jdbc.execute(DDL.formatted(schema));
        CountDownLatch executed = new CountDownLatch(n);
        OneTimeTask<Void> task = Tasks.oneTime("bench").execute((instance, context) -> executed.countDown());
        SchedulerClient client = SchedulerClient.Builder.create(dataSource, task)
                .tableName(schema + ".scheduled_tasks").build();
        Instant due = Instant.now();
        List<TaskInstance<?>> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(task.instance("i" + i));
            if (batch.size() == 1000 || i == n - 1) {
                client.scheduleBatch(batch, due);
                batch.clear();
            }
        }
        jdbc.execute("ANALYZE " + schema + ".scheduled_tasks");
        Scheduler scheduler = Scheduler.create(dataSource, task)
                .tableName(schema + ".scheduled_tasks")
                .threads(threads)
                .pollUsingLockAndFetch(polling.lower(), polling.upper())
                .pollingInterval(Duration.ofSeconds(1))
                .build();
        double jvmBefore = Benchmark.CpuUse.jvmCpuNanos() / 1e9;
        double postgresBefore = postgresCpu == null ? Double.NaN : postgresCpu.seconds();
        long begin = System.nanoTime();
        scheduler.start();
        if (!executed.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("db-scheduler ran " + (n - executed.getCount()) + " of " + n + " tasks");
        }
        double seconds = (System.nanoTime() - begin) / 1e9;
        double jvm = Benchmark.CpuUse.jvmCpuNanos() / 1e9 - jvmBefore;
        double postgres = postgresCpu == null ? Double.NaN : postgresCpu.seconds() - postgresBefore;
        scheduler.stop();
        return new Drained(n / seconds, jvm, postgres);
    }
}
