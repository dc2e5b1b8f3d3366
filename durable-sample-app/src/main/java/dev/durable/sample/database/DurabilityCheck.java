package dev.durable.sample.database;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
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

    /** The settings, in the order they are reported in. */
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
        Map<String, String> settings = jdbc.sql(SETTINGS)
                .query((row, n) -> Map.entry(row.getString("name"), row.getString("setting"))).list().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        List<String> weak = notDurable(settings);
        if (weak.isEmpty()) {
            log.info("{} ({})", DURABLE, String.join(", ", NAMES.stream().map(name -> show(name, settings)).toList()));
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
                .filter(name -> name.equals("synchronous_commit")
                        ? !settings.containsKey(name) || settings.get(name).equals("off")
                        : !"on".equals(settings.get(name)))
                .map(name -> show(name, settings))
                .toList();
    }

    private static String show(String name, Map<String, String> settings) {
        return name + "=" + settings.getOrDefault(name, "unknown");
    }
}
