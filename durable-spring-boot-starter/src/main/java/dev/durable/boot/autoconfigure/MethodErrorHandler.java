package dev.durable.boot.autoconfigure;

import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.machine.ErrorHandler;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ExceptionDepthComparator;

/**
 * A machine's {@code @OnError} methods as one {@link ErrorHandler}: each error goes to the method whose exception
 * type is closest to it (the choice is cached per exception class). An error no method accepts goes to the step's
 * retry policy, as if the machine had no handler (docs/DESIGN.md, "Retry policies").
 */
final class MethodErrorHandler implements ErrorHandler<Object> {

    private final Map<Class<? extends Throwable>, MethodInvoker> byType;
    private final Map<Class<?>, Optional<MethodInvoker>> chosen = new ConcurrentHashMap<>();

    MethodErrorHandler(List<MethodInvoker> methods) {
        this.byType = methods.stream().collect(Collectors.toUnmodifiableMap(MethodInvoker::errorType, m -> m));
    }

    @Override
    public Outcome onError(Exception error, @Nullable Object state, StepContext context) throws Exception {
        Optional<MethodInvoker> method = chosen.computeIfAbsent(error.getClass(), type -> choose(error));
        if (method.isEmpty()) {
            return Outcome.retryByPolicy(state);
        }
        return method.get().invoke(error, state, context);
    }

    private Optional<MethodInvoker> choose(Exception error) {
        List<Class<? extends Throwable>> accepting =
                byType.keySet().stream().filter(type -> type.isInstance(error)).toList();
        if (accepting.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(byType.get(ExceptionDepthComparator.findClosestMatch(accepting, error)));
    }
}
