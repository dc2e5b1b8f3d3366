package dev.durable.boot.autoconfigure;

import dev.durable.Inbox;
import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.machine.MachineDefinitionException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.GenericTypeResolver;
import org.springframework.util.ReflectionUtils;

/**
 * Calls one {@code @Step} or {@code @OnError} method of a machine bean. Parameters are resolved by type once, when
 * the method is inspected; the bean is looked up and a {@link MethodHandle} adapted to
 * {@code (error, state, context)} is built once, on first use (or when {@link #bind()} is called at startup). A
 * call is then a plain {@code invokeExact}: no reflection, and an exception thrown by the method reaches the caller
 * as is, never wrapped.
 */
final class MethodInvoker {

    /** What a parameter receives. */
    enum Parameter { STATE, CONTEXT, INBOX, ERROR }

    private static final MethodType ADAPTED =
            MethodType.methodType(Outcome.class, Exception.class, Object.class, StepContext.class);
    private static final MethodHandle INBOX_OF;

    static {
        try {
            INBOX_OF = MethodHandles.publicLookup()
                    .findVirtual(StepContext.class, "inbox", MethodType.methodType(Inbox.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final BeanFactory beanFactory;
    private final String beanName;
    private final Method method;
    private final List<Parameter> parameters;
    private final @Nullable Type stateType;
    private final String description;
    private volatile @Nullable MethodHandle handle;

    private MethodInvoker(BeanFactory beanFactory, String beanName, Method method, List<Parameter> parameters,
            @Nullable Type stateType, String description) {
        this.beanFactory = beanFactory;
        this.beanName = beanName;
        this.method = method;
        this.parameters = parameters;
        this.stateType = stateType;
        this.description = description;
    }

    /**
     * Inspects {@code method} of the bean {@code beanName} (of class {@code userClass}).
     *
     * @param errorHandler whether the method is an {@code @OnError} method (it may take an exception)
     * @throws MachineDefinitionException naming the bean and method if its signature is not supported
     */
    static MethodInvoker inspect(BeanFactory beanFactory, String beanName, Class<?> userClass, Method method,
            boolean errorHandler) {
        String annotation = errorHandler ? "@OnError" : "@Step";
        String description = describe(method) + " of bean '" + beanName + "'";
        String problem = annotation + " method " + description;
        int modifiers = method.getModifiers();
        if (Modifier.isStatic(modifiers) || Modifier.isPrivate(modifiers)) {
            throw new MachineDefinitionException(problem + " must be neither static nor private");
        }
        if (!Outcome.class.isAssignableFrom(method.getReturnType())) {
            throw new MachineDefinitionException(problem + " returns " + method.getReturnType().getSimpleName()
                    + "; it must return " + Outcome.class.getName());
        }
        Class<?>[] types = method.getParameterTypes();
        Parameter[] kinds = new Parameter[types.length];
        Type state = null;
        for (int i = 0; i < types.length; i++) {
            Class<?> type = types[i];
            Parameter kind;
            if (type == StepContext.class) {
                kind = Parameter.CONTEXT;
            } else if (type == Inbox.class) {
                kind = Parameter.INBOX;
            } else if (Throwable.class.isAssignableFrom(type)) {
                if (!errorHandler) {
                    throw new MachineDefinitionException(problem + " takes a " + type.getSimpleName()
                            + "; only @OnError methods receive exceptions");
                }
                if (type != Throwable.class && !Exception.class.isAssignableFrom(type)) {
                    throw new MachineDefinitionException(problem + " takes a " + type.getSimpleName()
                            + "; errors are not handed to @OnError methods (they are treated like a crash), so"
                            + " declare an Exception type or Throwable");
                }
                kind = Parameter.ERROR;
            } else if (type.isPrimitive()) {
                throw new MachineDefinitionException(problem + " takes a " + type.getName()
                        + " state; a state must be an object type (a record, a class, a boxed value)");
            } else {
                kind = Parameter.STATE;
                state = GenericTypeResolver.resolveType(method.getGenericParameterTypes()[i], userClass);
            }
            for (int j = 0; j < i; j++) {
                if (kinds[j] == kind) {
                    throw new MachineDefinitionException(problem + " has two " + name(kind) + " parameters ("
                            + types[j].getSimpleName() + " and " + type.getSimpleName() + "); supported are, each at"
                            + " most once: the state, StepContext, Inbox" + (errorHandler ? " and the exception" : ""));
                }
            }
            kinds[i] = kind;
        }
        return new MethodInvoker(beanFactory, beanName, method, List.of(kinds), state, description);
    }

    /** The type of the state parameter, {@code null} if the method takes none. */
    @Nullable Type stateType() {
        return stateType;
    }

    /** The exception type the method takes: {@code Exception} if it takes none. */
    @SuppressWarnings("unchecked")
    Class<? extends Throwable> errorType() {
        for (int i = 0; i < parameters.size(); i++) {
            if (parameters.get(i) == Parameter.ERROR) {
                return (Class<? extends Throwable>) method.getParameterTypes()[i];
            }
        }
        return Exception.class;
    }

    /** {@code com.example.Checkout.start(State, StepContext) of bean 'checkout'}. */
    String description() {
        return description;
    }

    Method method() {
        return method;
    }

    /** Calls the method. */
    Outcome invoke(@Nullable Exception error, @Nullable Object state, StepContext context) throws Exception {
        MethodHandle target = handle;
        if (target == null) {
            target = bind();
        }
        try {
            return (Outcome) target.invokeExact(error, state, context);
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new UndeclaredThrowableException(t);
        }
    }

    /**
     * Looks the bean up and builds the handle; called at startup so that a bean whose method cannot be called
     * (e.g. a JDK proxy that does not expose it) fails the start, not the first step.
     */
    MethodHandle bind() {
        MethodHandle bound = handle;
        if (bound != null) {
            return bound;
        }
        Object bean = beanFactory.getBean(beanName);
        Method invocable;
        try {
            invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        } catch (IllegalStateException e) {
            throw new MachineDefinitionException("Cannot call " + description + " on the bean (a "
                    + bean.getClass().getName() + "): " + e.getMessage());
        }
        ReflectionUtils.makeAccessible(invocable);
        try {
            bound = adapt(MethodHandles.lookup().unreflect(invocable).bindTo(bean));
        } catch (IllegalAccessException e) {
            throw new MachineDefinitionException("Cannot call " + description + ": " + e.getMessage());
        }
        handle = bound;
        return bound;
    }

    /** Turns {@code (p1..pn) -> R} into {@code (Exception error, Object state, StepContext ctx) -> Outcome}. */
    private MethodHandle adapt(MethodHandle target) {
        Class<?>[] sources = new Class<?>[parameters.size()];
        int[] reorder = new int[parameters.size()];
        for (int i = 0; i < sources.length; i++) {
            Parameter kind = parameters.get(i);
            sources[i] = switch (kind) {
                case STATE -> Object.class;
                case CONTEXT -> StepContext.class;
                case INBOX -> Inbox.class;
                case ERROR -> Exception.class;
            };
            reorder[i] = switch (kind) {
                case ERROR -> 0;
                case STATE -> 1;
                case CONTEXT, INBOX -> 2;
            };
        }
        MethodHandle adapted = target.asType(MethodType.methodType(Outcome.class, sources));
        for (int i = 0; i < sources.length; i++) {
            if (parameters.get(i) == Parameter.INBOX) {
                adapted = MethodHandles.filterArguments(adapted, i, INBOX_OF);
            }
        }
        return MethodHandles.permuteArguments(adapted, ADAPTED, reorder);
    }

    private static String name(Parameter kind) {
        return switch (kind) {
            case STATE -> "state";
            case CONTEXT -> "StepContext";
            case INBOX -> "Inbox";
            case ERROR -> "exception";
        };
    }

    private static String describe(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName() + "("
                + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", "))
                + ")";
    }

    @Override
    public String toString() {
        return description;
    }
}
