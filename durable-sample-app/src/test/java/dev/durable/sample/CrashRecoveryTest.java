package dev.durable.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.test.process.ChildJvm;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The sample README's crash demo as a test: the sample app, on its embedded PostgreSQL, is killed with SIGKILL (by
 * the pid in its pid file) while an order waits for its payment and a load of orders is on its way; started again on
 * the same data, it takes the payment and completes the order, and pays and completes the load.
 */
class CrashRecoveryTest {

    private static final int LOAD = 20;

    @TempDir
    Path work;

    @AfterEach
    void stopLeftoverPostgres() throws IOException {
        // Should a run fail half-way, do not leave a PostgreSQL behind.
        Path pidFile = work.resolve("pg/postmaster.pid");
        if (Files.exists(pidFile)) {
            List<String> lines = Files.readAllLines(pidFile);
            ProcessHandle.of(Long.parseLong(lines.get(0).trim())).ifPresent(ProcessHandle::destroy);
        }
    }

    @Test
    void ordersCarryOnAfterTheAppIsKilledAndStartedAgain() throws Exception {
        Path data = work.resolve("pg");
        Path pidFile = work.resolve("sample.pid");
        int firstPort = freePort();
        long order;
        long firstLoadOrder;
        long lastLoadOrder;
        try (ChildJvm first = start(data, pidFile, firstPort)) {
            // Each run says whether its database commits durably (a killed app must not be the only honest part).
            assertThat(first.awaitLineContaining("durably", Duration.ofSeconds(30)))
                    .contains("INFO").contains("PostgreSQL commits durably")
                    .contains("fsync=on, synchronous_commit=on, full_page_writes=on");
            // What the demo's `kill -9 $(cat .data/sample.pid)` kills: the application, not Maven around it.
            assertThat(Files.readString(pidFile).trim()).isEqualTo(Long.toString(first.pid()));
            SampleHttp http = new SampleHttp(firstPort);
            order = http.placeOrder(42);
            SampleHttp.Response load = http.post("/load?orders=" + LOAD, "");
            assertThat(load.status()).isEqualTo(200);
            firstLoadOrder = load.json().path("firstId").asLong();
            lastLoadOrder = load.json().path("lastId").asLong();
            // One statement inserts the load's orders; the children of orders reserving their lines meanwhile may take
            // ids in between.
            assertThat(lastLoadOrder - firstLoadOrder).isGreaterThanOrEqualTo(LOAD - 1);
            await().atMost(Duration.ofSeconds(30)).until(() -> http.awaitsPayment(order));
            first.kill();
        }
        // Killed: no shutdown ran, so the database server is still up on the same data.
        assertThat(Files.exists(data.resolve("postmaster.pid"))).isTrue();

        int secondPort = freePort();
        try (ChildJvm second = start(data, pidFile, secondPort)) {
            // The second run adopts the server the first left running: still durable.
            assertThat(second.awaitLineContaining("durably", Duration.ofSeconds(30)))
                    .contains("PostgreSQL commits durably");
            assertThat(Files.readString(pidFile).trim()).isEqualTo(Long.toString(second.pid()));
            SampleHttp http = new SampleHttp(secondPort);
            assertThat(http.status(order)).isEqualTo("awaiting_signal");
            assertThat(http.pay(order, "evt-after-crash").status()).isEqualTo(202);
            await().atMost(Duration.ofSeconds(30)).until(() -> http.status(order).equals("done"));
            assertThat(http.order(order).json().path("result").path("tracking").asString())
                    .isEqualTo("TRK-" + order + "-42");

            // The load's orders (random amounts, at whatever step the crash left them) are paid in one call, each
            // once. Held, so none consumes its payment in between: the second call finds every payment stored.
            assertThat(queue(http, "pause").path("paused").asBoolean()).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> queue(http, null).path("claims").asInt() == 0);
            SampleHttp.Response firstPayAll = http.post("/load/pay", "");
            assertPaid(firstPayAll, LOAD);
            assertThat(firstPayAll.json().path("alreadyPaid").asInt()).isZero();
            SampleHttp.Response secondPayAll = http.post("/load/pay", "");
            assertPaid(secondPayAll, 0);
            assertThat(secondPayAll.json().path("alreadyPaid").asInt()).isEqualTo(LOAD);
            assertThat(queue(http, "resume").path("paused").asBoolean()).isFalse();
            await().atMost(Duration.ofSeconds(60)).until(() -> LongStream.rangeClosed(firstLoadOrder, lastLoadOrder)
                    .allMatch(id -> status(http, id).equals("done")));
            assertThat(queue(http, null).path("counts").path("failed").asInt()).isZero();
            SampleHttp.Response afterAll = http.post("/load/pay", "");
            assertPaid(afterAll, 0);
            assertThat(afterAll.json().path("alreadyPaid").asInt()).isZero();
            assertThat(second.stop(Duration.ofSeconds(30))).isTrue();
        }
        // The graceful stop of the second run stopped the database server too.
        await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(data.resolve("postmaster.pid")));
    }

    private static void assertPaid(SampleHttp.Response payAll, int paid) {
        assertThat(payAll.status()).isEqualTo(200);
        assertThat(payAll.json().path("paid").asInt()).as("paid, in %s", payAll.json()).isEqualTo(paid);
        assertThat(payAll.json().path("refused").asInt()).as("refused, in %s", payAll.json()).isZero();
    }

    /** The orders queue on this node, after a pause or resume {@code action} if one is given. */
    private static JsonNode queue(SampleHttp http, @Nullable String action) throws IOException, InterruptedException {
        if (action == null) {
            return http.get("/actuator/durable").json().path("queues").path("orders");
        }
        SampleHttp.Response response = http.post("/actuator/durable",
                "{\"queue\":\"orders\",\"action\":\"" + action + "\"}");
        assertThat(response.status()).as("%s the queue: %s", action, response.json()).isEqualTo(200);
        return response.json();
    }

    private static String status(SampleHttp http, long order) {
        try {
            return http.status(order);
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The JVM options of the application's runs. */
    List<String> jvmOptions() {
        return List.of();
    }

    /** Waits until the application has started. */
    void awaitStarted(ChildJvm app) throws InterruptedException {
        app.awaitLineContaining("Started SampleApplication", Duration.ofSeconds(90));
    }

    private ChildJvm start(Path data, Path pidFile, int port) throws Exception {
        ChildJvm app = ChildJvm.start(jvmOptions(), SampleApplication.class, "--server.port=" + port,
                "--sample.postgres.data-dir=" + data, "--spring.pid.file=" + pidFile,
                "--durable.node-name=crash-test", "--durable.poll-interval=200ms",
                "--durable.idle-poll-interval=200ms",
                "--sample.carrier.failure-rate=0", "--spring.main.banner-mode=off");
        awaitStarted(app);
        return app;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
