package dev.durable.boot.autoconfigure;

import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineRegistry;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * What a native image needs to run the application's machines, contributed when Spring processes the application
 * ahead of time ({@code spring-boot:process-aot}). The machines are found as at startup, by {@link AnnotatedMachines}
 * (an invalid machine fails the build with the message it would fail the start with), and for each:
 * <ul>
 *   <li>its class, whose {@code @DurableMachine}, {@code @DurableSchedule} and method annotations are read at
 *       startup;</li>
 *   <li>its {@code @Step}, {@code @OnError} and {@code @Upcast} methods, which durable invokes through method
 *       handles;</li>
 *   <li>its state type and the payload types of its {@code @DurableSignal}s, bound to and from JSON by Jackson: each
 *       type and everything it is made of.</li>
 * </ul>
 * Results, and the payloads of a machine that declares no signals, are named only in the steps' bodies
 * ({@code Outcome.done(shipment)}, {@code signal.payload(Payment.class)}), where nothing can read them before the
 * application runs: the machine declares them with Spring's {@code @RegisterReflectionForBinding}, which Spring
 * processes on every bean. What the engine
 * itself needs, whatever the machines, is {@link DurableRuntimeHints}.
 */
final class DurableMachinesAotProcessor implements BeanFactoryInitializationAotProcessor {

    /** The bean through which the starter finds annotated machines; absent when durable is off or replaced. */
    private static final String ANNOTATED_MACHINES = "durableAnnotatedMachines";

    @Override
    public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(
            ConfigurableListableBeanFactory beanFactory) {
        if (!beanFactory.containsBeanDefinition(ANNOTATED_MACHINES)) {
            return null;
        }
        AnnotatedMachines machines = new AnnotatedMachines(beanFactory);
        MachineRegistry registry = machines.registry();
        if (registry.all().isEmpty()) {
            return null;
        }
        List<Class<?>> classes = registry.all().stream().map(MachineDefinition::machineClass)
                .filter(Objects::nonNull).collect(Collectors.toList());
        Type[] states = registry.all().stream()
                .flatMap(machine -> Stream.concat(Stream.of(machine.stateType()), machine.signals().values().stream()))
                .filter(type -> type != MachineDefinition.NO_PAYLOAD).distinct().toArray(Type[]::new);
        List<Method> methods = machines.methods();
        return (generationContext, code) -> {
            ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
            classes.forEach(reflection::registerType);
            methods.forEach(method -> reflection.registerMethod(method, ExecutableMode.INVOKE));
            new BindingReflectionHintsRegistrar().registerReflectionHints(reflection, states);
        };
    }
}
