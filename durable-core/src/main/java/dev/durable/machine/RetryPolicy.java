package dev.durable.machine;

import dev.durable.DurableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * How the engine retries a step that failed and whose error handler does not decide (docs/DESIGN.md, "Retry
 * policies"): up to {@link #maxAttempts()} runs of the step in all, each retry a durable timer (a runnable row eligible
 * later) whose delay is Spring's {@link ExponentialBackOff} with jitter: {@link #delay()} after the first failed run,
 * multiplied by {@link #multiplier()} after each further one, never above {@link #maxDelay()}. A failure whose type
 * is (a subclass of) one of {@link #nonRetryable()} fails the instance at once. Immutable; checked when built.
 *
 * <pre>{@code
 * RetryPolicy payments = RetryPolicy.builder()
 *         .maxAttempts(5)
 *         .delay(Duration.ofSeconds(2))
 *         .nonRetryable(CardDeclinedException.class)
 *         .build();
 * }</pre>
 *
 * <p>The attempt a policy counts is the row's {@code attempt} ({@link dev.durable.StepContext#attempt()}): every
 * re-run of the step counts, whatever made it, a retry or a crash (docs/DESIGN.md, "Re-execution"), so
 * {@code maxAttempts} bounds how often the step runs, and a step that crashed twice has two attempts fewer left.
 *
 * <p>{@link #none()} (one attempt) fails an instance at the first failure; {@link #defaults()} is the engine's
 * default ({@code durable.retry.*} in the Spring Boot starter).
 */
public final class RetryPolicy {

    /** Runs of a failing step in all, the first one included: 10. */
    public static final int DEFAULT_MAX_ATTEMPTS = 10;
    /** The delay before the first retry: 1 second. */
    public static final Duration DEFAULT_DELAY = Duration.ofSeconds(1);
    /** What each further delay is multiplied by: 2. */
    public static final double DEFAULT_MULTIPLIER = 2.0;
    /** The longest delay: 5 minutes. */
    public static final Duration DEFAULT_MAX_DELAY = Duration.ofMinutes(5);
    /**
     * The jitter of the first delay, grown by the multiplier with the delay (so about half of each delay before the
     * maximum): 500 ms.
     */
    public static final Duration DEFAULT_JITTER = Duration.ofMillis(500);

    private static final RetryPolicy DEFAULTS = builder().build();
    private static final RetryPolicy NONE = builder().maxAttempts(1).build();

    private final int maxAttempts;
    private final Duration delay;
    private final double multiplier;
    private final Duration maxDelay;
    private final Duration jitter;
    private final List<Class<? extends Throwable>> nonRetryable;

    private RetryPolicy(Builder builder) {
        this.maxAttempts = builder.maxAttempts;
        this.delay = builder.delay;
        this.multiplier = builder.multiplier;
        this.maxDelay = builder.maxDelay;
        this.jitter = builder.jitter;
        this.nonRetryable = List.copyOf(builder.nonRetryable);
    }

    /** The default policy: the {@code DEFAULT_*} constants, no error non-retryable. */
    public static RetryPolicy defaults() {
        return DEFAULTS;
    }

    /** No retry: a step that fails, and whose error handler does not decide, fails its instance at once. */
    public static RetryPolicy none() {
        return NONE;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this policy. */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.maxAttempts = maxAttempts;
        builder.delay = delay;
        builder.multiplier = multiplier;
        builder.maxDelay = maxDelay;
        builder.jitter = jitter;
        builder.nonRetryable = new ArrayList<>(nonRetryable);
        return builder;
    }

    /** How many times a failing step runs in all, the first run included; 1 for no retry. */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** The delay before the first retry (jitter aside). */
    public Duration delay() {
        return delay;
    }

    /** What each further delay is multiplied by; 1 for a fixed delay. */
    public double multiplier() {
        return multiplier;
    }

    /** The longest delay, jitter included. */
    public Duration maxDelay() {
        return maxDelay;
    }

    /**
     * How far the first delay may be moved up or down at random, grown with the delay by the multiplier; a delay is
     * never moved below {@link #delay()} nor above {@link #maxDelay()} (Spring's {@link ExponentialBackOff#setJitter}).
     */
    public Duration jitter() {
        return jitter;
    }

    /** The types of failure that are never retried, with their subclasses. */
    public List<Class<? extends Throwable>> nonRetryable() {
        return nonRetryable;
    }

    /** Whether this policy retries at all (more than one attempt). */
    public boolean retries() {
        return maxAttempts > 1;
    }

    /** The first of {@link #nonRetryable()} that {@code error} is an instance of, or {@code null} if it is retryable. */
    public @Nullable Class<? extends Throwable> nonRetryableTypeOf(Throwable error) {
        Objects.requireNonNull(error, "error must not be null");
        for (Class<? extends Throwable> type : nonRetryable) {
            if (type.isInstance(error)) {
                return type;
            }
        }
        return null;
    }

    /**
     * The delay before the next run of a step whose run at {@code attempt} (0 for the first) failed, or {@code null}
     * when the policy gives up: after {@link #maxAttempts()} runs. It is the {@code attempt + 1}-th back-off of a fresh
     * execution of {@link #backOff()}: the attempt is kept in the row, never in memory, so the execution is replayed
     * (up to the attempt at which the delay stops growing: the later ones draw from the same range).
     *
     * @throws IllegalArgumentException if {@code attempt} is negative
     */
    public @Nullable Duration delayAfter(int attempt) {
        if (attempt < 0) {
            throw new IllegalArgumentException("attempt must not be negative, was " + attempt);
        }
        if (attempt + 1L >= maxAttempts) {
            return null;
        }
        int replays = growingAttempts(attempt);
        BackOffExecution execution = backOff().start();
        long millis = execution.nextBackOff();
        for (int i = 0; i < replays; i++) {
            millis = execution.nextBackOff();
        }
        return Duration.ofMillis(millis);
    }

    /**
     * How many of the first {@code attempt} attempts the delay (jitter aside) still grows over: from the one after, it
     * is the same; 0 for a fixed delay. Found by replaying the back-off without jitter until a delay equals the one
     * before.
     */
    private int growingAttempts(int attempt) {
        ExponentialBackOff nominal = backOff();
        nominal.setJitter(0);
        nominal.setMaxAttempts(Long.MAX_VALUE);
        BackOffExecution execution = nominal.start();
        long previous = execution.nextBackOff();
        int growing = 0;
        while (growing < attempt) {
            long next = execution.nextBackOff();
            if (next == previous) {
                return growing;
            }
            previous = next;
            growing++;
        }
        return growing;
    }

    /**
     * This policy's delays as a fresh Spring {@link ExponentialBackOff}, for use elsewhere: its
     * {@link ExponentialBackOff#setMaxAttempts max attempts} are the retries, {@code maxAttempts() - 1}.
     */
    public ExponentialBackOff backOff() {
        ExponentialBackOff backOff = new ExponentialBackOff(delay.toMillis(), multiplier);
        backOff.setMaxInterval(maxDelay.toMillis());
        backOff.setJitter(jitter.toMillis());
        backOff.setMaxAttempts(maxAttempts - 1L);
        return backOff;
    }

    /** {@code none}, or the policy's values, as messages show it. */
    public String describe() {
        if (!retries()) {
            return "none";
        }
        return "up to " + maxAttempts + " attempts, delays from " + delay + " x " + multiplier + " up to " + maxDelay
                + ", jitter " + jitter + (nonRetryable.isEmpty() ? "" : ", not retrying " + names(nonRetryable));
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof RetryPolicy that
                && maxAttempts == that.maxAttempts
                && delay.equals(that.delay)
                && Double.compare(multiplier, that.multiplier) == 0
                && maxDelay.equals(that.maxDelay)
                && jitter.equals(that.jitter)
                && nonRetryable.equals(that.nonRetryable);
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxAttempts, delay, multiplier, maxDelay, jitter, nonRetryable);
    }

    @Override
    public String toString() {
        return "RetryPolicy[maxAttempts=" + maxAttempts + ", delay=" + delay + ", multiplier=" + multiplier
                + ", maxDelay=" + maxDelay + ", jitter=" + jitter + ", nonRetryable=" + names(nonRetryable) + "]";
    }

    private static List<String> names(List<Class<? extends Throwable>> types) {
        return types.stream().map(Class::getName).toList();
    }

    /** Builds a {@link RetryPolicy}; every value starts at its default, and {@link #build()} checks them all. */
    public static final class Builder {

        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private @Nullable Duration delay = DEFAULT_DELAY;
        private double multiplier = DEFAULT_MULTIPLIER;
        private @Nullable Duration maxDelay = DEFAULT_MAX_DELAY;
        private @Nullable Duration jitter = DEFAULT_JITTER;
        private List<Class<? extends Throwable>> nonRetryable = new ArrayList<>();

        private Builder() {
        }

        /** How many times a failing step runs in all, the first run included; at least 1 (1: no retry). */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** The delay before the first retry; not negative. */
        public Builder delay(Duration delay) {
            this.delay = delay;
            return this;
        }

        /** What each further delay is multiplied by; at least 1 (1: a fixed delay). */
        public Builder multiplier(double multiplier) {
            this.multiplier = multiplier;
            return this;
        }

        /** The longest delay; not shorter than the delay. */
        public Builder maxDelay(Duration maxDelay) {
            this.maxDelay = maxDelay;
            return this;
        }

        /** How far the first delay may move at random (see {@link RetryPolicy#jitter()}); not negative. */
        public Builder jitter(Duration jitter) {
            this.jitter = jitter;
            return this;
        }

        /** Replaces the types of failure that are never retried (with their subclasses). */
        @SafeVarargs
        public final Builder nonRetryable(Class<? extends Throwable>... types) {
            return nonRetryable(Arrays.asList(types));
        }

        /** Replaces the types of failure that are never retried (with their subclasses). */
        public Builder nonRetryable(Collection<? extends Class<? extends Throwable>> types) {
            this.nonRetryable = new ArrayList<>(Objects.requireNonNull(types, "nonRetryable must not be null"));
            return this;
        }

        /**
         * Checks and builds the policy.
         *
         * @throws InvalidRetryPolicyException naming the first invalid value
         */
        public RetryPolicy build() {
            if (maxAttempts < 1) {
                throw new InvalidRetryPolicyException("maxAttempts", "must be at least 1 (1: no retry), was "
                        + maxAttempts);
            }
            Duration first = notNegative("delay", delay);
            if (Double.isNaN(multiplier) || Double.isInfinite(multiplier) || multiplier < 1) {
                throw new InvalidRetryPolicyException("multiplier", "must be a number of at least 1 (1: a fixed"
                        + " delay), was " + multiplier);
            }
            Duration longest = notNegative("maxDelay", maxDelay);
            if (longest.compareTo(first) < 0) {
                throw new InvalidRetryPolicyException("maxDelay", longest + " is shorter than the delay (" + first
                        + "): no delay could respect both");
            }
            notNegative("jitter", jitter);
            for (Class<? extends Throwable> type : nonRetryable) {
                if (type == null) {
                    throw new InvalidRetryPolicyException("nonRetryable", "holds a null type: " + nonRetryable);
                }
                // A type bound from text (a property) escapes the compiler's check.
                if (!Throwable.class.isAssignableFrom(type)) {
                    throw new InvalidRetryPolicyException("nonRetryable", "holds " + type.getName()
                            + ", which is not a Throwable");
                }
            }
            return new RetryPolicy(this);
        }

        private static Duration notNegative(String setting, @Nullable Duration value) {
            if (value == null || value.isNegative()) {
                throw new InvalidRetryPolicyException(setting, "must not be negative, was " + value);
            }
            try {
                value.toMillis();
            } catch (ArithmeticException e) {
                throw new InvalidRetryPolicyException(setting, "is too long to count in milliseconds: " + value);
            }
            return value;
        }
    }

    /**
     * A value of a {@link RetryPolicy} is invalid; {@link #setting()} names it as the builder does ({@code maxDelay}),
     * and whoever built the policy names it as its user wrote it (the starter as {@code durable.retry.max-delay} or an
     * attribute of {@code @Retry}).
     */
    public static final class InvalidRetryPolicyException extends DurableException {

        private final String setting;
        private final String problem;

        public InvalidRetryPolicyException(String setting, String problem) {
            super("Invalid retry policy: " + setting + " " + problem);
            this.setting = setting;
            this.problem = problem;
        }

        /** The value's name in {@link Builder}, e.g. {@code maxDelay}. */
        public String setting() {
            return setting;
        }

        /** What is wrong with it, without its name. */
        public String problem() {
            return problem;
        }
    }
}
