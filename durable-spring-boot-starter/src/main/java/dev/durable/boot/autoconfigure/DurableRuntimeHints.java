package dev.durable.boot.autoconfigure;

import dev.durable.InstanceStatus;
import dev.durable.StepContext;
import dev.durable.jdbc.DurableSchema;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ReflectionUtils;

/**
 * What a native image needs of durable itself, whatever the application's machines
 * ({@link DurableMachinesAotProcessor} adds theirs):
 * <ul>
 *   <li>the schema's changelog and SQL files, read from the class path when the schema is installed;</li>
 *   <li>the classes the engine looks for by name: Liquibase's {@code CommandScope} (is Liquibase there?) and the
 *       PostgreSQL driver's {@code PGStatement}, whose prepare threshold it sets by reflection;</li>
 *   <li>{@code StepContext.inbox()}, which the step invoker reaches through a method handle;</li>
 *   <li>{@link InstanceStatus}, spelled in JSON by its {@code @JsonValue} and {@code @JsonCreator} methods.</li>
 * </ul>
 * Liquibase and the JDBC driver bring or lack native-image metadata of their own (see docs/COMPATIBILITY.md).
 */
final class DurableRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(DurableSchema.CHANGELOG);
        DurableSchema.SQL_SCRIPTS.forEach(hints.resources()::registerPattern);
        hints.reflection().registerType(TypeReference.of("liquibase.command.CommandScope"));
        hints.reflection().registerType(TypeReference.of("org.postgresql.PGStatement"), type -> type.withMethod(
                "setPrepareThreshold", List.of(TypeReference.of(int.class)), ExecutableMode.INVOKE));
        hints.reflection().registerMethod(
                Objects.requireNonNull(ReflectionUtils.findMethod(StepContext.class, "inbox")),
                ExecutableMode.INVOKE);
        new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(), InstanceStatus.class);
    }
}
