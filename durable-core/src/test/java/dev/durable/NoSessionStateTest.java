package dev.durable;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The engine keeps no state in a database session, so it runs unchanged behind a connection pooler in transaction
 * mode (PgBouncer's {@code pool_mode=transaction}, RDS Proxy, cloud poolers), which hands each transaction to
 * whichever server session is free (docs/DESIGN.md, "Connection poolers"). Read from the main sources: every SQL
 * text (the repositories' text blocks, {@code DurableSchema}'s statements) and every JDBC call. A session-level
 * {@code SET}, an advisory lock, {@code LISTEN}/{@code NOTIFY}, a temporary table, a cursor held past its
 * transaction, a named prepared statement or a session setting changed through JDBC fails the build.
 *
 * <p>The exceptions: schema installation, which needs a session and runs over a direct connection
 * ({@code DurableSchema} takes a session-level advisory lock and sets the session's {@code search_path}, and checks
 * that its statements stay in one session; the runtime never installs the schema), and the wake-ups
 * (docs/DESIGN.md, "Wake-ups"): {@code LISTEN} runs only in {@code WakeUpListener}, on the one connection it holds
 * for the node's life and never hands back while it listens, and never behind a pooler (poll-only mode, or a pooler's
 * URL); {@code pg_notify} is sent only inside the writes' own statements and transactions, where it is transaction
 * state (delivered at commit), not session state.
 */
class NoSessionStateTest {

    private static final Path MAIN = Path.of("src/main/java/dev/durable");

    /**
     * Statements whose first word makes them session state (SET LOCAL, SET TRANSACTION are transaction state). SQL
     * keywords are written in capitals here, which keeps log messages ("Set ...") out.
     */
    private static final Pattern SESSION_STATEMENT = Pattern.compile(
            "^(SET(?!\\s+(LOCAL|TRANSACTION|CONSTRAINTS)\\b)|RESET|DISCARD|LISTEN|UNLISTEN|NOTIFY|PREPARE|EXECUTE"
                    + "|DEALLOCATE|DECLARE|LOAD|CREATE\\s+(GLOBAL\\s+|LOCAL\\s+)?TEMP(ORARY)?)\\b");

    /** Session state reached from inside any statement. */
    private static final Pattern SESSION_FUNCTION = Pattern.compile(
            "\\b(pg_(try_)?advisory_lock(_shared)?|pg_advisory_unlock(_shared|_all)?|set_config|pg_notify"
                    + "|dblink_connect)\\s*\\(|\\bWITH\\s+HOLD\\b|\\bTEMP(ORARY)?\\s+TABLE\\b",
            Pattern.CASE_INSENSITIVE);

    /** JDBC calls that change the session rather than the statement or the transaction. */
    private static final Pattern SESSION_CALL = Pattern.compile(
            "\\.(setSchema|setCatalog|setTransactionIsolation|setIsolationLevel|setClientInfo|setHoldability"
                    + "|setTypeMap)\\s*\\(|\\bISOLATION_[A-Z_]+|HOLD_CURSORS_OVER_COMMIT");

    /** Schema installation, the one place that needs a session (and proves it kept one). */
    private static final Map<String, Set<String>> INSTALLATION = Map.of("DurableSchema.java",
            Set.of("pg_try_advisory_lock(", "pg_advisory_unlock(", "set_config("));

    /** The wake-ups: the listener's own connection, and the writes that notify in their transaction. */
    private static final Map<String, Set<String>> WAKE_UPS = Map.of(
            "WakeUpListener.java", Set.of("LISTEN", "UNLISTEN"),
            "CancelRepository.java", Set.of("pg_notify("),
            "StartRepository.java", Set.of("pg_notify("),
            "SignalRepository.java", Set.of("pg_notify("),
            "FamilyRepository.java", Set.of("pg_notify("));

