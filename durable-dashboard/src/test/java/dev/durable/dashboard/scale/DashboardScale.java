package dev.durable.dashboard.scale;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import dev.durable.jdbc.DurableSchema;
import dev.durable.runtime.control.DiagramRepository;
import dev.durable.runtime.control.HistoryRollup;
import dev.durable.runtime.jdbc.StatementPlanning;
import dev.durable.test.postgres.TestPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.slf4j.LoggerFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The dashboard on a million instances (docs/PERFORMANCE.md, "The dashboard on 1,000,000 instances"): fills a schema
 * with fill.sql (1,000,000 instances, 10,000,000 history rows), starts {@link ScaleApplication} on it, times each
 * endpoint the pages read over HTTP (warm: the median and the worst of {@code scale.calls}), then starts it again
 * with PostgreSQL's auto_explain on its connections and prints the plan, with timings and buffers, of every statement
 * each endpoint ran, as PostgreSQL reports it to the connection that ran it. Run by hand, not by the suite:
 *
 * <pre>
 * DURABLE_TEST_JDBC_URL=jdbc:postgresql://127.0.0.1:5432/durable_bench \
 *   ./mvnw -B -Pdashboard-scale -pl durable-dashboard -am verify -DskipTests
 * </pre>
 *
 * <p>Settings, as {@code -Dscale.args="-Dname=value ..."}: {@code scale.schema} (durable_scale, dropped and filled),
 * {@code scale.fill} (true; {@code false} measures the schema as it stands, installed and upgraded already;
 * {@code only} fills it and stops, so that a second run with {@code false} times it under a lock that others'
 * measurements take too), {@code scale.calls} (20),
 * {@code scale.output} (where the report goes besides the console). The plans need a superuser, for auto_explain.
 */
public final class DashboardScale {

    private static final String PATH = "/durable/api";
    /** Each endpoint a page reads, with the filters and ids of a typical visit, by the name the report gives it. */
    private static final List<String[]> ENDPOINTS = List.of(
            new String[] {"session", "/session"},
            new String[] {"overview", "/overview"},
            new String[] {"overview: the cluster", "/cluster"},
            new String[] {"search: newest first", "/instances"},
            new String[] {"search: a later page", "/instances?afterId=500000"},
            new String[] {"search: failed", "/instances?status=failed"},
            new String[] {"search: machine, parked", "/instances?machine=order&status=awaiting_signal"},
            new String[] {"search: machine, step, failed", "/instances?machine=parcel&step=label&status=failed"
                    + "&order=oldest_first"},
            new String[] {"search: error text", "/instances?status=failed&errorContains=carrier%207%20"},
            new String[] {"search: correlation key", "/instances?correlationKey=customer-77"},
            new String[] {"instance: 10,000 children", "/instances/4"},
            new String[] {"instance: parked", "/instances/939601"},
            new String[] {"machine: parcel, 5 min", "/machines/parcel?minutes=5"},
            new String[] {"machine: parcel, 60 min", "/machines/parcel?minutes=60"},
            new String[] {"machine: order, 60 min", "/machines/order?minutes=60"},
            new String[] {"machine: parcel, 1 day", "/machines/parcel?minutes=1440"},
            new String[] {"machine: parcel, 1 week", "/machines/parcel?minutes=10080"},
            new String[] {"deploy check", "/deploy-check"});

    private DashboardScale() {
    }

    public static void main(String[] args) throws Exception {
        String schema = System.getProperty("scale.schema", "durable_scale");
        String filling = System.getProperty("scale.fill", "true");
        boolean fill = !"false".equals(filling);
        int calls = Integer.getInteger("scale.calls", 20);
        Path output = Path.of(System.getProperty("scale.output", "target/dashboard-scale.txt"));
        TestPostgres postgres = TestPostgres.get();
        DataSource dataSource = postgres.dataSource();
        StringBuilder report = new StringBuilder();
        line(report, "# dashboard on a million instances: " + Instant.now() + ", commit " + commit() + ", JDK "
                + Runtime.version() + ", " + postgres.version() + ", " + Runtime.getRuntime().availableProcessors()
                + " CPUs");
        if (fill) {
            postgres.dropSchema(schema);
            DurableSchema.named(schema).migrate(dataSource);
            long began = System.nanoTime();
            runScript(dataSource, schema, "fill.sql");
            line(report, "# filled " + schema + " in " + (System.nanoTime() - began) / 1_000_000_000 + " s");
            // As the nodes' rollup counts a history after the upgrade to version 18, without its pauses.
            began = System.nanoTime();
            int turns = new HistoryRollup(new DiagramRepository(new StatementPlanning(dataSource,
                    DurableSchema.named(schema))), null).catchUp();
            line(report, "# counted the history by minute in " + (System.nanoTime() - began) / 1_000_000 + " ms, "
                    + turns + " turns of the history rollup");
            try (Connection connection = dataSource.getConnection();
                 Statement statement = connection.createStatement()) {
                statement.execute("VACUUM (ANALYZE) " + schema + ".durable_history_minute");
            }
        }
        describeTables(dataSource, schema, report);
        if ("only".equals(filling)) {
            return;
        }

        try (ConfigurableApplicationContext app = start(postgres, schema, false)) {
            HttpClient http = HttpClient.newHttpClient();
            String base = "http://localhost:" + ((WebServerApplicationContext) app).getWebServer().getPort() + PATH;
            line(report, "");
            line(report, "| endpoint | median ms | worst ms | bytes |");
            line(report, "|---|---|---|---|");
            for (String[] endpoint : ENDPOINTS) {
                long[] millis = time(http, base + endpoint[1], calls);
                int bytes = get(http, base + endpoint[1]).body().length();
                line(report, "| " + endpoint[0] + " `" + endpoint[1] + "` | " + format(millis[calls / 2]) + " | "
                        + format(millis[calls - 1]) + " | " + bytes + " |");
            }
        }
        line(report, "");
        try (ConfigurableApplicationContext app = start(postgres, schema, true)) {
            explain(app, report);
        }
        explainTransitionCounts(dataSource, schema, report);
        Files.createDirectories(output.toAbsolutePath().getParent());
        Files.writeString(output, report);
        System.out.println("# written to " + output.toAbsolutePath());
    }

