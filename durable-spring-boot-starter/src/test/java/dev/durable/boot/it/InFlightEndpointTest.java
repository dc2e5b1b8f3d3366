package dev.durable.boot.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.DurableClient;
import dev.durable.InFlightReport;
import dev.durable.InstanceStatus;
import dev.durable.boot.autoconfigure.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import tools.jackson.databind.JsonNode;

/**
 * What is in flight and the deploy check over HTTP (docs/DESIGN.md, "What is in flight", "The deploy check"):
 * {@code /actuator/durable/in-flight} answers the in-flight file itself, and {@code /actuator/durable/deploy-check}
 * this node's verdicts on the database, with what to do about each problem.
 */
class InFlightEndpointTest extends IntegrationTest {

    @Autowired
    DurableClient durable;

    @Value("${local.server.port}")
    int port;

    @TempDir
    Path directory;

    @Test
    void whatIsInFlightIsAnsweredAsItsFileAndTheSavedAnswerReadsBack() throws Exception {
        long parked = durable.start(Workflow.class, new Workflow.State("ann", 0)).id();
        await().atMost(Duration.ofSeconds(20)).until(() -> TestDatabase.status(parked).equals("awaiting_signal"));

        Http.Response answer = new Http(port).get("/actuator/durable/in-flight");

        assertThat(answer.status()).isEqualTo(200);
        JsonNode json = answer.json();
        assertThat(json.path("format").asString()).isEqualTo(InFlightReport.FORMAT);
        assertThat(json.path("formatVersion").asInt()).isEqualTo(InFlightReport.FORMAT_VERSION);
        Path saved = Files.writeString(directory.resolve("in-flight.json"), answer.body());
        InFlightReport read = InFlightReport.read(saved);
        assertThat(read.groups()).isEqualTo(durable.inFlight().groups());
        assertThat(read.groups()).singleElement().satisfies(group -> {
            assertThat(group.describe()).isEqualTo("workflow v1 at step 'wait' (awaiting_signal)");
            assertThat(group.status()).isEqualTo(InstanceStatus.AWAITING_SIGNAL);
            assertThat(group.shapes()).singleElement().satisfies(shape -> assertThat(shape.paths())
                    .containsExactly("$: object", "$.count: number", "$.name: string"));
        });
        assertThat(answer.body()).as("no stored value is served").doesNotContain("ann");
    }

    @Test
    void theDeployCheckNamesWhatThisNodesCodeCannotRunAndWhatToDo() throws Exception {
        TestDatabase.jdbc().update("INSERT INTO " + TestDatabase.SCHEMA + ".durable_instance (machine,"
                + " machine_version, step, state, queue) VALUES ('workflow', 9, 'start', '{}', 'default')");
        Http http = new Http(port);

        JsonNode check = http.get("/actuator/durable/deploy-check").json();

        assertThat(check.path("passed").asBoolean()).isFalse();
        assertThat(check.path("heldByDeployCheck").asBoolean()).isFalse();
        JsonNode problem = check.path("problems").get(0);
        assertThat(problem.path("machine").asString()).isEqualTo("workflow");
        assertThat(problem.path("version").asInt()).isEqualTo(9);
        assertThat(problem.path("status").asString()).isEqualTo("runnable");
        assertThat(problem.path("count").asLong()).isOne();
        assertThat(problem.path("verdict").asString()).isEqualTo("version_not_registered");
        assertThat(problem.path("reason").asString()).isEqualTo("this code registers workflow [v1], not v9");
        assertThat(problem.path("advice").asString()).startsWith("Register workflow v9 again");
        assertThat(http.get("/actuator/durable").json().path("node").path("heldByDeployCheck").asBoolean()).isFalse();
    }
}