    @Test
    void theEngineKeepsNoStateInADatabaseSession() throws IOException {
        Map<String, Set<String>> found = new TreeMap<>();
        for (Path file : javaFiles()) {
            Set<String> inFile = sessionState(Files.readString(file));
            if (!inFile.isEmpty()) {
                found.put(file.getFileName().toString(), inFile);
            }
        }

        Map<String, Set<String>> allowed = new TreeMap<>(INSTALLATION);
        allowed.putAll(WAKE_UPS);
        assertThat(found).as("session state in the engine's SQL or JDBC calls; see DESIGN.md, Connection poolers")
                .isEqualTo(allowed);
    }

    /**
     * {@code LISTEN} never reaches a pooled connection: the listener runs it on the one connection it takes from the
     * DataSource and holds (it sends nothing through the engine's JDBC clients), and runs {@code UNLISTEN} before the
     * connection goes back; it checks the URL for a pooler's before it listens.
     */
    @Test
    void listenRunsOnlyOnTheListenersOwnConnection() throws IOException {
        String listener = code(Files.readString(MAIN.resolve("runtime/node/WakeUpListener.java")));
        assertThat(listener.split("dataSource\\.getConnection\\(\\)", -1)).as("connections taken").hasSize(2);
        assertThat(listener).doesNotContain("JdbcClient", "JdbcTemplate", "StatementPlanning")
                .contains("UNLISTEN *");
        assertThat(listener.indexOf("poolerHint(connection.getMetaData().getURL())"))
                .as("the URL is checked before LISTEN").isPositive()
                .isLessThan(listener.indexOf("\"LISTEN \""));
    }

    @Test
    void onlySchemaInstallationUsesASessionAndTheRuntimeNeverInstalls() throws IOException {
        List<String> installers = new ArrayList<>();
        for (Path file : javaFiles()) {
            String code = code(Files.readString(file));
            if (code.contains(".migrate(") && !file.getFileName().toString().equals("DurableSchema.java")) {
                installers.add(file.toString());
            }
        }
        assertThat(installers).isEmpty();
    }

    /**
     * Statements are never prepared on the server by name for later reuse by the engine: the one setting of the
     * driver's prepare threshold is 0, never prepare (docs/DESIGN.md, "Statement planning"), so a pooler that does
     * not carry prepared statements from session to session ({@code prepareThreshold=0} in the URL) loses nothing.
     */
    @Test
    void theEngineNeverAsksForServerSidePreparedStatements() throws IOException {
        Map<String, String> thresholds = new TreeMap<>();
        for (Path file : javaFiles()) {
            String code = code(Files.readString(file));
            Matcher setting = Pattern.compile("SET_PREPARE_THRESHOLD\\.invoke\\([^;]*,\\s*(\\w+)\\)").matcher(code);
            while (setting.find()) {
                thresholds.put(file.getFileName().toString(), setting.group(1));
            }
            if (!file.getFileName().toString().equals("WakeUpListener.java")) { // reads it in a URL: a pooler's?
                assertThat(code).as(file.toString()).doesNotContainIgnoringCase("prepareThreshold=");
            }
        }
        assertThat(thresholds).isEqualTo(Map.of("FreshlyPlannedJdbcTemplate.java", "0"));
    }