    /** The {@code calls} warm times of GET {@code url}, sorted, in microseconds; any answer but 200 stops the run. */
    private static long[] time(HttpClient http, String url, int calls) throws IOException, InterruptedException {
        for (int i = 0; i < 3; i++) {
            get(http, url);
        }
        long[] micros = new long[calls];
        for (int i = 0; i < calls; i++) {
            long began = System.nanoTime();
            get(http, url);
            micros[i] = (System.nanoTime() - began) / 1000;
        }
        Arrays.sort(micros);
        return micros;
    }

    private static HttpResponse<String> get(HttpClient http, String url) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET " + url + " answered " + response.statusCode() + ": "
                    + response.body());
        }
        return response;
    }

    /**
     * Each endpoint called once on connections where auto_explain reports every statement to the client (its
     * messages at level LOG, which client_min_messages lets through): the JDBC driver hands them to the statement as
     * warnings and Spring's JdbcTemplate logs those at debug, where this collects the ones of the request's thread.
     * Inside a transaction PostgreSQL reports a statement's plan with the next statement's answer, so the last plan
     * of a transaction comes with its commit, which no log shows ({@link #explainTransitionCounts}).
     */
    private static void explain(ConfigurableApplicationContext app, StringBuilder report)
            throws IOException, InterruptedException {
        List<ILoggingEvent> events = new CopyOnWriteArrayList<>();
        AppenderBase<ILoggingEvent> collector = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent event) {
                if (event.getThreadName().startsWith("http-") && event.getFormattedMessage().contains("plan:")) {
                    events.add(event);
                }
            }
        };
        LoggerContext logging = (LoggerContext) LoggerFactory.getILoggerFactory();
        collector.setContext(logging);
        collector.start();
        for (String name : List.of("org.springframework.jdbc.core.JdbcTemplate",
                "dev.durable.runtime.jdbc.FreshlyPlannedJdbcTemplate")) {
            Logger logger = logging.getLogger(name);
            logger.setLevel(Level.DEBUG);
            logger.setAdditive(false);
            logger.addAppender(collector);
        }
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://localhost:" + ((WebServerApplicationContext) app).getWebServer().getPort() + PATH;
        for (String[] endpoint : ENDPOINTS) {
            get(http, base + endpoint[1]);
            events.clear();
            get(http, base + endpoint[1]);
            line(report, "## " + endpoint[0] + ": GET " + PATH + endpoint[1] + ", " + events.size() + " statements");
            for (ILoggingEvent event : events) {
                String message = event.getFormattedMessage();
                int start = message.indexOf("duration:");
                line(report, message.substring(start, message.endsWith("]") ? message.length() - 1
                        : message.length()).strip());
                line(report, "");
            }
        }
    }

    /**
     * The diagram's traffic as DiagramRepository runs it, its last statement in a transaction of its own: PostgreSQL
     * reports the plan of such a statement when the transaction ends, to the commit, which no log above sees. Then one
     * turn of the history rollup over the oldest entries, as after the upgrade, rolled back.
     */
    private static void explainTransitionCounts(DataSource dataSource, String schema, StringBuilder report) {
        NamedParameterJdbcTemplate jdbc = new NamedParameterJdbcTemplate(dataSource);
        TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        for (String[] window : List.of(new String[] {"parcel", "60"}, new String[] {"parcel", "1440"},
                new String[] {"parcel", "10080"})) {
            line(report, "## machine: " + window[0] + ", " + window[1] + " min: the transition counts, planned after"
                    + " DiagramRepository.LOOP_JOINS in one transaction");
            transaction.executeWithoutResult(status -> {
                jdbc.update(qualified(DiagramRepository.LOOP_JOINS, schema), Map.of());
                Instant rolled = jdbc.query(qualified(DiagramRepository.ROLLED_UNTIL, schema), Map.of(),
                        (rs, i) -> rs.getObject(1, OffsetDateTime.class).toInstant()).stream().findFirst()
                        .orElse(null);
                explainAnalyzed(jdbc, qualified(DiagramRepository.TRANSITION_COUNTS, schema), DiagramRepository
                        .window(window[0], Instant.now().minusSeconds(60 * Long.parseLong(window[1])), rolled), report);
            });
            line(report, "");
        }
        line(report, "## one turn of the history rollup, the oldest " + HistoryRollup.ENTRIES_PER_TURN
                + " entries, planned after DiagramRepository.LOOP_JOINS, rolled back");
        transaction.executeWithoutResult(status -> {
            status.setRollbackOnly();
            jdbc.update("UPDATE " + schema + ".durable_history_rollup SET rolled_until = '-infinity'", Map.of());
            jdbc.update(qualified(DiagramRepository.LOOP_JOINS, schema), Map.of());
            Map<String, Object> span = jdbc.queryForMap(qualified(DiagramRepository.ROLLUP_SPAN, schema),
                    Map.of("entries", HistoryRollup.ENTRIES_PER_TURN));
            line(report, "span: " + span);
            explainAnalyzed(jdbc, qualified(DiagramRepository.ROLL_UP, schema), Map.of(
                    "rolledFrom", span.get("rolled_from"), "rolledUntil", span.get("rolled_until")), report);
        });
        line(report, "");
    }

    private static void explainAnalyzed(NamedParameterJdbcTemplate jdbc, String sql, Map<String, ?> parameters,
            StringBuilder report) {
        jdbc.queryForList("EXPLAIN (ANALYZE, BUFFERS) " + sql, parameters).forEach(row -> line(report,
                String.valueOf(row.get("QUERY PLAN"))));
    }

    private static String qualified(String sql, String schema) {
        return sql.replace("{schema}", schema);
    }

    private static ConfigurableApplicationContext start(TestPostgres postgres, String schema, boolean explained) {
        Map<String, Object> properties = new java.util.LinkedHashMap<>(Map.of(
                "server.port", "0",
                "spring.datasource.url", postgres.jdbcUrl(),
                "spring.datasource.username", postgres.username(),
                "spring.datasource.password", postgres.password(),
                "durable.schema", schema,
                "durable.dashboard.enabled", "true",
                "durable.initialize-schema", "false",
                "durable.queues.parcels.concurrency", "4",
                "durable.queues.orders.concurrency", "4",
                "logging.level.root", "warn"));
        if (explained) {
            properties.put("spring.datasource.hikari.connection-init-sql", "LOAD 'auto_explain';"
                    + " SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = on;"
                    + " SET auto_explain.log_buffers = on; SET auto_explain.log_timing = on;"
                    + " SET client_min_messages = log");
        }
        return new SpringApplicationBuilder(ScaleApplication.class).properties(properties).run();
    }

    /** Runs a script of this package statement by statement, outside a transaction (it vacuums). */
    private static void runScript(DataSource dataSource, String schema, String name) throws IOException,
            SQLException {
        String script;
        try (InputStream in = DashboardScale.class.getResourceAsStream(name)) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        StringBuilder code = new StringBuilder();
        script.lines().filter(line -> !line.strip().startsWith("--")).forEach(line -> code.append(line).append('\n'));
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(true);
            statement.execute("SET search_path TO " + schema);
            for (String sql : code.toString().split(";\\s*\\n")) {
                if (!sql.isBlank()) {
                    long began = System.nanoTime();
                    statement.execute(sql);
                    System.out.println("# " + (System.nanoTime() - began) / 1_000_000 + " ms: "
                            + sql.strip().lines().findFirst().orElse(""));
                }
            }
            statement.execute("SET search_path TO DEFAULT");
        }
    }

    private static void describeTables(DataSource dataSource, String schema, StringBuilder report)
            throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             var rows = statement.executeQuery("SELECT c.relname, c.reltuples::bigint,"
                     + " pg_size_pretty(pg_table_size(c.oid)), pg_size_pretty(pg_indexes_size(c.oid))"
                     + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                     + " WHERE n.nspname = '" + schema + "' AND c.relname IN ('durable_instance', 'durable_history',"
                     + " 'durable_signal', 'durable_history_minute') ORDER BY 1")) {
            while (rows.next()) {
                line(report, "# " + rows.getString(1) + ": about " + rows.getLong(2) + " rows, table "
                        + rows.getString(3) + ", indexes " + rows.getString(4));
            }
        }
    }

    private static String commit() {
        try {
            Process git = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").redirectErrorStream(true).start();
            String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return git.waitFor() == 0 ? out : "unknown";
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    private static String format(long micros) {
        return micros >= 100_000 ? String.valueOf(micros / 1000) : String.format("%.1f", micros / 1000.0);
    }

    private static void line(StringBuilder report, String text) {
        System.out.println(text);
        report.append(text).append('\n');
    }
}
