package dev.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every enum of the client API has one spelling outside Java code, its lower-case name, as {@link InstanceStatus} has:
 * so a result written by Jackson never mixes {@code "CANCELLED"} with {@code "awaiting_signal"} in one object, and reads
 * as the actuator and the metric tags spell the same values.
 */
class JsonSpellingTest {

    private final JsonMapper json = JsonMapper.builder().build();

    @Test
    void aCancelResultIsWrittenWithOneSpellingAndReadBack() {
        CancelResult cancelled = new CancelResult(17, CancelResult.Cancellation.CANCELLED,
                InstanceStatus.AWAITING_SIGNAL);

        JsonNode written = json.readTree(json.writeValueAsString(cancelled));

        assertThat(written.path("instanceId").asLong()).isEqualTo(17);
        assertThat(written.path("outcome").asString()).isEqualTo("cancelled");
        assertThat(written.path("status").asString()).isEqualTo("awaiting_signal");
        assertThat(json.readValue("{\"instanceId\":17,\"outcome\":\"cancelled\",\"status\":\"awaiting_signal\"}",
                CancelResult.class)).isEqualTo(cancelled);
    }

    @Test
    void theOtherResultsAndTheHistoryAreWrittenWithOneSpelling() {
        JsonNode retry = json.readTree(json.writeValueAsString(new RetryResult(3, RetryResult.Retry.RESUMED,
                InstanceStatus.SUSPENDED)));
        assertThat(retry.path("outcome").asString()).isEqualTo("resumed");
        assertThat(retry.path("status").asString()).isEqualTo("suspended");
        assertThat(json.readTree(json.writeValueAsString(new SignalResult(0,
                SignalResult.Delivery.REFUSED_NO_KEY_HOLDER, false))).path("delivery").asString())
                .isEqualTo("refused_no_key_holder");
        HistoryEntry entry = new HistoryEntry(1, 2, "ship", HistoryEntry.Event.RETRY_FAILED, null,
                InstanceStatus.RUNNABLE, 0, "node-1", null, Instant.EPOCH, null, null, List.of(),
                StatePatch.parse("[{\"op\":\"replace\",\"path\":\"/totalCents\",\"value\":1250}]"), null);
        JsonNode written = json.readTree(json.writeValueAsString(entry));
        assertThat(written.path("event").asString()).isEqualTo("retry_failed");
        // A patch is written as its RFC 6902 array.
        assertThat(written.path("patch").toString())
                .isEqualTo("[{\"op\":\"replace\",\"path\":\"/totalCents\",\"value\":1250}]");
        assertThat(written.path("status").asString()).isEqualTo("runnable");
        assertThat(json.readValue(json.writeValueAsString(entry), HistoryEntry.class)).isEqualTo(entry);
    }

    @Test
    void everyEnumOfTheClientApiIsWrittenAndReadByItsLowerCaseLabel() {
        List<Class<?>> enums = publicEnumsOfThePackage();
        assertThat(enums).as("the enums found, so that the loop below is not vacuous").contains(InstanceStatus.class,
                MissPolicy.class, CancelResult.Cancellation.class, RetryResult.Retry.class,
                SignalResult.Delivery.class, HistoryEntry.Event.class, InstanceQuery.Order.class, Outcome.Kind.class,
                Outcome.Join.class, Target.Kind.class);
        for (Class<?> type : enums) {
            for (Object constant : type.getEnumConstants()) {
                String label = ((Enum<?>) constant).name().toLowerCase(Locale.ROOT);
                String written = json.writeValueAsString(constant);
                assertThat(written).as("%s.%s in JSON", type.getName(), constant).isEqualTo("\"" + label + "\"");
                assertThat(json.readValue(written, type)).as("%s read back", written).isEqualTo(constant);
            }
        }
    }

    @Test
    void anUpperCaseSpellingIsRefusedNamingTheLabels() {
        assertThatThrownBy(() -> json.readValue("\"CANCELLED\"", CancelResult.Cancellation.class))
                .isInstanceOf(DatabindException.class)
                .hasMessageContaining("Unknown Cancellation 'CANCELLED'; the labels are cancelled, already_cancelled,"
                        + " refused_unknown_instance, refused_terminal_instance, refused_no_key_holder");
        assertThatThrownBy(() -> SignalResult.Delivery.fromLabel("Delivered"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("Unknown Delivery 'Delivered'");
    }

    /** The public enums of {@code dev.durable}, top-level and nested in its public types, from the compiled classes. */
    private static List<Class<?>> publicEnumsOfThePackage() {
        List<Class<?>> enums = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of(InstanceStatus.class.getResource("InstanceStatus.class").toURI())
                .getParent())) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = file.getFileName().toString().replaceFirst("\\.class$", "");
                Class<?> type = Class.forName("dev.durable." + name);
                if (type.isEnum() && Modifier.isPublic(type.getModifiers())
                        && (type.getEnclosingClass() == null || Modifier.isPublic(type.getEnclosingClass()
                        .getModifiers()))) {
                    enums.add(type);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException | ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
        return enums;
    }
}
