package dev.durable.boot.autoconfigure;

import dev.durable.Schedule;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.DurableSchedule;
import dev.durable.boot.DurableSchedules;
import dev.durable.boot.DurableSignal;
import dev.durable.boot.DurableSignals;
import dev.durable.boot.OnError;
import dev.durable.boot.Retry;
import dev.durable.boot.Step;
import dev.durable.boot.Upcast;
import dev.durable.machine.MachineDefinition;
import dev.durable.machine.MachineDefinitionException;
import dev.durable.machine.MachineRegistry;
import dev.durable.machine.RetryPolicy;
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
import java.util.function.Consumer;
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
    private final List<MethodUpcaster> upcasters = new ArrayList<>();

    AnnotatedMachines(ConfigurableListableBeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /** {@link #registry(RetryPolicy)} with the default retry policy as what {@code @Retry} leaves out. */
    MachineRegistry registry() {
        return registry(RetryPolicy.defaults());
    }

    /**
     * The registry of every {@code @DurableMachine} bean.
     *
     * @param retryPolicy the engine's default retry policy ({@code durable.retry.*}): the values a machine's
     *                    {@code @Retry} leaves out
     * @throws MachineDefinitionException naming the beans and methods involved, if a machine is invalid or two
     *                                    beans define the same (name, version)
     */
    MachineRegistry registry(RetryPolicy retryPolicy) {
        List<MachineDefinition> definitions = new ArrayList<>();
        for (String beanName : beanFactory.getBeanNamesForAnnotation(DurableMachine.class)) {
            if (ScopedProxyUtils.isScopedTarget(beanName)) {
                continue;
            }
            Class<?> type = beanFactory.getType(beanName, false);
            if (type == null) {
                throw InvalidMachineBeanException.bean(beanName, null, "durable cannot tell the bean's class",
                        "Declare the bean with its class (e.g. a @Bean method returning the machine's own type).");
            }
            definitions.add(define(beanName, ClassUtils.getUserClass(type), retryPolicy));
        }
        return MachineRegistry.of(definitions);
    }

    /** Looks up every machine bean and prepares its methods for calls; fails naming the first that cannot be. */
    void bindAll() {
        invokers.forEach(MethodInvoker::bind);
        upcasters.forEach(MethodUpcaster::bind);
    }

    /**
     * The {@code @Step}, {@code @OnError} and {@code @Upcast} methods of the machines {@link #registry()} found: the
     * methods durable calls, which an application compiled to a native image must declare
     * ({@link DurableMachinesAotProcessor}).
     */
    List<Method> methods() {
        List<Method> methods = new ArrayList<>(invokers.stream().map(MethodInvoker::method).toList());
        upcasters.forEach(upcaster -> methods.add(upcaster.method()));
        return methods;
    }

    private MachineDefinition define(String beanName, Class<?> userClass, RetryPolicy engineRetryPolicy) {
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
        Map<Method, Upcast> upcastMethods = sorted(MethodIntrospector.selectMethods(userClass,
                (MethodIntrospector.MetadataLookup<Upcast>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, Upcast.class)));
        Map<Method, Retry> retryMethods = sorted(MethodIntrospector.selectMethods(userClass,
                (MethodIntrospector.MetadataLookup<Retry>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, Retry.class)));
        if (stepMethods.isEmpty()) {
            throw InvalidMachineBeanException.bean(beanName, userClass, "the machine declares no @Step methods",
                    "Annotate the methods of its steps with @Step. " + MethodInvoker.STEP_SIGNATURE + ".");
        }

        Map<MethodInvoker, Step> steps = new LinkedHashMap<>();
        stepMethods.forEach((method, step) ->
                steps.put(MethodInvoker.inspect(beanFactory, beanName, userClass, method, false), step));
        List<MethodInvoker> handlers = errorMethods.stream()
                .map(method -> MethodInvoker.inspect(beanFactory, beanName, userClass, method, true))
                .toList();
        Type stateType = stateType(beanName, userClass, steps.keySet(), handlers);
        retryMethods.keySet().stream().filter(method -> !stepMethods.containsKey(method)).findFirst()
                .ifPresent(method -> {
                    throw InvalidMachineBeanException.methods(beanName, userClass,
                            List.of(InvalidMachineBeanException.method("@Retry", method)), "@Retry is on a method"
                                    + " that is not a @Step", "Put @Retry on a @Step method (for that step) or on the"
                                    + " class (for every step of the machine).");
                });
        Retry machineRetry = AnnotatedElementUtils.findMergedAnnotation(userClass, Retry.class);
        RetryPolicy machinePolicy = machineRetry == null ? null
                : retryPolicy(machineRetry, engineRetryPolicy, beanName, userClass, null);

        MachineDefinition.Builder<Object> builder = MachineDefinition.builder(name, machine.version(), stateType)
                .queue(resolve(machine.queue()))
                .machineClass(userClass)
                .source(source)
                .stepTimeout(duration(machine.stepTimeout(), beanName, userClass, null, "stepTimeout"))
                .retryPolicy(machinePolicy);
        MethodInvoker initial = null;
        Map<String, MethodInvoker> stepsByName = new LinkedHashMap<>();
        Map<String, MethodInvoker> formerNames = new LinkedHashMap<>();
        for (Map.Entry<MethodInvoker, Step> entry : steps.entrySet()) {
            MethodInvoker invoker = entry.getKey();
            Step step = entry.getValue();
            String stepName = StringUtils.hasText(step.value()) ? resolve(step.value()) : invoker.method().getName();
            Retry stepRetry = retryMethods.get(invoker.method());
            RetryPolicy stepPolicy = stepRetry == null ? null : retryPolicy(stepRetry,
                    machinePolicy != null ? machinePolicy : engineRetryPolicy, beanName, userClass, invoker);
            builder.step(new StepDefinition(stepName, (state, context) -> invoker.invoke(null, state, context),
                    duration(step.timeout(), beanName, userClass, invoker, "timeout"),
                    invoker.description(), stepPolicy));
            stepsByName.put(stepName, invoker);
            List<String> formers = formerNames(step, beanName, userClass, invoker, formerNames);
            if (!formers.isEmpty()) {
                builder.formerStepNames(stepName, formers.toArray(String[]::new));
            }
            if (step.initial()) {
                if (initial != null) {
                    throw InvalidMachineBeanException.methods(beanName, userClass,
                            List.of(initial.annotated(), invoker.annotated()), "machine " + name + " v"
                                    + machine.version() + " declares two initial steps",
                            "Mark exactly one @Step(initial = true): the step new instances start at.");
                }
                initial = invoker;
                builder.initialStep(stepName);
            }
        }
        if (initial == null && steps.size() > 1) {
            throw InvalidMachineBeanException.bean(beanName, userClass, "machine " + name + " v" + machine.version()
                    + " declares " + steps.size() + " steps but none is initial", "Mark the first step with"
                    + " @Step(initial = true): the step new instances start at.");
        }
        if (!handlers.isEmpty()) {
            checkDistinctErrorTypes(beanName, userClass, handlers);
            builder.errorHandler(new MethodErrorHandler(handlers));
        }
        checkFormerNames(beanName, userClass, name, machine.version(), stepsByName, formerNames);
        List<MethodUpcaster> machineUpcasters = new ArrayList<>();
        upcastMethods.forEach((method, upcast) -> machineUpcasters.add(
                MethodUpcaster.inspect(beanFactory, beanName, userClass, method, upcast)));
        checkUpcasters(beanName, userClass, name, machine.version(), machineUpcasters);
        machineUpcasters.forEach(upcaster -> builder.upcaster(upcaster.fromVersion(), upcaster));
        for (DurableSchedule schedule : AnnotatedElementUtils.findMergedRepeatableAnnotations(userClass,
                DurableSchedule.class, DurableSchedules.class)) {
            builder.schedule(schedule(schedule, beanName, userClass));
        }
        declareSignals(builder, beanName, userClass);
        MachineDefinition definition = builder.build();
        invokers.addAll(steps.keySet());
        invokers.addAll(handlers);
        upcasters.addAll(machineUpcasters);
        return definition;
    }

    /**
     * The former names of a step ({@code @Step(formerNames)}), placeholders resolved; each noted with its step in
     * {@code seen}, and one noted before refused, naming both steps' methods.
     */
    private List<String> formerNames(Step step, String beanName, Class<?> userClass, MethodInvoker invoker,
            Map<String, MethodInvoker> seen) {
        List<String> names = new ArrayList<>();
        for (String declared : step.formerNames()) {
            String former = resolve(declared);
            if (!StringUtils.hasText(former)) {
                throw InvalidMachineBeanException.methods(beanName, userClass, List.of(invoker.annotated()),
                        "@Step(formerNames) holds a blank name", "Name the step's earlier names, or none.");
            }
            MethodInvoker earlier = seen.putIfAbsent(former, invoker);
            if (earlier != null) {
                throw InvalidMachineBeanException.methods(beanName, userClass, earlier == invoker
                        ? List.of(invoker.annotated()) : List.of(earlier.annotated(), invoker.annotated()),
                        "the former step name '" + former + "' is declared twice", "Declare each former name once,"
                                + " on the one step a row stored at it is to run: a stored step name can mean one"
                                + " step only.");
            }
            names.add(former);
        }
        return names;
    }

    /** A former name that is a current step's name would be ambiguous: a row at it runs the current step. */
    private static void checkFormerNames(String beanName, Class<?> userClass, String machine, int version,
            Map<String, MethodInvoker> steps, Map<String, MethodInvoker> formerNames) {
        formerNames.forEach((former, owner) -> {
            MethodInvoker current = steps.get(former);
            if (current != null) {
                throw InvalidMachineBeanException.methods(beanName, userClass, List.of(owner.annotated(),
                        current.annotated()), "machine " + machine + " v" + version + " declares '" + former
                                + "' as a former name of one step, and it is the name of another",
                        "Remove the former name: a row stored at '" + former + "' runs the step of that name.");
            }
        });
    }

    /**
     * The upcasters of a machine: one per version, each from a version older than the machine's, from the oldest up
     * to the machine's predecessor without a gap (docs/DESIGN.md, "Upcasting").
     */
    private static void checkUpcasters(String beanName, Class<?> userClass, String machine, int version,
            List<MethodUpcaster> upcasters) {
        Map<Integer, MethodUpcaster> byVersion = new java.util.TreeMap<>();
        for (MethodUpcaster upcaster : upcasters) {
            if (upcaster.fromVersion() < 1 || upcaster.fromVersion() >= version) {
                throw InvalidMachineBeanException.methods(beanName, userClass, List.of(upcaster.annotated()),
                        "machine " + machine + " v" + version + " declares an upcaster from version "
                                + upcaster.fromVersion() + ", but an upcaster brings a state of an older version to"
                                + " the next one", version > 1 ? "Declare upcasters from versions 1 to "
                                + (version - 1) + " only." : "Raise the machine's version first: version 1 has no"
                                + " older states to upcast.");
            }
            MethodUpcaster earlier = byVersion.putIfAbsent(upcaster.fromVersion(), upcaster);
            if (earlier != null) {
                throw InvalidMachineBeanException.methods(beanName, userClass, List.of(earlier.annotated(),
                        upcaster.annotated()), "machine " + machine + " v" + version + " declares two upcasters from"
                                + " version " + upcaster.fromVersion(), "Declare one @Upcast method per version.");
            }
        }
        if (!byVersion.isEmpty()) {
            int oldest = byVersion.keySet().iterator().next();
            for (int from = oldest; from < version; from++) {
                if (!byVersion.containsKey(from)) {
                    throw InvalidMachineBeanException.methods(beanName, userClass, upcasters.stream()
                            .map(MethodUpcaster::annotated).toList(), "machine " + machine + " v" + version
                                    + " declares upcasters from versions " + byVersion.keySet() + " but none from"
                                    + " version " + from + ", so a state of version " + oldest + " cannot reach"
                                    + " version " + version, "Declare an @Upcast method for each version from "
                                    + oldest + " to " + (version - 1) + ".");
                }
            }
        }
    }

    /** The state type all methods agree on; {@code Object} if none takes a state. */
    private static Type stateType(String beanName, Class<?> userClass, Iterable<MethodInvoker> steps,
            List<MethodInvoker> handlers) {
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
                throw InvalidMachineBeanException.methods(beanName, userClass,
                        List.of(first.annotated(), invoker.annotated()), "the methods disagree on the state type: "
                                + first.method().getName() + " takes a " + type.getTypeName() + ", "
                                + invoker.method().getName() + " a " + own.getTypeName(),
                        "Take the same state type in every @Step and @OnError method (or none): a machine has one"
                                + " state type.");
            }
        }
        return type == null ? Object.class : type;
    }

    private static void checkDistinctErrorTypes(String beanName, Class<?> userClass, List<MethodInvoker> handlers) {
        Map<Class<? extends Throwable>, MethodInvoker> seen = new LinkedHashMap<>();
        for (MethodInvoker handler : handlers) {
            MethodInvoker earlier = seen.putIfAbsent(handler.errorType(), handler);
            if (earlier != null) {
                throw InvalidMachineBeanException.methods(beanName, userClass,
                        List.of(earlier.annotated(), handler.annotated()), "the machine declares two @OnError"
                                + " methods for " + handler.errorType().getName()
                                + (handler.errorType() == Exception.class ? " (a method that takes no exception"
                                        + " handles Exception)" : ""),
                        "Keep one @OnError method per exception type; the closest type to the thrown exception"
                                + " wins.");
            }
        }
    }

    /** The duration an annotation attribute holds; {@code step} is the method it is on, {@code null} for the class. */
    private @Nullable Duration duration(String text, String beanName, Class<?> userClass,
            @Nullable MethodInvoker step, String attribute) {
        String value = resolve(text);
        if (!StringUtils.hasText(value)) {
            return null;
        }
        try {
            return DurationStyle.detectAndParse(value);
        } catch (IllegalArgumentException e) {
            String reason = (step == null ? "@DurableMachine(" : "@Step(") + attribute + " = \"" + value + "\") is not"
                    + " a duration";
            String action = "Write a duration such as 30s, 500ms or PT1M (or nothing, for "
                    + (step == null ? "durable.step-timeout" : "the machine's stepTimeout") + ").";
            throw step == null ? InvalidMachineBeanException.bean(beanName, userClass, reason, action)
                    : InvalidMachineBeanException.methods(beanName, userClass, List.of(step.annotated()), reason,
                            action);
        }
    }

    /**
     * The policy a {@code @Retry} declares: {@code inherited} (the machine's, or the engine's) with the attributes it
     * sets, placeholders resolved; a bad value fails naming the bean, the method ({@code step}, {@code null} for the
     * class) and the attribute.
     */
    private RetryPolicy retryPolicy(Retry retry, RetryPolicy inherited, String beanName, Class<?> userClass,
            @Nullable MethodInvoker step) {
        RetryAttributes attributes = new RetryAttributes(beanName, userClass, step);
        RetryPolicy.Builder policy = inherited.toBuilder();
        attributes.value("maxAttempts", retry.maxAttempts(), "a whole number",
                "a number of attempts such as 5 (1: no retry)", text -> policy.maxAttempts(Integer.parseInt(text)));
        attributes.value("delay", retry.delay(), "a duration", "a duration such as 2s",
                text -> policy.delay(DurationStyle.detectAndParse(text)));
        attributes.value("multiplier", retry.multiplier(), "a number", "a multiplier such as 2 (1: a fixed delay)",
                text -> policy.multiplier(Double.parseDouble(text)));
        attributes.value("maxDelay", retry.maxDelay(), "a duration", "a duration such as 10m",
                text -> policy.maxDelay(DurationStyle.detectAndParse(text)));
        attributes.value("jitter", retry.jitter(), "a duration", "a duration such as 500ms",
                text -> policy.jitter(DurationStyle.detectAndParse(text)));
        if (retry.nonRetryable().length > 0) {
            policy.nonRetryable(retry.nonRetryable());
        }
        try {
            return policy.build();
        } catch (RetryPolicy.InvalidRetryPolicyException e) {
            throw attributes.invalid("@Retry(" + e.setting() + ") " + e.problem(), "Correct the attribute");
        }
    }

    /** Reads the attributes of one {@code @Retry}, and names it, its bean and its method when one is invalid. */
    private final class RetryAttributes {

        private final String beanName;
        private final Class<?> userClass;
        private final @Nullable MethodInvoker step;

        RetryAttributes(String beanName, Class<?> userClass, @Nullable MethodInvoker step) {
            this.beanName = beanName;
            this.userClass = userClass;
            this.step = step;
        }

        /** Hands the attribute's value, placeholders resolved, to {@code apply}, unless it is left out. */
        void value(String attribute, String declared, String kind, String example,
                Consumer<String> apply) {
            String value = resolve(declared);
            if (!StringUtils.hasText(value)) {
                return;
            }
            try {
                apply.accept(value.strip());
            } catch (IllegalArgumentException e) {
                throw invalid("@Retry(" + attribute + " = \"" + value + "\") is not " + kind, "Write " + example);
            }
        }

        InvalidMachineBeanException invalid(String reason, String action) {
            String inherited = step == null ? "durable.retry.*" : "the machine's @Retry or durable.retry.*";
            String fullAction = action + ", or leave it out for the value of " + inherited + ".";
            return step == null ? InvalidMachineBeanException.bean(beanName, userClass, reason, fullAction)
                    : InvalidMachineBeanException.methods(beanName, userClass, List.of(step.annotated()), reason,
                            fullAction);
        }
    }

    /**
     * The machine's {@code @DurableSignal}s, names resolved; a blank or doubled name fails naming the bean
     * (docs/DESIGN.md, "Declared signals").
     */
    private void declareSignals(MachineDefinition.Builder<Object> builder, String beanName, Class<?> userClass) {
        DurableSignals container = AnnotatedElementUtils.findMergedAnnotation(userClass, DurableSignals.class);
        if (container != null && container.value().length == 0) {
            builder.acceptsNoSignals();
        }
        Map<String, DurableSignal> seen = new LinkedHashMap<>();
        for (DurableSignal signal : AnnotatedElementUtils.findMergedRepeatableAnnotations(userClass,
                DurableSignal.class, DurableSignals.class)) {
            String name = resolve(signal.name());
            DurableSignal earlier = seen.putIfAbsent(name, signal);
            if (earlier != null) {
                throw InvalidMachineBeanException.bean(beanName, userClass, "@DurableSignal(name = \"" + name
                        + "\") is declared twice, with payload " + earlier.payload().getName() + " and with payload "
                        + signal.payload().getName(), "Declare each signal once, with the one type its payload reads"
                                + " as.");
            }
            try {
                builder.signal(name, signal.payload());
            } catch (MachineDefinitionException e) {
                throw InvalidMachineBeanException.bean(beanName, userClass, "@DurableSignal(name = \"" + name
                        + "\") is invalid: " + e.getMessage(), "Name the signal as senders and Outcome.await name"
                                + " it: non-blank, without surrounding whitespace.");
            }
        }
    }

    /** A declared schedule, its placeholders resolved; a bad value fails naming the bean and the attribute. */
    private Schedule schedule(DurableSchedule annotation, String beanName, Class<?> userClass) {
        String name = resolve(annotation.name());
        String cron = resolve(annotation.cron());
        String zone = resolve(annotation.zone());
        try {
            return Schedule.cron(name, cron).zone(zone).missPolicy(annotation.missPolicy());
        } catch (IllegalArgumentException e) {
            throw InvalidMachineBeanException.bean(beanName, userClass, "@DurableSchedule(name = \"" + name
                    + "\", cron = \"" + cron + "\", zone = \"" + zone + "\") is invalid: " + e.getMessage(),
                    "Write a Spring cron expression of six fields, seconds first (\"0 0 2 * * *\" is 02:00 every day),"
                            + " or a macro such as @daily, and a zone such as UTC or Europe/Berlin.");
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
