package dev.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringWriter;
import java.net.URI;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

class StartOptionsTest {

    @Test
    void aChainKeepsEveryOptionItSets() {
        StartOptions options = StartOptions.defaults()
                .partitionKey("customer:7")
                .uniqueKey("order:42")
                .correlationKey("customer:7")
                .uniqueScope(EnumSet.allOf(InstanceStatus.class))
                .priority(-1)
                .delay(Duration.ofSeconds(5))
                .version(2);

        assertThat(options.partitionKey()).isEqualTo("customer:7");
        assertThat(options.uniqueKey()).isEqualTo("order:42");
        assertThat(options.correlationKey()).isEqualTo("customer:7");
        assertThat(options.uniqueScope()).isEqualTo(EnumSet.allOf(InstanceStatus.class));
        assertThat(options.priority()).isEqualTo((short) -1);
        assertThat(options.delay()).isEqualTo(Duration.ofSeconds(5));
        assertThat(options.version()).isEqualTo(2);
    }

    @Test
    void theOrderOfAChainDoesNotMatter() {
        assertThat(StartOptions.defaults().uniqueKey("b").partitionKey("a"))
                .isEqualTo(StartOptions.defaults().partitionKey("a").uniqueKey("b"))
                .isNotEqualTo(StartOptions.defaults().partitionKey("a"));
    }

    @Test
    void settingAnOptionLeavesTheOriginalAsItWas() {
        StartOptions keyed = StartOptions.defaults().partitionKey("a");
        keyed.priority(3);
        assertThat(keyed.priority()).isZero();
        assertThat(StartOptions.defaults().partitionKey()).isNull();
    }

    /** The old trap: a static factory called on an instance compiled and dropped what came before it. */
    @Test
    void aChainThatWouldDropAnOptionDoesNotCompile() {
        String errors = compile("""
                class Caller {
                    dev.durable.StartOptions options() {
                        return dev.durable.StartOptions.partitionKey("a").uniqueKey("b");
                    }
                }
                """);
        assertThat(errors).contains("non-static method partitionKey(").contains("cannot be referenced from a static context");
    }

    @Test
    void theDocumentedChainCompiles() {
        assertThat(compile("""
                class Caller {
                    dev.durable.StartOptions options() {
                        return dev.durable.StartOptions.defaults().partitionKey("customer:7").uniqueKey("order:42")
                                .priority(-1);
                    }
                }
                """)).isEmpty();
    }

    @Test
    void badValuesAreRefusedWithTheValueNamed() {
        assertThatThrownBy(() -> StartOptions.defaults().priority(40_000))
                .hasMessageContaining("40000").hasMessageContaining("smallint");
        assertThatThrownBy(() -> StartOptions.defaults().delay(Duration.ofSeconds(-1)))
                .hasMessageContaining("PT-1S");
        assertThatThrownBy(() -> StartOptions.defaults().uniqueScope(EnumSet.of(InstanceStatus.RUNNABLE)))
                .hasMessageContaining("lacks");
    }

    /** Compiles one class against the test class path; returns the compiler's errors, empty when it compiled. */
    private static String compile(String source) {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///Caller.java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        StringWriter out = new StringWriter();
        List<String> options = List.of("-classpath", System.getProperty("java.class.path"), "-proc:none",
                "-d", System.getProperty("java.io.tmpdir"));
        compiler.getTask(out, null, diagnostics, options, null, List.of(file)).call();
        StringBuilder errors = new StringBuilder();
        for (var diagnostic : List.copyOf(diagnostics.getDiagnostics())) {
            if (diagnostic.getKind() == javax.tools.Diagnostic.Kind.ERROR) {
                errors.append(diagnostic.getMessage(Locale.ROOT)).append('\n');
            }
        }
        return errors.toString();
    }
}
