package dev.durable.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * PostgreSQL's own commit rate, measured by its own client: {@code pgbench} committing one {@code UPDATE} of one row
 * (a random one of 100,000) per transaction, prepared, from a number of clients on two threads. This is the
 * baseline of issue 29's (u): what the database does when a client asks nothing of it but single-row commits, with
 * no JVM in the way. Found on the {@code PATH}, in {@code PGBENCH}, or under {@code /usr/lib/postgresql/<major>/bin};
 * null (and the scenario says so) when there is none or the database is not reachable by host and port.
 */
final class PgBench {

    private static final Pattern TPS = Pattern.compile("^tps = ([0-9.]+) \\(without initial connection time\\)",
            Pattern.MULTILINE);
    private static final int ROWS = 100_000;

    private final Path executable;
    private final List<String> connection;
    private final JdbcTemplate jdbc;
    private final String table;

    private PgBench(Path executable, List<String> connection, JdbcTemplate jdbc, String schema) {
        this.executable = executable;
        this.connection = connection;
        this.jdbc = jdbc;
        this.table = schema + ".pgbench_one_row";
    }

    /** A pgbench for the database of {@code jdbcUrl}, or null with the reason printed. */
    static @Nullable PgBench find(String jdbcUrl, String user, JdbcTemplate jdbc, String schema) {
        Path executable = executable(jdbc);
        if (executable == null) {
            System.out.println("# u: no pgbench found (PATH, PGBENCH, /usr/lib/postgresql/*/bin): no baseline");
            return null;
        }
        // jdbc:postgresql://host:port/database?params; a multi-host or socket URL is not for pgbench.
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        if (uri.getHost() == null || uri.getPath() == null || uri.getPath().length() < 2) {
            System.out.println("# u: pgbench cannot reach " + jdbcUrl + ": no baseline");
            return null;
        }
        List<String> connection = List.of("-h", uri.getHost(), "-p", String.valueOf(uri.getPort() < 0 ? 5432
                : uri.getPort()), "-U", user, uri.getPath().substring(1));
        return new PgBench(executable, connection, jdbc, schema);
    }

    private static @Nullable Path executable(JdbcTemplate jdbc) {
        String given = System.getenv("PGBENCH");
        if (given != null && !given.isBlank()) {
            return Path.of(given);
        }
        for (String directory : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path candidate = Path.of(directory, "pgbench");
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        // Debian keeps the server's tools beside it; the client of the server's own major version first.
        String major = jdbc.queryForObject("SELECT current_setting('server_version_num')::int / 10000", String.class);
        Path same = Path.of("/usr/lib/postgresql", major, "bin", "pgbench");
        if (Files.isExecutable(same)) {
            return same;
        }
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map(version -> version.resolve("bin/pgbench")).filter(Files::isExecutable).findFirst()
                    .orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    /** Creates the table pgbench updates: 100,000 rows, vacuumed, so every run starts from the same table. */
    void prepare() {
        jdbc.execute("DROP TABLE IF EXISTS " + table);
        jdbc.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, v bigint NOT NULL)");
        jdbc.update("INSERT INTO " + table + " SELECT g, 0 FROM generate_series(1, ?) g", ROWS);
        jdbc.execute("VACUUM ANALYZE " + table);
    }

    /** Commits per second of {@code clients} clients over {@code seconds}. */
    double commitsPerSecond(int clients, int seconds) throws IOException, InterruptedException {
        Path script = Files.createTempFile("durable-pgbench", ".sql");
        try {
            Files.writeString(script, "\\set id random(1, " + ROWS + ")\nUPDATE " + table
                    + " SET v = v + 1 WHERE id = :id;\n", StandardCharsets.UTF_8);
            List<String> command = new ArrayList<>(List.of(executable.toString(), "-n", "-M", "prepared", "-f",
                    script.toString(), "-c", String.valueOf(clients), "-j", String.valueOf(Math.min(clients, 2)),
                    "-T", String.valueOf(seconds)));
            command.addAll(connection);
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(seconds + 120L, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("pgbench failed: " + command + "\n" + output);
            }
            Matcher tps = TPS.matcher(output);
            if (!tps.find()) {
                throw new IllegalStateException("pgbench printed no tps: " + output);
            }
            double rate = Double.parseDouble(tps.group(1));
            System.out.println("# u: pgbench " + clients + " clients: " + String.format(Locale.ROOT, "%.0f", rate)
                    + " commits/s");
            return rate;
        } finally {
            Files.deleteIfExists(script);
        }
    }
}