    /** The detector itself: each kind of session state it must catch, and what it must let through. */
    @Test
    void theCheckCatchesEveryKindOfSessionState() {
        for (String offending : List.of(
                "String S = \"SET statement_timeout = 0\";",
                "String S = \"\"\"\n    /* durable: x */\n    SET SESSION lock_timeout TO '1s'\n    \"\"\";",
                "String S = \"SELECT 1; SET search_path TO x\";",
                "String S = \"RESET ALL\";",
                "String S = \"DISCARD ALL\";",
                "String S = \"LISTEN durable_work\";",
                "String S = \"NOTIFY durable_work\";",
                "String S = \"SELECT pg_notify('durable_work', '1')\";",
                "String S = \"SELECT pg_advisory_lock(42)\";",
                "String S = \"SELECT pg_try_advisory_lock_shared(42)\";",
                "String S = \"SELECT set_config('work_mem', '1GB', false)\";",
                "String S = \"CREATE TEMP TABLE ids (id bigint)\";",
                "String S = \"CREATE TEMPORARY TABLE ids (id bigint)\";",
                "String S = \"DECLARE c CURSOR WITH HOLD FOR SELECT 1\";",
                "String S = \"PREPARE pick AS SELECT 1\";",
                "String S = \"DEALLOCATE pick\";",
                "connection.setSchema(\"x\");",
                "connection.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);",
                "template.setIsolationLevel(TransactionDefinition.ISOLATION_SERIALIZABLE);")) {
            assertThat(sessionState(offending)).as(offending).isNotEmpty();
        }
        for (String harmless : List.of(
                "String S = \"UPDATE {schema}.durable_instance SET status = 'runnable' WHERE id = ?\";",
                "String S = \"\"\"\n    UPDATE t\n    SET a = 1\n    \"\"\";",
                "String S = \"SET LOCAL lock_timeout = '1s'\";",
                "String S = \"SELECT pg_try_advisory_xact_lock(42)\";",
                "// LISTEN/NOTIFY is not used",
                "/** A session-level SET would leak. */")) {
            assertThat(sessionState(harmless)).as(harmless).isEmpty();
        }
    }

    /** What of {@code source} keeps state in a session: the offending words, as found. */
    private static Set<String> sessionState(String source) {
        Set<String> found = new TreeSet<>();
        String code = code(source);
        for (String sql : literals(code)) {
            for (String statement : stripSqlComments(sql).split(";")) {
                Matcher first = SESSION_STATEMENT.matcher(statement.strip());
                if (first.find()) {
                    found.add(first.group().toUpperCase(Locale.ROOT).replaceAll("\\s+", " "));
                }
            }
            Matcher function = SESSION_FUNCTION.matcher(sql);
            while (function.find()) {
                found.add(function.group().replaceAll("\\s+", "").toLowerCase(Locale.ROOT));
            }
        }
        Matcher call = SESSION_CALL.matcher(code.replaceAll("\"\"\"[\\s\\S]*?\"\"\"|\"(?:[^\"\\\\\\n]|\\\\.)*\"", "\"\""));
        while (call.find()) {
            found.add(call.group());
        }
        return found;
    }

    /** The Java source without its comments (string literals and text blocks kept). */
    private static String code(String source) {
        StringBuilder code = new StringBuilder();
        Matcher tokens = Pattern.compile("\"\"\"[\\s\\S]*?\"\"\"|\"(?:[^\"\\\\\\n]|\\\\.)*\"|/\\*[\\s\\S]*?\\*/|//[^\\n]*")
                .matcher(source);
        int last = 0;
        while (tokens.find()) {
            code.append(source, last, tokens.start());
            String token = tokens.group();
            code.append(token.startsWith("/") ? " " : token);
            last = tokens.end();
        }
        return code.append(source.substring(last)).toString();
    }

    /** The contents of every string literal and text block of {@code code}. */
    private static List<String> literals(String code) {
        List<String> literals = new ArrayList<>();
        Matcher literal = Pattern.compile("\"\"\"([\\s\\S]*?)\"\"\"|\"((?:[^\"\\\\\\n]|\\\\.)*)\"").matcher(code);
        while (literal.find()) {
            literals.add(literal.group(1) != null ? literal.group(1) : literal.group(2));
        }
        return literals;
    }

    private static String stripSqlComments(String sql) {
        return sql.replaceAll("/\\*[\\s\\S]*?\\*/", " ").replaceAll("--[^\\n]*", " ");
    }

    private static List<Path> javaFiles() throws IOException {
        try (Stream<Path> files = Files.walk(MAIN)) {
            return files.filter(file -> file.toString().endsWith(".java")).toList();
        }
    }
}
