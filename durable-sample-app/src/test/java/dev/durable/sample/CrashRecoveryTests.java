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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's demo as a test: the sample app, on its embedded PostgreSQL, is killed with SIGKILL while an order
 * waits for its payment; started again on the same data, it takes the payment and completes the order.
 */
class CrashRecoveryTests {

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
        int firstPort = freePort();
        long order;
        try (ChildJvm first = start(data, firstPort)) {
            // Each run says whether its database commits durably (a killed app must not be the only honest part).
            assertThat(first.awaitLineContaining("durably", Duration.ofSeconds(30)))
                    .contains("INFO").contains("PostgreSQL commits durably")
                    .contains("fsync=on, synchronous_commit=on, full_page_writes=on");
            SampleHttp http = new SampleHttp(firstPort);
            order = http.placeOrder(42);
            await().atMost(Duration.ofSeconds(30)).until(() -> http.status(order).equals("awaiting_signal"));
            first.kill();
        }
        // Killed: no shutdown ran, so the database server is still up on the same data.
        assertThat(Files.exists(data.resolve("postmaster.pid"))).isTrue();

        int secondPort = freePort();
        try (ChildJvm second = start(data, secondPort)) {
            // The second run adopts the server the first left running: still durable.
            assertThat(second.awaitLineContaining("durably", Duration.ofSeconds(30)))
                    .contains("PostgreSQL commits durably");
            SampleHttp http = new SampleHttp(secondPort);
            assertThat(http.status(order)).isEqualTo("awaiting_signal");
            assertThat(http.pay(order, "evt-after-crash").status()).isEqualTo(202);
            await().atMost(Duration.ofSeconds(30)).until(() -> http.status(order).equals("done"));
            assertThat(http.order(order).json().path("result").path("tracking").asString())
                    .isEqualTo("TRK-" + order + "-42");
            assertThat(second.stop(Duration.ofSeconds(30))).isTrue();
        }
        // The graceful stop of the second run stopped the database server too.
        await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(data.resolve("postmaster.pid")));
    }

    private static ChildJvm start(Path data, int port) throws Exception {
        ChildJvm app = ChildJvm.start(SampleApplication.class, "--server.port=" + port,
                "--sample.postgres.data-dir=" + data, "--durable.node-name=crash-test", "--durable.poll-interval=200ms",
                "--sample.carrier.failure-rate=0", "--spring.main.banner-mode=off");
        app.awaitLineContaining("Started SampleApplication", Duration.ofSeconds(90));
        return app;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
