package dev.durable.machine;

import dev.durable.Schedule;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a machine is: its name and version, the queue its instances run on, its state type, its steps and its
 * error handler. Immutable; built with {@link #builder(String, int, Class)}.
 *
 * <pre>{@code
 * MachineDefinition checkout = MachineDefinition.builder("checkout", 1, Checkout.State.class)
 *         .queue("checkout")
 *         .initialStep("start")
 *         .step("start", (state, ctx) -> Outcome.next("ship", state))
 *         .step("ship", (state, ctx) -> Outcome.done())
 *         .errorHandler((error, state, ctx) -> Outcome.stop(error.toString()))
 *         .build();
 * }</pre>
 *
 * The Spring Boot starter builds these from {@code @DurableMachine} beans.
 */
public final class MachineDefinition {

    /** The queue of machines that name none. */
    public static final String DEFAULT_QUEUE = "default";

    private final String name;
    private final int version;
    private final String queue;
    private final Type stateType;
    private final Class<?> stateClass;
    private final String initialStep;
    private final Map<String, StepDefinition> steps;
    private final @Nullable ErrorHandler<Object> errorHandler;
    private final @Nullable Duration stepTimeout;
    private final @Nullable Class<?> machineClass;
    private final String source;
    private final List<Schedule> schedules;

    private MachineDefinition(Builder<?> builder, String initialStep) {
        this.name = builder.name;
        this.version = builder.version;
        this.queue = builder.queue;
        this.stateType = builder.stateType;
        this.stateClass = rawClass(builder.stateType);
        this.initialStep = initialStep;
        this.steps = Collections.unmodifiableMap(new LinkedHashMap<>(builder.steps));
        this.errorHandler = builder.errorHandler;
        this.stepTimeout = builder.stepTimeout;
        this.machineClass = builder.machineClass;
        this.source = builder.source;
        this.schedules = List.copyOf(builder.schedules.values());
    }

    /** A builder for a machine whose state is of class {@code stateType}. */
    public static <S> Builder<S> builder(String name, int version, Class<S> stateType) {
        return new Builder<>(name, version, stateType);
    }

    /** A builder for a machine whose state is of a (possibly generic) {@code stateType}. */
    public static Builder<Object> builder(String name, int version, Type stateType) {
        return new Builder<>(name, version, stateType);
    }

    public String name() {
        return name;
    }

    public int version() {
        return version;
    }

    public String queue() {
        return queue;
    }

    /** The type states are read as. */
    public Type stateType() {
        return stateType;
    }

    /** Whether {@code state} may be stored as this machine's state. */
    public boolean acceptsState(@Nullable Object state) {
        return state == null || boxed(stateClass).isInstance(state);
    }

    public String initialStep() {
        return initialStep;
    }

    /** The steps by name, in declaration order. */
    public Map<String, StepDefinition> steps() {
        return steps;
    }

    public @Nullable StepDefinition step(String name) {
        return steps.get(name);
    }

    public @Nullable ErrorHandler<Object> errorHandler() {
        return errorHandler;
    }

    /** The default timeout of this machine's steps; {@code null} for none. */
    public @Nullable Duration stepTimeout() {
        return stepTimeout;
    }

    /** The timeout of {@code step}: its own, else the machine's; {@code null} for none. */
    public @Nullable Duration timeoutOf(StepDefinition step) {
        return step.timeout() != null ? step.timeout() : stepTimeout;
    }

    /** The class this machine was registered from, if any; {@code DurableClient.start(Class, ...)} looks it up. */
    /**
     * The recurring schedules this machine declares: each tick starts one instance, with no state, once in the
     * cluster. The engine writes them to {@code durable_schedule} when it starts (the highest registered version of
     * a machine speaks for it).
     */
    public List<Schedule> schedules() {
        return schedules;
    }

    public @Nullable Class<?> machineClass() {
        return machineClass;
    }

    /** Where the machine was declared, for error messages (e.g. a bean name and class). */
    public String source() {
        return source;
    }

    /** {@code name v<version>}, as used in messages. */
    public String describe() {
        return name + " v" + version;
    }

    @Override
    public String toString() {
        return "MachineDefinition[" + describe() + ", queue=" + queue + ", steps=" + steps.keySet() + "]";
    }

    private static Class<?> rawClass(Type type) {
        if (type instanceof Class<?> c) {
            return c;
        }
        if (type instanceof ParameterizedType p) {
            return rawClass(p.getRawType());
        }
        if (type instanceof GenericArrayType) {
            return Object[].class;
        }
        return Object.class;
    }

    private static Class<?> boxed(Class<?> type) {
        if (!type.isPrimitive()) {
            return type;
        }
        return java.lang.invoke.MethodType.methodType(type).wrap().returnType();
    }

    /** Builds a {@link MachineDefinition}; {@link #build()} checks it. */
    public static final class Builder<S> {

        private final String name;
        private final int version;
        private final Type stateType;
        private String queue = DEFAULT_QUEUE;
        private @Nullable String initialStep;
        private final Map<String, StepDefinition> steps = new LinkedHashMap<>();
        private @Nullable ErrorHandler<Object> errorHandler;
        private @Nullable Duration stepTimeout;
        private @Nullable Class<?> machineClass;
        private String source;
        private final Map<String, Schedule> schedules = new LinkedHashMap<>();

        private Builder(String name, int version, Type stateType) {
            this.name = Objects.requireNonNull(name, "machine name must not be null");
            this.version = version;
            this.stateType = Objects.requireNonNull(stateType, "state type must not be null");
            this.source = "machine '" + name + "' v" + version;
        }

        /** The queue instances run on; default {@value MachineDefinition#DEFAULT_QUEUE}. */
        public Builder<S> queue(String queue) {
            this.queue = Objects.requireNonNull(queue, "queue must not be null");
            return this;
        }

        /** The step new instances start at; may be left out when the machine has a single step. */
        public Builder<S> initialStep(String step) {
            this.initialStep = Objects.requireNonNull(step, "initial step must not be null");
            return this;
        }

        public Builder<S> step(String name, StepFunction<S> function) {
            return step(name, function, null);
        }

        /** A step with its own timeout ({@code null} for the machine's). */
        @SuppressWarnings("unchecked")
        public Builder<S> step(String name, StepFunction<S> function, @Nullable Duration timeout) {
            return step(new StepDefinition(name, (StepFunction<Object>) function, timeout,
                    "step '" + name + "' of " + source));
        }

        /** A step described fully (the starter passes the declaring method as its source). */
        public Builder<S> step(StepDefinition step) {
            StepDefinition earlier = steps.putIfAbsent(step.name(), step);
            if (earlier != null) {
                throw new MachineDefinitionException("Step '" + step.name() + "' of machine " + name + " v" + version
                        + " is declared twice: by " + earlier.source() + " and by " + step.source());
            }
            return this;
        }

        @SuppressWarnings("unchecked")
        public Builder<S> errorHandler(@Nullable ErrorHandler<S> handler) {
            this.errorHandler = (ErrorHandler<Object>) handler;
            return this;
        }

        /** The default timeout of every step of this machine; {@code null} (the default) for none. */
        public Builder<S> stepTimeout(@Nullable Duration timeout) {
            if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
                throw new MachineDefinitionException("Step timeout of machine " + name + " v" + version
                        + " must be positive, was " + timeout);
            }
            this.stepTimeout = timeout;
            return this;
        }

        /** Declares a recurring schedule of this machine (see {@link MachineDefinition#schedules()}). */
        public Builder<S> schedule(Schedule schedule) {
            Objects.requireNonNull(schedule, "schedule must not be null");
            if (schedules.putIfAbsent(schedule.name(), schedule) != null) {
                throw new MachineDefinitionException("Schedule '" + schedule.name() + "' of machine " + name + " v"
                        + version + " (" + source + ") is declared twice");
            }
            return this;
        }

        /** The class clients may name this machine by. */
        public Builder<S> machineClass(@Nullable Class<?> type) {
            this.machineClass = type;
            return this;
        }

        /** Where the machine is declared, for error messages. */
        public Builder<S> source(String source) {
            this.source = Objects.requireNonNull(source, "source must not be null");
            return this;
        }

        public MachineDefinition build() {
            if (name.isBlank() || !name.equals(name.strip())) {
                throw new MachineDefinitionException("Machine name '" + name + "' (" + source
                        + ") must be non-blank without surrounding whitespace");
            }
            if (version < 1) {
                throw new MachineDefinitionException("Machine " + name + " (" + source
                        + ") has version " + version + "; versions start at 1");
            }
            if (queue.isBlank()) {
                throw new MachineDefinitionException("Machine " + name + " v" + version + " (" + source
                        + ") has a blank queue name");
            }
            if (steps.isEmpty()) {
                throw new MachineDefinitionException("Machine " + name + " v" + version + " (" + source
                        + ") declares no steps");
            }
            String initial = initialStep;
            if (initial == null) {
                if (steps.size() > 1) {
                    throw new MachineDefinitionException("Machine " + name + " v" + version + " (" + source
                            + ") declares several steps " + steps.keySet() + " but no initial step");
                }
                initial = steps.keySet().iterator().next();
            } else if (!steps.containsKey(initial)) {
                throw new MachineDefinitionException("Machine " + name + " v" + version + " (" + source
                        + ") names initial step '" + initial + "', which it does not declare (steps: "
                        + steps.keySet() + ")");
            }
            return new MachineDefinition(this, initial);
        }
    }
}
