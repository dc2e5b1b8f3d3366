package dev.durable.sample.tracing;

import dev.durable.runtime.DurableEngine;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.beans.factory.ObjectProvider;
import tools.jackson.databind.json.JsonMapper;

/**
 * An OpenTelemetry span exporter that appends each finished span to a file as one JSON line: its name, trace and span
 * ids, parent, links, start and duration, its attributes, and the durable node that made it. Spring Boot's tracing
 * hands it every span (it collects the application's {@link SpanExporter} beans), so the sample's traces need no
 * collector and survive its restarts; several nodes may share one file. OpenTelemetry's logging exporter writes
 * neither a span's parent nor its links, which are what shows a durable trace's shape (docs/DESIGN.md, "Tracing").
 */
public final class TraceFile implements SpanExporter {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Path file;
    private final ObjectProvider<DurableEngine> engine;

    /**
     * @param file   where the spans are appended (created with its directories)
     * @param engine the node, whose id each line carries
     */
    public TraceFile(Path file, ObjectProvider<DurableEngine> engine) {
        this.file = file;
        this.engine = engine;
    }

    @Override
    public synchronized CompletableResultCode export(Collection<SpanData> spans) {
        StringBuilder lines = new StringBuilder();
        DurableEngine running = engine.getIfAvailable();
        String node = running == null ? "" : running.nodeId();
        for (SpanData span : spans) {
            lines.append(JSON.writeValueAsString(line(span, node))).append('\n');
        }
        try {
            Path directory = file.toAbsolutePath().getParent();
            if (directory != null) {
                Files.createDirectories(directory);
            }
            Files.writeString(file, lines, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            return CompletableResultCode.ofSuccess();
        } catch (IOException e) {
            return CompletableResultCode.ofExceptionalFailure(new UncheckedIOException(e));
        }
    }

    private static Map<String, Object> line(SpanData span, String node) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("name", span.getName());
        line.put("traceId", span.getTraceId());
        line.put("spanId", span.getSpanId());
        line.put("parentSpanId", span.getParentSpanContext().isValid() ? span.getParentSpanId() : null);
        line.put("links", span.getLinks().stream()
                .map(link -> link.getSpanContext().getTraceId() + "-" + link.getSpanContext().getSpanId()).toList());
        line.put("startNanos", span.getStartEpochNanos());
        line.put("durationMicros", (span.getEndEpochNanos() - span.getStartEpochNanos()) / 1000);
        line.put("node", node);
        line.put("status", span.getStatus().getStatusCode().name());
        Map<String, Object> attributes = new TreeMap<>();
        span.getAttributes().forEach((key, value) -> attributes.put(key.getKey(), value));
        line.put("attributes", attributes);
        return line;
    }

    @Override
    public CompletableResultCode flush() {
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
        return CompletableResultCode.ofSuccess();
    }
}
