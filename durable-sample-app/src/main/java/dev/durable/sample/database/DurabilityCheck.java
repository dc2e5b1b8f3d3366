package dev.durable.sample.database;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Says at startup whether the database commits durably: a transition the engine committed survives a crash of the
 * database server or its machine only with {@code fsync} on and {@code synchronous_commit} not {@code off}, and
 * {@code full_page_writes} on keeps a page half-written by such a crash from corrupting the data. Test setups
 * often turn them off for speed (the embedded library the sample uses does); this makes that visible instead of
 * letting the crash demo, or a deployment, claim a durability it does not have.
 *
 * <p>It reads the settings of the application's own sessions, so a per-database or per-role
 * {@code synchronous_commit = off} shows too. It only logs: the sample runs either way.
 */
@Component
class DurabilityCheck implements ApplicationRunner {

    static final String DURABLE = "PostgreSQL commits durably";

    private static final Logger log = LoggerFactory.getLogger(DurabilityCheck.class);

    /** The settings, in the order they are reported. */
    private static final List<String> NAMES = List.of("fsync", "synchronous_commit", "full_page_writes");

    private static final String SETTINGS = """
            SELECT name, setting
            FROM pg_settings
            WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes')
            """;

    private final JdbcClient jdbc;

    DurabilityCheck(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public void run(ApplicationArguments args) {
        check();
    }

    /** Reads the settings, logs the verdict and returns the settings that are not durable (empty if none). */
    List<String> check() {
        Map<String, String> settings = new LinkedHashMap<>();
        NAMES.forEach(name -> settings.put(name, "unknown")); // in this order, whatever the query's
        jdbc.sql(SETTINGS).query((row, n) -> Map.entry(row.getString("name"), row.getString("setting"))).list()
                .forEach(setting -> settings.put(setting.getKey(), setting.getValue()));
        List<String> weak = notDurable(settings);
        if (weak.isEmpty()) {
            log.info("{} ({})", DURABLE, describe(settings));
        } else {
            log.warn("PostgreSQL does not commit durably: {}. A crash of the database server or its machine may lose "
                    + "transitions it reported committed, or corrupt the data; run it with fsync=on, "
                    + "synchronous_commit=on and full_page_writes=on (PostgreSQL's defaults)", String.join(", ", weak));
        }
        return weak;
    }

    /**
     * The settings, as {@code name=value}, that keep commits from being durable; a missing setting counts as not
     * durable. Every {@code synchronous_commit} but {@code off} waits for the local WAL flush ({@code local},
     * {@code remote_write} and {@code remote_apply} wait for that and possibly more).
     */
    static List<String> notDurable(Map<String, String> settings) {
        return NAMES.stream()
                .filter(name -> {
                    String value = settings.get(name);
                    if (name.equals("synchronous_commit")) {
                        return value == null || value.equals("off") || value.equals("unknown");
                    }
                    return !"on".equals(value);
                })
                .map(name -> name + "=" + settings.getOrDefault(name, "unknown"))
                .toList();
    }

    private static String describe(Map<String, String> settings) {
        return String.join(", ", settings.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
    }
}
