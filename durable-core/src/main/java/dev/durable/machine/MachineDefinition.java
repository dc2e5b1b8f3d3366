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
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;
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
 *         .retryPolicy(RetryPolicy.builder().maxAttempts(5).build())
 *         .errorHandler((error, state, ctx) -> error instanceof OutOfStockException
 *                 ? Outcome.stop("out of stock") : Outcome.retryByPolicy(state))
 *         .build();
 * }</pre>
 *
 * A step that fails is retried as its retry policy says (the step's own, else the machine's, else the engine's
 * default) unless the machine's error handler decides (docs/DESIGN.md, "Retry policies").
 *
 * A machine may declare the signals it accepts, each with the type its payload reads as
 * ({@link Builder#signal(String, Type)}): a signal to one of its instances is then refused at the call, with nothing
 * stored, unless its name is declared and its payload binds to the declared type (docs/DESIGN.md, "Declared
 * signals"). A machine that declares none accepts any signal.
 *
 * A version may say how rows of older versions are brought to it ({@link Builder#upcaster(int, StateUpcaster)}) and
 * which names its steps had before ({@link Builder#formerStepNames(String, String...)}), so that a node running only
 * this version runs them too (docs/DESIGN.md, "Upcasting").
 *
 * The Spring Boot starter builds these from {@code @DurableMachine} beans.
 */
public final class MachineDefinition {

    /** The queue of machines that name none. */
    public static final String DEFAULT_QUEUE = "default";

    /** The payload type of a declared signal that carries no payload. */
    public static final Class<Void> NO_PAYLOAD = Void.class;

    private final String name;
    private final int version;
    private final String queue;
    private final Type stateType;
    private final Class<?> stateClass;
    private final String initialStep;
    private final Map<String, StepDefinition> steps;
    private final @Nullable ErrorHandler<Object> errorHandler;
    private final @Nullable Duration stepTimeout;
    private final @Nullable RetryPolicy retryPolicy;
    private final @Nullable Class<?> machineClass;
    private final String source;
    private final List<Schedule> schedules;
    private final NavigableMap<Integer, StateUpcaster> upcasters;
    private final Map<String, String> formerStepNames;
    private final Map<String, Type> signals;
    private final boolean declaresSignals;

    private MachineDefinition(Builder<?> builder, String initialStep, Map<String, StepDefinition> steps) {
        this.name = builder.name;
        this.version = builder.version;
        this.queue = builder.queue;
        this.stateType = builder.stateType;
        this.stateClass = rawClass(builder.stateType);
        this.initialStep = initialStep;
        this.steps = Collections.unmodifiableMap(new LinkedHashMap<>(steps));
        this.errorHandler = builder.errorHandler;
        this.stepTimeout = builder.stepTimeout;
        this.retryPolicy = builder.retryPolicy;
        this.machineClass = builder.machineClass;
        this.source = builder.source;
        this.schedules = List.copyOf(builder.schedules.values());
        this.upcasters = Collections.unmodifiableNavigableMap(new TreeMap<>(builder.upcasters));
        this.formerStepNames = Collections.unmodifiableMap(new LinkedHashMap<>(builder.formerStepNames));
        this.signals = Collections.unmodifiableMap(new LinkedHashMap<>(builder.signals));
        this.declaresSignals = builder.acceptsNoSignals || !builder.signals.isEmpty();
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

    /**
     * The name of the step a row at step {@code storedName} runs: {@code storedName} itself if this version declares
     * it, the step's current name if it is one of its former names, else {@code null}.
     */
    public @Nullable String currentStepName(String storedName) {
        return steps.containsKey(storedName) ? storedName : formerStepNames.get(storedName);
    }

    /** The former names of this version's steps, each mapped to the step's current name. */
    public Map<String, String> formerStepNames() {
        return formerStepNames;
    }

    /**
     * The upcasters this version declares, by the version whose states each brings to the next: from
     * {@link #oldestUpcastVersion()} up to this version's predecessor, without a gap; empty for none.
     */
    public NavigableMap<Integer, StateUpcaster> upcasters() {
        return upcasters;
    }

    /** The oldest version whose states this version can bring to itself: its own version if it declares no upcaster. */
    public int oldestUpcastVersion() {
        return upcasters.isEmpty() ? version : upcasters.firstKey();
    }

    /**
     * The signals this machine declares, by name in declaration order, each with the type its payload reads as
     * ({@link #NO_PAYLOAD} for a signal that carries none). Empty when the machine declares none, and then it accepts
     * any signal, as machines did before declarations existed, unless it declares that it accepts none
     * ({@link #declaresSignals()}).
     */
    public Map<String, Type> signals() {
        return signals;
    }

    /**
     * Whether this machine declares its signals, and so accepts only those: true when it declares at least one, or
     * that it accepts none ({@link Builder#acceptsNoSignals()}); false for a machine that accepts any signal
     * (docs/DESIGN.md, "Declared signals").
     */
    public boolean declaresSignals() {
        return declaresSignals;
    }

    /** The payload type declared for signal {@code name}; {@code null} when it is not declared. */
    public @Nullable Type signalType(String name) {
        return signals.get(name);
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

    /**
     * How this machine's steps are retried when they fail and the error handler does not decide, unless a step has
     * its own; {@code null} for the engine's default (docs/DESIGN.md, "Retry policies").
     */
    public @Nullable RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    /** The retry policy of {@code step}: its own, else the machine's; {@code null} for the engine's default. */
    public @Nullable RetryPolicy retryPolicyOf(StepDefinition step) {
        return step.retryPolicy() != null ? step.retryPolicy() : retryPolicy;
    }

    /**
     * The recurring schedules this machine declares: each tick starts one instance, with no state, once in the
     * cluster. The engine writes them to {@code durable_schedule} when it starts (the highest registered version of
     * a machine speaks for it).
     */
    public List<Schedule> schedules() {
        return schedules;
    }

    /** The class this machine was registered from, if any; {@code DurableClient.start(Class, ...)} looks it up. */
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
        private @Nullable RetryPolicy retryPolicy;
        private final Map<String, RetryPolicy> stepRetryPolicies = new LinkedHashMap<>();
        private @Nullable Class<?> machineClass;
        private String source;
        private final Map<String, Schedule> schedules = new LinkedHashMap<>();
        private final Map<Integer, StateUpcaster> upcasters = new TreeMap<>();
        private final Map<String, String> formerStepNames = new LinkedHashMap<>();
        private final Map<String, Type> signals = new LinkedHashMap<>();
        private boolean acceptsNoSignals;

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

        /**
         * How every step of this machine is retried when it fails and the error handler does not decide, unless the
         * step has a policy of its own; {@code null} (the default) for the engine's ({@code RetryPolicy.none()} for no
         * retry).
         */
        public Builder<S> retryPolicy(@Nullable RetryPolicy policy) {
            this.retryPolicy = policy;
            return this;
        }

        /**
         * How {@code step} is retried when it fails and the error handler does not decide, instead of the machine's
         * policy; the step may be declared before or after.
         *
         * @throws MachineDefinitionException (from {@link #build()}) if the machine declares no such step
         */
        public Builder<S> retryPolicy(String step, RetryPolicy policy) {
            Objects.requireNonNull(step, "step must not be null");
            stepRetryPolicies.put(step, Objects.requireNonNull(policy, "retry policy must not be null"));
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

        /**
         * Declares how a stored state of version {@code fromVersion} becomes one of version {@code fromVersion + 1}
         * (docs/DESIGN.md, "Upcasting"). Declared on the current version, one per older version, from the oldest whose
         * rows may still be stored up to this version's predecessor, without a gap: a node that runs this version
         * then also picks the rows of those versions it does not run itself, upcasts their states through the chain,
         * and runs their steps on this version; the outcome's commit writes this version into the row.
         *
         * @throws MachineDefinitionException if {@code fromVersion} is not older than this version, or an upcaster
         *                                    from it was declared already
         */
        public Builder<S> upcaster(int fromVersion, StateUpcaster upcaster) {
            Objects.requireNonNull(upcaster, "upcaster must not be null");
            if (fromVersion < 1 || fromVersion >= version) {
                throw new MachineDefinitionException("Machine " + name + " v" + version + " (" + source
                        + ") declares an upcaster from version " + fromVersion + ", but an upcaster brings a state of"
                        + " an older version to the next one: " + name + " v" + version + " can declare upcasters"
                        + " from versions " + (version > 1 ? "1 to " + (version - 1) : "below 1, so none"));
            }
            if (upcasters.putIfAbsent(fromVersion, upcaster) != null) {
                throw new MachineDefinitionException("Machine " + name + " v" + version + " (" + source
                        + ") declares two upcasters from version " + fromVersion + "; declare one per version");
            }
            return this;
        }

        /**
         * Declares names {@code step} had in earlier code (of this version or an older one): a row stored at one of
         * them runs {@code step}, and its outcome's commit writes the current name into the row.
         *
         * @throws MachineDefinitionException if a former name is blank, or was declared already (for this or another
         *                                    step)
         */
        public Builder<S> formerStepNames(String step, String... formerNames) {
            Objects.requireNonNull(step, "step must not be null");
            for (String former : formerNames) {
                if (former == null || former.isBlank()) {
                    throw new MachineDefinitionException("Machine " + name + " v" + version + " (" + source
                            + ") declares a blank former name for step '" + step + "'");
                }
                String earlier = formerStepNames.putIfAbsent(former, step);
                if (earlier != null) {
                    throw new MachineDefinitionException("Machine " + name + " v" + version + " (" + source
                            + ") declares the former step name '" + former + "' twice: for step '" + earlier
                            + "' and for step '" + step + "'; a stored step name can mean one step only");
                }
            }
            return this;
        }

        /**
         * Declares a signal this machine accepts: its name, and the type its payload reads as. Once a machine declares
         * a signal, {@code DurableClient.signal} refuses, at the call and storing nothing, a signal to one of its
         * instances whose name it does not declare, or whose payload does not bind to the declared type (the codec
         * reads its JSON as the type without dropping a property); a step reads the payload typed with
         * {@code StepContext.awaited(name, type)}, and an {@code await} of a name it does not declare is an invalid
         * outcome (docs/DESIGN.md, "Declared signals"). The type must be readable by the engine's JSON codec, which
         * the engine checks when it is built.
         *
         * @param payloadType the payload's type, possibly generic; {@link MachineDefinition#NO_PAYLOAD} for a signal
         *                    that carries none (a payload sent with it is refused: nothing would read it)
         * @throws MachineDefinitionException if the name is blank, has surrounding whitespace or a NUL character, or
         *                                    was declared already
         */
        public Builder<S> signal(String name, Type payloadType) {
            Objects.requireNonNull(name, "signal name must not be null");
            Objects.requireNonNull(payloadType, "payload type of signal '" + name + "' must not be null (use"
                    + " MachineDefinition.NO_PAYLOAD for a signal without a payload)");
            if (name.isBlank() || !name.equals(name.strip()) || name.indexOf('\0') >= 0) {
                throw new MachineDefinitionException("Machine " + describe() + " (" + source + ") declares signal '"
                        + name.replace("\0", "\\u0000") + "': a signal name must be non-blank, without surrounding"
                        + " whitespace or NUL characters");
            }
            Type earlier = signals.putIfAbsent(name, payloadType == void.class ? NO_PAYLOAD : payloadType);
            if (earlier != null) {
                throw new MachineDefinitionException("Machine " + describe() + " (" + source + ") declares signal '"
                        + name + "' twice: with payload " + earlier.getTypeName() + " and with payload "
                        + payloadType.getTypeName() + "; declare each signal once");
            }
            return this;
        }

        /** Declares a signal this machine accepts that carries no payload (see {@link #signal(String, Type)}). */
        public Builder<S> signal(String name) {
            return signal(name, NO_PAYLOAD);
        }

        /**
         * Declares that this machine accepts no signal at all: every signal to one of its instances is refused at the
         * call, and an {@code await} is an invalid outcome. Without it, a machine that declares no signal accepts any.
         *
         * @throws MachineDefinitionException at {@link #build()}, if the machine declares signals as well
         */
        public Builder<S> acceptsNoSignals() {
            this.acceptsNoSignals = true;
            return this;
        }

        private String describe() {
            return name + " v" + version;
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
            if (acceptsNoSignals && !signals.isEmpty()) {
                throw new MachineDefinitionException("Machine " + describe() + " (" + source + ") declares that it"
                        + " accepts no signals, and declares signals " + signals.keySet() + "; declare either");
            }
            checkFormerStepNames();
            checkUpcasterChain();
            return new MachineDefinition(this, initial, stepsWithTheirRetryPolicies());
        }

        /** The steps, each with the policy {@link #retryPolicy(String, RetryPolicy)} gave it, if any. */
        private Map<String, StepDefinition> stepsWithTheirRetryPolicies() {
            Map<String, StepDefinition> all = new LinkedHashMap<>(steps);
            stepRetryPolicies.forEach((step, policy) -> {
                StepDefinition definition = all.get(step);
                if (definition == null) {
                    throw new MachineDefinitionException("Machine " + name + " v" + version + " (" + source
                            + ") declares a retry policy for step '" + step + "', which it does not declare (steps: "
                            + steps.keySet() + ")");
                }
                all.put(step, definition.withRetryPolicy(policy));
            });
            return all;
        }

        private void checkFormerStepNames() {
            formerStepNames.forEach((former, step) -> {
                if (!steps.containsKey(step)) {
                    throw new MachineDefinitionException("Machine " + name + " v" + version + " (" + source
                            + ") declares former names " + formerNamesOf(step) + " for step '" + step
                            + "', which it does not declare (steps: " + steps.keySet() + ")");
                }
                if (steps.containsKey(former)) {
                    throw new MachineDefinitionException("Machine " + name + " v" + version + " (" + source
                            + ") declares '" + former + "' as a former name of step '" + step + "', but '" + former
                            + "' is the name of a current step: a row at it would run '" + former + "', not '"
                            + step + "'");
                }
            });
        }

        private List<String> formerNamesOf(String step) {
            return formerStepNames.entrySet().stream().filter(e -> e.getValue().equals(step))
                    .map(Map.Entry::getKey).toList();
        }

        /** The upcasters must reach this version one version at a time: from the oldest up to the predecessor. */
        private void checkUpcasterChain() {
            if (upcasters.isEmpty()) {
                return;
            }
            int oldest = ((TreeMap<Integer, StateUpcaster>) upcasters).firstKey();
            for (int from = oldest; from < version; from++) {
                if (!upcasters.containsKey(from)) {
                    throw new MachineDefinitionException("Machine " + name + " v" + version + " (" + source
                            + ") declares upcasters from versions " + upcasters.keySet() + " but none from version "
                            + from + ": a state of version " + oldest + " could not reach version " + version
                            + "; declare one upcaster for each version from " + oldest + " to " + (version - 1));
                }
            }
        }
    }
}
