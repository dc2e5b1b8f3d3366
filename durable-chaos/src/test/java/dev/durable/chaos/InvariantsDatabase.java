package dev.durable.chaos;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.durable.jdbc.DurableSchema;
import java.nio.file.Path;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The database of an invariant test: the harness's own PostgreSQL ({@link ChaosPostgres}), durable's schema and a
 * workload's tables, so that synthetic rows are checked as a chaos run's rows are, in a real database.
 */
final class InvariantsDatabase implements AutoCloseable {

    private final ChaosPostgres postgres;
    private final HikariDataSource dataSource;
    private final JdbcTemplate jdbc;

    private InvariantsDatabase(ChaosPostgres postgres, HikariDataSource dataSource) {
        this.postgres = postgres;
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
    }

    /** Starts a server with its data under {@code target/<name>/pgdata}, installs the schema and runs {@code ddl}. */
    static InvariantsDatabase start(String name, String... ddl) throws Exception {
        ChaosPostgres postgres = ChaosPostgres.start(Path.of("target", name, "pgdata"));
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(postgres.jdbcUrl());
        config.setUsername("postgres");
        config.setMaximumPoolSize(2);
        InvariantsDatabase database = new InvariantsDatabase(postgres, new HikariDataSource(config));
        DurableSchema.named("durable").migrate(database.dataSource);
        for (String statement : ddl) {
            database.jdbc.execute(statement);
        }
        return database;
    }

    HikariDataSource dataSource() {
        return dataSource;
    }

    JdbcTemplate jdbc() {
        return jdbc;
    }

    @Override
    public void close() throws Exception {
        dataSource.close();
        postgres.close();
    }
}
