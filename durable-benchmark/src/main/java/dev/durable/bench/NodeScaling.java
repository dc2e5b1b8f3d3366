package dev.durable.bench;

import dev.durable.DurableClient;
import dev.durable.StartOptions;
import dev.durable.StartRequest;
import dev.durable.runtime.QueueSettings;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * (n) Scaling with nodes: one-step no-op instances drained by 1, 2 and 4 nodes, each a JVM of its own
 * ({@link ScalingNode}) at the queue's defaults, on one database. Per drain: fresh nodes are started and warmed up on
 * a drain of their own ({@code bench.scalingWarmUp} instances per node), then given the measured backlog, inserted in
 * one transaction so that every node hears of all of it at the same instant (its commit's notification); the drain
 * is timed from that commit until no row is runnable or executing. The node counts are interleaved round by round
 * (the machine drifts); medians. Each drain's CPU: the nodes' JVMs (their own process CPU time) and PostgreSQL's, per
 * step from the commit on (the starts' insert is the benchmark's); the share of the steps each node committed (a node
 * that gets no work shows here); rows per pick; the engine's commits per step (its picks and outcome flushes); the WAL
 * the server wrote per instance, its start included; the most pool connections a node had in use at once.
 *
 * <p>Each node count is drained twice per round: without a limit, and with the queue's cluster-wide concurrency
 * ({@code bench.scalingClusterConcurrency}, 20; docs/DESIGN.md, "Cluster-wide limits") set on every node, on
 * {@code bench.scalingLimitedInstances} instances (20,000) after a quarter as many per node to warm up.
 *
 * <p>On one host the nodes share its cores with each other and with PostgreSQL: more nodes add no CPU, so what this
 * shows is whether adding nodes costs throughput (contention on the queue's rows and index, more connections, more
 * wake-ups), not how a cluster of separate machines scales. docs/PERFORMANCE.md ("Scaling with nodes") reads it.
 */
final class NodeScaling {

    private static final int[] NODES = Arrays.stream(System.getProperty("bench.scalingNodes", "1,2,4").split(","))
            .map(String::strip).mapToInt(Integer::parseInt).toArray();
    private static final int INSTANCES = Integer.getInteger("bench.scalingInstances", 50_000);
    private static final int WARM_UP = Integer.getInteger("bench.scalingWarmUp", 20_000);
    private static final int ROUNDS = Integer.getInteger("bench.rounds", 3);
    /**
     * The queue's cluster-wide concurrency of the limited drains, each node count drained once without a limit and
     * once with it (0: no limited drains). The limit counts claims (rows running, waiting for a slot or committing),
     * so 20 binds at every node count: one node at the default 10 slots claims more at once.
     */
    private static final int CLUSTER_CONCURRENCY = Integer.getInteger("bench.scalingClusterConcurrency", 20);
    /** Instances of a limited drain: fewer, as the limit bounds its rate (K over a claim's whole life). */
    private static final int LIMITED_INSTANCES = Integer.getInteger("bench.scalingLimitedInstances", 20_000);
    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(10);

    private final Benchmark benchmark;
    private final DataSource dataSource;
    private final JdbcTemplate jdbc;
    private final DurableClient client;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final @Nullable PostgresCpu postgresCpu;

    NodeScaling(Benchmark benchmark, DataSource dataSource, DurableClient client, String jdbcUrl, String user,
            String password) {
        this.benchmark = benchmark;
        this.dataSource = dataSource;
        this.jdbc = new JdbcTemplate(dataSource);
        this.client = client;
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.postgresCpu = PostgresCpu.of(jdbc);
    }

    /** One measured drain: its rate, the CPU it cost and how the steps were shared. */
    record Drain(double rate, double jvmSecondsPerStep, double postgresSecondsPerStep, double rowsPerPick,
            double commitsPerStep, double walBytesPerStep, double smallestShare, double postgresCores,
            int connectionsPerNode) {
    }

    void run() throws Exception {
        List<Integer> limits = CLUSTER_CONCURRENCY == 0 ? List.of(0) : List.of(0, CLUSTER_CONCURRENCY);
        Map<String, List<Drain>> drains = new LinkedHashMap<>();
        for (int limit : limits) {
            for (int nodes : NODES) {
                drains.put(name(nodes, limit), new ArrayList<>());
            }
        }
        for (int round = 0; round < ROUNDS; round++) {
            for (int limit : limits) {
                for (int nodes : NODES) {
                    drains.get(name(nodes, limit)).add(drain(nodes, limit, round));
                }
            }
        }
        for (int limit : limits) {
            double single = median(drains.get(name(NODES[0], limit)).stream().mapToDouble(Drain::rate).toArray());
            for (int nodes : NODES) {
                List<Drain> list = drains.get(name(nodes, limit));
                double rate = median(list.stream().mapToDouble(Drain::rate).toArray());
                benchmark.report("n." + name(nodes, limit), rate, "instances/s", String.format(Locale.ROOT,
                        "ratio_to_%d_node=%.2f cpu_per_step jvm=%s postgres=%s postgres_cores=%.2f rows/pick=%.1f"
                                + " commits/step=%.4f wal_bytes/step=%.0f connections_in_use_per_node=%d"
                                + " smallest_node_share=%.2f all=%s",
                        NODES[0], rate / single,
                        micros(median(list.stream().mapToDouble(Drain::jvmSecondsPerStep).toArray())),
                        micros(median(list.stream().mapToDouble(Drain::postgresSecondsPerStep).toArray())),
                        median(list.stream().mapToDouble(Drain::postgresCores).toArray()),
                        median(list.stream().mapToDouble(Drain::rowsPerPick).toArray()),
                        median(list.stream().mapToDouble(Drain::commitsPerStep).toArray()),
                        median(list.stream().mapToDouble(Drain::walBytesPerStep).toArray()),
                        list.stream().mapToInt(Drain::connectionsPerNode).max().orElse(0),
                        list.stream().mapToDouble(Drain::smallestShare).min().orElse(Double.NaN),
                        Arrays.toString(list.stream().mapToLong(d -> Math.round(d.rate())).toArray())));
            }
        }
    }

    /** A drain's figure name: {@code nodes_4}, or {@code nodes_4_cluster_concurrency_20} under the limit. */
    private static String name(int nodes, int limit) {
        return "nodes_" + nodes + (limit == 0 ? "" : "_cluster_concurrency_" + limit);
    }

    private Drain drain(int count, int limit, int round) throws Exception {
        int instances = limit == 0 ? INSTANCES : LIMITED_INSTANCES;
        benchmark.clean();
        List<Node> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                nodes.add(Node.start(List.of(jdbcUrl, user, password, Benchmark.SCHEMA, "scaling-" + i,
                        Integer.toString(QueueSettings.DEFAULT_CONCURRENCY), Integer.toString(limit))));
            }
            for (Node node : nodes) {
                node.expect("ready");
            }
            for (Node node : nodes) {
                node.ask("go", "started");
            }
            // Each node's JIT gets the same warm-up; a limited drain's is shorter, as the limit bounds its rate.
            insertInOneTransaction((limit == 0 ? WARM_UP : LIMITED_INSTANCES / 4) * count);
            awaitDrained();
            benchmark.clean();
            String walBefore = jdbc.queryForObject("SELECT pg_current_wal_lsn()::text", String.class);
            long begin = insertInOneTransaction(instances);
            // The CPU from the commit on: the drain's picks, steps and outcomes, not the benchmark's insert.
            long[][] before = cpu(nodes);
            double postgresBefore = postgresCpu == null ? Double.NaN : postgresCpu.seconds();
            awaitDrained();
            double seconds = (System.nanoTime() - begin) / 1e9;
            double postgres = postgresCpu == null ? Double.NaN : postgresCpu.seconds() - postgresBefore;
            Long walBytes = jdbc.queryForObject("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ?::pg_lsn)::bigint",
                    Long.class, walBefore); // the insert's WAL too: a start is part of a one-step instance's cost
            long[][] after = cpu(nodes);
            double jvm = 0;
            long picks = 0;
            long picked = 0;
            long flushes = 0;
            int connections = 0;
            long smallest = Long.MAX_VALUE;
            StringBuilder shares = new StringBuilder();
            for (int i = 0; i < count; i++) {
                jvm += (after[i][0] - before[i][0]) / 1e9;
                long committed = after[i][1] - before[i][1];
                smallest = Math.min(smallest, committed);
                picks += after[i][2] - before[i][2];
                picked += after[i][3] - before[i][3];
                flushes += after[i][4] - before[i][4];
                connections = Math.max(connections, (int) after[i][5]);
                shares.append(i == 0 ? "" : "/").append(committed);
            }
            Drain drain = new Drain(instances / seconds, jvm / instances, postgres / instances,
                    picked / (double) Math.max(1, picks), (picks + flushes) / (double) instances,
                    walBytes / (double) instances, smallest * count / (double) instances, postgres / seconds,
                    connections);
            Benchmark.note(String.format(Locale.ROOT,
                    "n round %d, %s: %d instances in %.2f s, %.0f/s; steps per node %s;"
                            + " jvm=%.2fs postgres=%.2fs; load average %s",
                    round, name(count, limit), instances, seconds, drain.rate(), shares, jvm, postgres,
                    loadAverage()));
            return drain;
        } finally {
            for (Node node : nodes) {
                node.stop();
            }
        }
    }

    /**
     * Every node's process CPU nanoseconds, steps committed, picks, rows picked, outcome flushes, and the most
     * connections it had in use at once since the last ask.
     */
    private static long[][] cpu(List<Node> nodes) throws IOException {
        long[][] figures = new long[nodes.size()][];
        for (int i = 0; i < nodes.size(); i++) {
            String[] words = nodes.get(i).ask("cpu", "cpu ").split(" ");
            figures[i] = new long[] {Long.parseLong(words[1]), Long.parseLong(words[2]), Long.parseLong(words[3]),
                    Long.parseLong(words[4]), Long.parseLong(words[5]), Long.parseLong(words[6])};
        }
        return figures;
    }

    /**
     * All n rows become visible at one commit, so no node starts on part of the backlog before the others; returns the
     * time of that commit. No ANALYZE follows: the nodes are at work from the commit on, and the hot statements are
     * planned for the table as it is while its statistics say it is small (docs/DESIGN.md, "Statement planning").
     */
    private long insertInOneTransaction(int n) {
        new TransactionTemplate(new DataSourceTransactionManager(dataSource)).executeWithoutResult(status -> {
            for (int from = 0; from < n; from += 1000) {
                client.startAll("noop", IntStream.range(from, Math.min(n, from + 1000))
                        .mapToObj(i -> StartRequest.of(new Benchmark.Sample(i), StartOptions.defaults())).toList());
            }
        });
        return System.nanoTime();
    }

    private void awaitDrained() throws InterruptedException {
        long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
        String table = Benchmark.SCHEMA + ".durable_instance";
        String left = "SELECT EXISTS (SELECT 1 FROM " + table + " WHERE status = 'runnable')"
                + " OR EXISTS (SELECT 1 FROM " + table + " WHERE status = 'executing')";
        while (Boolean.TRUE.equals(jdbc.queryForObject(left, Boolean.class))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the nodes did not drain the queue within " + DRAIN_TIMEOUT);
            }
            Thread.sleep(5); // the benchmark's own polling for the end of a drain, not engine synchronization
        }
    }

    /** The machine's load over the last minute: this host may be shared, and the load shows it. */
    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "n/a";
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static String micros(double seconds) {
        return String.format(Locale.ROOT, "%.1fus", seconds * 1e6);
    }

    /** A node's JVM and the two ends of its command line. */
    private static final class Node {

        private final Process process;
        private final Path log;
        private final PrintWriter commands;
        private final BufferedReader answers;

        private Node(Process process, Path log) {
            this.process = process;
            this.log = log;
            this.commands = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
            this.answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        static Node start(List<String> arguments) throws IOException {
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), ScalingNode.class.getName()));
            command.addAll(arguments);
            Path log = Files.createTempFile("durable-scaling-node", ".log");
            return new Node(new ProcessBuilder(command).redirectError(log.toFile()).start(), log);
        }

        /** Sends a command and returns the answer that starts with {@code expected}. */
        String ask(String command, String expected) throws IOException {
            commands.println(command);
            return expect(expected);
        }

        /** Reads the node's output up to its answer that starts with {@code expected}; log lines are skipped. */
        String expect(String expected) throws IOException {
            for (String line = answers.readLine(); line != null; line = answers.readLine()) {
                if (line.startsWith(ScalingNode.PREFIX)) {
                    String answer = line.substring(ScalingNode.PREFIX.length());
                    if (!answer.startsWith(expected)) {
                        throw new IllegalStateException("a scaling node answered '" + answer + "', not '" + expected
                                + "'");
                    }
                    return answer;
                }
            }
            throw new UncheckedIOException(new IOException("a scaling node exited (exit code "
                    + waitForExit() + ") before answering '" + expected + "'; its standard error is in " + log));
        }

        private int waitForExit() {
            try {
                return process.waitFor(10, TimeUnit.SECONDS) ? process.exitValue() : -1;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }

        /** Stops the node; its log is deleted if it stopped cleanly, kept (and named above) if not. */
        void stop() {
            boolean clean = false;
            try {
                if (process.isAlive()) {
                    ask("stop", "stopped");
                    clean = true;
                }
            } catch (IOException | RuntimeException e) {
                // it is killed below
            }
            process.destroyForcibly();
            if (clean) {
                try {
                    Files.deleteIfExists(log);
                } catch (IOException e) {
                    // a temporary file left behind
                }
            }
        }
    }
}
