package dev.durable.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.jdbc.DurableSchema;
import dev.durable.sample.order.Cancellation;
import dev.durable.sample.order.Line;
import dev.durable.sample.order.Order;
import dev.durable.sample.order.OrderWorkflow;
import dev.durable.sample.order.Payment;
import dev.durable.sample.order.ReserveLine;
import dev.durable.sample.order.Shipment;
import dev.durable.sample.report.NightlyReport;
import dev.durable.sample.report.OrderReport;
import dev.durable.test.process.ChildJvm;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The crash demo of {@link CrashRecoveryTest} with the application in AOT mode on the JVM: its context comes from
 * the code {@code spring-boot:process-aot} generated at build time (this module's build runs it before the tests),
 * as it would in a native image, which cannot be built here (docs/COMPATIBILITY.md, "AOT and native images").
 */
class AotCrashRecoveryTest extends CrashRecoveryTest {

    /** Where the build's AOT step writes the native-image metadata of this module, on the class path. */
    private static final String METADATA =
            "META-INF/native-image/dev.durable/durable-sample-app/reachability-metadata.json";

    @Test
    void theNativeImageMetadataTheBuildWroteHoldsWhatDurableNeedsForTheSamplesMachines() throws IOException {
        JsonNode metadata;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(METADATA)) {
            assertThat(in).as(METADATA).isNotNull();
            metadata = JsonMapper.builder().build().readTree(in);
        }
        Map<String, List<String>> methods = new HashMap<>();
        for (JsonNode type : metadata.path("reflection")) {
            List<String> names = new ArrayList<>();
            type.path("methods").forEach(method -> names.add(method.path("name").asString()));
            methods.put(type.path("type").asString(), names);
        }
        List<String> resources = new ArrayList<>();
        metadata.path("resources").forEach(resource -> resources.add(resource.path("glob").asString()));

        assertThat(methods.get(OrderWorkflow.class.getName())).as("the steps and the upcaster (its failures go to"
                + " the retry policy, without an error handler)")
                .containsExactlyInAnyOrder("reserve", "awaitPayment", "cancel", "ship", "linesFromVersion1");
        assertThat(methods.get(NightlyReport.class.getName())).containsExactly("count");
        assertThat(methods.get(Order.class.getName())).as("the state").contains("lines", "amountCents");
        assertThat(methods.get(ReserveLine.class.getName())).as("the child machine").containsExactly("reserve");
        assertThat(methods.get(Line.class.getName())).as("the child's state").contains("sku", "quantity");
        assertThat(methods.get(OrderReport.class.getName())).as("the state of the report").isNotEmpty();
        assertThat(methods).as("the signal's payload and the results").containsKeys(Payment.class.getName(),
                Shipment.class.getName(), Cancellation.class.getName());
        assertThat(resources).contains(DurableSchema.CHANGELOG).containsAll(DurableSchema.SQL_SCRIPTS);
    }

    @Override
    List<String> jvmOptions() {
        return List.of("-Dspring.aot.enabled=true");
    }

    @Override
    void awaitStarted(ChildJvm app) throws InterruptedException {
        // Spring Boot says which it runs: the generated initializer, or the classes processed at startup.
        assertThat(app.awaitLineContaining("SampleApplication using Java", Duration.ofSeconds(60)))
                .contains("Starting AOT-processed SampleApplication");
        super.awaitStarted(app);
    }
}
