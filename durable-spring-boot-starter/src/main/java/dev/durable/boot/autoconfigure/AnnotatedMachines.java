package dev.durable.boot.autoconfigure;

import dev.durable.boot.DurableMachine;
import dev.durable.boot.OnError;
import dev.durable.boot.Step;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineDefinitionException;
import dev.durable.machine.MachineRegistry;
import dev.durable.machine.StepDefinition;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Turns the {@link DurableMachine @DurableMachine} beans of a bean factory into {@link MachineDefinition}s, checked
 * for everything that can be checked from the classes alone. Only bean <em>types</em> are read, so building the
 * registry never instantiates a machine bean (a machine may itself depend on the {@code DurableClient}); the beans
 * are looked up when their methods are {@linkplain #bindAll() bound}.
 */
final class AnnotatedMachines {

    private final ConfigurableListableBeanFactory beanFactory;
    private final List<MethodInvoker> invokers = new ArrayList<>();

    AnnotatedMachines(ConfigurableListableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /**
     * The registry of every {@code @DurableMachine} bean.
     *
     * @throws MachineDefinitionException naming the beans and methods involved, if a machine is invalid or two
     *                                    beans define the same (name, version)
     */
    MachineRegistry registry() {
        List<MachineDefinition> definitions = new ArrayList<>();
        for (String beanName : beanFactory.getBeanNamesForAnnotation(DurableMachine.class)) {
            if (ScopedProxyUtils.isScopedTarget(beanName)) {
                continue;
            }
            Class<?> type = beanFactory.getType(beanName, false);
            if (type == null) {
                throw new MachineDefinitionException("Cannot tell the class of @DurableMachine bean '" + beanName
                        + "'");
            }
            definitions.add(define(beanName, ClassUtils.getUserClass(type)));
        }
        return MachineRegistry.of(definitions);
    }

    /** Looks up every machine bean and prepares its methods for calls; fails naming the first that cannot be. */
    void bindAll() {
        invokers.forEach(MethodInvoker::bind);
    }

    private MachineDefinition define(String beanName, Class<?> userClass) {
        DurableMachine machine = AnnotatedElementUtils.findMergedAnnotation(userClass, DurableMachine.class);
        if (machine == null) {
            machine = Objects.requireNonNull(beanFactory.findAnnotationOnBean(beanName, DurableMachine.class));
        }
        String source = "bean '" + beanName + "' (" + userClass.getName() + ")";
        String name = resolve(machine.name());
        Map<Method, Step> stepMethods = sorted(MethodIntrospector.selectMethods(userClass,
                (MethodIntrospector.MetadataLookup<Step>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, Step.class)));
        List<Method> errorMethods = sorted(MethodIntrospector.selectMethods(userClass,
                (MethodIntrospector.MetadataLookup<OnError>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, OnError.class))).keySet().stream().toList();
        if (stepMethods.isEmpty()) {
            throw new MachineDefinitionException("@DurableMachine " + source + " declares no @Step methods");
        }

        Map<MethodInvoker, Step> steps = new LinkedHashMap<>();
        stepMethods.forEach((method, step) ->
                steps.put(MethodInvoker.inspect(beanFactory, beanName, userClass, method, false), step));
        List<MethodInvoker> handlers = errorMethods.stream()
                .map(method -> MethodInvoker.inspect(beanFactory, beanName, userClass, method, true))
                .toList();
        Type stateType = stateType(source, steps.keySet(), handlers);

        MachineDefinition.Builder<Object> builder = MachineDefinition.builder(name, machine.version(), stateType)
                .queue(resolve(machine.queue()))
                .machineClass(userClass)
                .source(source)
                .stepTimeout(duration(machine.stepTimeout(), "stepTimeout of @DurableMachine " + source));
        MethodInvoker initial = null;
        for (Map.Entry<MethodInvoker, Step> entry : steps.entrySet()) {
            MethodInvoker invoker = entry.getKey();
            Step step = entry.getValue();
            String stepName = StringUtils.hasText(step.value()) ? resolve(step.value()) : invoker.method().getName();
            builder.step(new StepDefinition(stepName, (state, context) -> invoker.invoke(null, state, context),
                    duration(step.timeout(), "timeout of @Step " + invoker.description()),
                    invoker.description()));
            if (step.initial()) {
                if (initial != null) {
                    throw new MachineDefinitionException("Machine " + name + " v" + machine.version() + " (" + source
                            + ") declares two initial steps: " + initial.description() + " and "
                            + invoker.description() + "; mark exactly one @Step(initial = true)");
                }
                initial = invoker;
                builder.initialStep(stepName);
            }
        }
        if (initial == null && steps.size() > 1) {
            throw new MachineDefinitionException("Machine " + name + " v" + machine.version() + " (" + source
                    + ") declares " + steps.size() + " steps but none is initial; mark the first step with"
                    + " @Step(initial = true)");
        }
        if (!handlers.isEmpty()) {
            checkDistinctErrorTypes(source, handlers);
            builder.errorHandler(new MethodErrorHandler(handlers));
        }
        MachineDefinition definition = builder.build();
        invokers.addAll(steps.keySet());
        invokers.addAll(handlers);
        return definition;
    }

    /** The state type all methods agree on; {@code Object} if none takes a state. */
    private static Type stateType(String source, Iterable<MethodInvoker> steps, List<MethodInvoker> handlers) {
        Type type = null;
        MethodInvoker first = null;
        List<MethodInvoker> all = new ArrayList<>();
        steps.forEach(all::add);
        all.addAll(handlers);
        for (MethodInvoker invoker : all) {
            Type own = invoker.stateType();
            if (own == null) {
                continue;
            }
            if (type == null) {
                type = own;
                first = invoker;
            } else if (!type.equals(own)) {
                throw new MachineDefinitionException("The methods of " + source + " disagree on the state type: "
                        + first.description() + " takes a " + type.getTypeName() + ", " + invoker.description()
                        + " takes a " + own.getTypeName() + "; a machine has one state type");
            }
        }
        return type == null ? Object.class : type;
    }

    private static void checkDistinctErrorTypes(String source, List<MethodInvoker> handlers) {
        Map<Class<? extends Throwable>, MethodInvoker> seen = new LinkedHashMap<>();
        for (MethodInvoker handler : handlers) {
            MethodInvoker earlier = seen.putIfAbsent(handler.errorType(), handler);
            if (earlier != null) {
                throw new MachineDefinitionException(source + " declares two @OnError methods for "
                        + handler.errorType().getName() + ": " + earlier.description() + " and "
                        + handler.description());
            }
        }
    }

    private @Nullable Duration duration(String text, String what) {
        String value = resolve(text);
        if (!StringUtils.hasText(value)) {
            return null;
        }
        try {
            return DurationStyle.detectAndParse(value);
        } catch (IllegalArgumentException e) {
            throw new MachineDefinitionException("Invalid " + what + ": '" + value + "' is not a duration (e.g. 30s)");
        }
    }

    private String resolve(String value) {
        String resolved = beanFactory.resolveEmbeddedValue(value);
        return resolved == null ? value : resolved;
    }

    /** Methods in a stable order (declaration order is not available through reflection). */
    private static <T> Map<Method, T> sorted(Map<Method, T> methods) {
        Map<Method, T> sorted = new LinkedHashMap<>();
        methods.entrySet().stream()
                .sorted(Comparator.comparing((Map.Entry<Method, T> e) -> e.getKey().getName())
                        .thenComparing(e -> e.getKey().toGenericString()))
                .forEach(e -> sorted.put(e.getKey(), e.getValue()));
        return sorted;
    }
}
