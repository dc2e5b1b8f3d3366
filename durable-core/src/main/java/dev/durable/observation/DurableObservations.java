package dev.durable.observation;

/**
 * The names and keys durable observes under (docs/DESIGN.md, "Tracing"). Every step execution is a
 * {@value #STEP} observation; the client's calls that cause work are {@value #START}, {@value #SIGNAL},
 * {@value #CANCEL} and {@value #RETRY}. Low-cardinality keys: {@value #MACHINE}, {@value #VERSION}, {@value #STEP_NAME},
 * {@value #QUEUE}, {@value #OUTCOME}; high-cardinality: {@value #INSTANCE}, {@value #ATTEMPT}. The same instance,
 * machine, step and attempt keys are in the SLF4J MDC while a step and its error handler run.
 */
public final class DurableObservations {

    /** One execution of a step: from the moment its user code begins to the moment it (and its error handler) end. */
    public static final String STEP = "durable.step";
    /** {@code DurableClient.start}: the call that creates an instance. */
    public static final String START = "durable.start";
    /** {@code DurableClient.signal}: the call that delivers a signal. */
    public static final String SIGNAL = "durable.signal";
    /** {@code DurableClient.cancel}: the call that cancels an instance. */
    public static final String CANCEL = "durable.cancel";
    /** {@code DurableClient.retry}: the operator's retry of a failed instance. */
    public static final String RETRY = "durable.retry";

    /** The machine's name (low cardinality; also an MDC key). */
    public static final String MACHINE = "durable.machine";
    /** The machine's version (low cardinality). */
    public static final String VERSION = "durable.version";
    /** The step's name (low cardinality; also an MDC key). */
    public static final String STEP_NAME = "durable.step";
    /** The step's queue (low cardinality). */
    public static final String QUEUE = "durable.queue";
    /**
     * What the step's user code decided: {@code next}, {@code await}, {@code retry}, {@code done}, {@code stop}, or
     * {@code none} when nothing ran (a suspension) or the step died of an {@link Error} (low cardinality).
     */
    public static final String OUTCOME = "durable.outcome";
    /** For the client's calls: whether the call did what it was asked (low cardinality). */
    public static final String RESULT = "durable.result";
    /** The signal's name, on {@value #SIGNAL} (low cardinality). */
    public static final String SIGNAL_NAME = "durable.signal";
    /** The instance's id (high cardinality; also an MDC key). */
    public static final String INSTANCE = "durable.instance";
    /** The step's attempt, 0 for the first (high cardinality; also an MDC key). */
    public static final String ATTEMPT = "durable.attempt";

    private DurableObservations() {
    }
}
