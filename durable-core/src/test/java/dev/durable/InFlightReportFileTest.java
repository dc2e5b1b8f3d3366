package dev.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The file an in-flight report is exported to (docs/DESIGN.md, "The in-flight file"): it reads back equal, and a file
 * that is not one this durable reads is refused naming the file, the line and column, and what was expected there.
 */
class InFlightReportFileTest {

    @TempDir
    Path directory;

    static InFlightReport report() {
        InFlightReport.Group parked = new InFlightReport.Group("order", 1, "pay", InstanceStatus.AWAITING_SIGNAL, 1234,
                true, 50, List.of(
                        new InFlightReport.Shape(List.of("$: object", "$.lines: array", "$.lines[]: object",
                                "$.lines[].sku: string", "$.reservation: string"), 48),
                        new InFlightReport.Shape(List.of("$: object", "$.reservation: null"), 2)),
                Map.of("payment", 12L, "cancel-request", 1L));
        InFlightReport.Group runnable = new InFlightReport.Group("order", 2, "ship", InstanceStatus.RUNNABLE, 10_000,
                false, 50, List.of(new InFlightReport.Shape(List.of("$: object", "$['odd key']: number"), 50)),
                Map.of());
        InFlightReport.Group failed = new InFlightReport.Group("order", 1, "ship", InstanceStatus.FAILED, 3, true, 3,
                List.of(new InFlightReport.Shape(List.of("$: string"), 3)), Map.of());
        return new InFlightReport(Instant.parse("2026-03-01T04:05:06.123456Z"), 50, 10_000, 10_000, true,
                List.of(parked, runnable), List.of(failed));
    }

    @Test
    void aReportWrittenToAFileReadsBackEqual() {
        Path file = directory.resolve("in-flight.json");
        InFlightReport report = report();

        report.write(file);

        assertThat(InFlightReport.read(file)).isEqualTo(report);
    }

    @Test
    void theFileNamesItsFormatAndVersionAndHoldsShapesOneLinePerPath() throws IOException {
        Path file = directory.resolve("in-flight.json");
        report().write(file);

        String text = Files.readString(file);
        assertThat(text).startsWith("{").contains("\"format\" : \"durable-in-flight\"")
                .contains("\"formatVersion\" : 1").contains("\"$.lines[].sku: string\"")
                .contains("\"status\" : \"awaiting_signal\"").contains("\"pendingSignals\" : {");
    }

    @Test
    void aMissingFileIsRefusedNamingIt() {
        Path file = directory.resolve("nowhere.json");

        assertThatThrownBy(() -> InFlightReport.read(file)).isInstanceOf(InFlightReport.UnreadableFileException.class)
                .hasMessage("In-flight report " + file.toAbsolutePath() + " does not exist");
    }

    @Test
    void aTruncatedFileIsRefusedWhereItEnds() throws IOException {
        String whole = report().toJson();
        Path file = write(whole.substring(0, whole.indexOf("\"shapes\"")));

        assertThatThrownBy(() -> InFlightReport.read(file))
                .isInstanceOfSatisfying(InFlightReport.UnreadableFileException.class, e -> {
                    assertThat(e.file()).isEqualTo(file);
                    assertThat(e.line()).isEqualTo(lineCount(whole.substring(0, whole.indexOf("\"shapes\""))));
                })
                .hasMessageStartingWith("In-flight report " + file.toAbsolutePath() + ", line ")
                .hasMessageContaining("is not valid JSON: Unexpected end-of-input");
    }

    @Test
    void aValueOfTheWrongTypeIsRefusedNamingItsPlaceAndWhatWasExpected() throws IOException {
        String json = report().toJson().replace("\"count\" : 1234", "\"count\" : \"1234\"");
        Path file = write(json);
        int line = lineOf(json, "\"count\" : \"1234\"");

        assertThatThrownBy(() -> InFlightReport.read(file))
                .isInstanceOfSatisfying(InFlightReport.UnreadableFileException.class,
                        e -> assertThat(e.line()).isEqualTo(line))
                .hasMessageStartingWith("In-flight report " + file.toAbsolutePath() + ", line " + line + ", column ")
                .hasMessageContaining("expected a whole number at $.groups[0].count");
    }

    @Test
    void aMissingPropertyIsRefusedNamingIt() throws IOException {
        Path file = write(report().toJson().replace("\"countExact\" : true,", ""));

        assertThatThrownBy(() -> InFlightReport.read(file)).isInstanceOf(InFlightReport.UnreadableFileException.class)
                .hasMessageStartingWith("In-flight report " + file.toAbsolutePath() + ", line ")
                .hasMessageContaining("$.groups[0].countExact is missing: expected true or false");
    }

    @Test
    void anUnknownStatusIsRefusedNamingTheStatusesThereAre() throws IOException {
        Path file = write(report().toJson().replace("\"awaiting_signal\"", "\"parked\""));

        assertThatThrownBy(() -> InFlightReport.read(file)).isInstanceOf(InFlightReport.UnreadableFileException.class)
                .hasMessageContaining("line ").hasMessageContaining("$.groups[0].status")
                .hasMessageContaining("Unknown instance status 'parked'");
    }

    @Test
    void anUnknownFormatVersionIsRefusedSayingWhichVersionThisDurableReads() throws IOException {
        String json = report().toJson().replace("\"formatVersion\" : 1", "\"formatVersion\" : 2");
        Path file = write(json);

        assertThatThrownBy(() -> InFlightReport.read(file))
                .isInstanceOfSatisfying(InFlightReport.UnreadableFileException.class,
                        e -> assertThat(e.line()).isEqualTo(lineOf(json, "\"formatVersion\"")))
                .hasMessageContaining("has format version 2, which this durable does not read (it reads format"
                        + " version 1)");
    }

    @Test
    void aJsonFileThatIsNoReportIsRefusedAsSuch() throws IOException {
        Path file = write("{\"name\": \"my-app\", \"version\": \"1.0.0\"}");
        Path array = write("[1, 2]");

        assertThatThrownBy(() -> InFlightReport.read(file))
                .hasMessage("In-flight report " + file.toAbsolutePath() + " is not an in-flight report: it has no"
                        + " \"format\": \"durable-in-flight\"");
        assertThatThrownBy(() -> InFlightReport.read(array))
                .hasMessage("In-flight report " + array.toAbsolutePath() + ", line 1, column 1: expected a JSON object"
                        + " with \"format\": \"durable-in-flight\", found an array");
    }

    @Test
    void aPropertyTheFormatDoesNotKnowIsIgnored() throws IOException {
        Path file = write(report().toJson().replace("\"sampleSize\"", "\"addedLater\" : {\"x\": [1]},\n"
                + "  \"sampleSize\""));

        assertThat(InFlightReport.read(file)).isEqualTo(report());
    }

    private Path write(String content) throws IOException {
        Path file = Files.createTempFile(directory, "in-flight", ".json");
        Files.writeString(file, content);
        return file;
    }

    private static int lineOf(String text, String needle) {
        return lineCount(text.substring(0, text.indexOf(needle)));
    }

    /** The line the end of {@code text} is on, from 1. */
    private static int lineCount(String text) {
        return (int) text.chars().filter(c -> c == '\n').count() + 1;
    }
}
