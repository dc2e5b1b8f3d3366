package dev.durable.sample;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The sample's own settings, under {@code sample.*}.
 *
 * @param carrier  the simulated carrier
 * @param payment  how long an order waits for its payment
 * @param report   when the nightly report runs
 * @param postgres the embedded PostgreSQL used when no {@code spring.datasource.url} is set
 * @param traces   where the spans of the sample's traces are written
 */
@ConfigurationProperties("sample")
public record SampleProperties(@DefaultValue Carrier carrier, @DefaultValue Payment payment,
        @DefaultValue Report report, @DefaultValue Postgres postgres, @DefaultValue Traces traces) {

    /** @param failureRate the share of shipments whose carrier call fails (0 to 1) */
    public record Carrier(@DefaultValue("0.3") double failureRate) {
    }

    /** @param timeout how long an order waits for its payment before it is cancelled */
    public record Payment(@DefaultValue("30m") Duration timeout) {
    }

    /**
     * Read by {@code @DurableSchedule} of {@code NightlyReport} through placeholders; declared here for their
     * documentation and defaults.
     *
     * @param cron a Spring cron expression (seconds first): when the nightly report runs
     * @param zone the zone the expression is read in
     */
    public record Report(@DefaultValue("0 0 2 * * *") String cron, @DefaultValue("UTC") String zone) {
    }

    /** @param dataDir where the embedded PostgreSQL keeps its data, across restarts */
    public record Postgres(@DefaultValue(".data/postgres") Path dataDir) {
    }

    /** @param file the file every span is appended to, one JSON line each (several nodes may share it) */
    public record Traces(@DefaultValue(".data/traces.jsonl") Path file) {
    }
}
