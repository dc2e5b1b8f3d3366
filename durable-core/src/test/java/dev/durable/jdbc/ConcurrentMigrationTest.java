package dev.durable.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.durable.test.postgres.TestPostgres;
import dev.durable.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A first deployment of several replicas: every node installs the schema at the same instant on an empty
 * database. Each node has a pool of its own, as separate JVMs would; a barrier releases them together.
 */
class ConcurrentMigrationTest {

    private static final int NODES = 6;
    private static final int ROUNDS = 10;
    private static final String SCHEMA = "durable_first_deploy";

    private static final List<HikariDataSource> nodes = new ArrayList<>();

    @BeforeAll
    static void pools() {
        for (int i = 0; i < NODES; i++) {
            nodes.add(TestPostgres.get().newDataSource("first-deploy-" + i, 1));
        }
    }

    @AfterAll
    static void closePools() {
        nodes.forEach(HikariDataSource::close);
        TestPostgres.get().dropSchema(SCHEMA);
    }

    @Test
    void nodesStartingTogetherOnAnEmptyDatabaseAllInstallTheSchema() throws Exception {
        JdbcTemplate jdbc = TestDatabase.jdbc();
        ExecutorService threads = Executors.newFixedThreadPool(NODES);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                TestPostgres.get().dropSchema(SCHEMA);
                CyclicBarrier together = new CyclicBarrier(NODES);
                List<Future<?>> starts = new ArrayList<>();
                for (HikariDataSource node : nodes) {
                    starts.add(threads.submit(() -> {
                        together.await();
                        DurableSchema.named(SCHEMA).migrate(node);
                        return null;
                    }));
                }
                for (Future<?> start : starts) {
                    start.get(60, TimeUnit.SECONDS); // throws if that node's install failed
                }
                assertThat(DurableSchema.named(SCHEMA).isInstalled(jdbc.getDataSource())).isTrue();
                assertThat(jdbc.queryForObject("SELECT count(*) FROM " + SCHEMA + ".durable_changelog", Long.class))
                        .as("each changeset applied once, round %d", round)
                        .isEqualTo(jdbc.queryForObject("SELECT count(*) FROM durable_it.durable_changelog",
                                Long.class));
            }
        } finally {
            threads.shutdownNow();
        }
    }
}
