package dev.durable.boot.autoconfigure;

import dev.durable.Inbox;
import dev.durable.Outcome;
import dev.durable.StepContext;
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
import org.springframework.util.ClassUtils;
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
    private final Class<?> userClass;
    private final Method method;
    private final String annotated;
    private final List<Parameter> parameters;
    private final @Nullable Type stateType;
    private final String description;
    private volatile @Nullable MethodHandle handle;

    private MethodInvoker(BeanFactory beanFactory, String beanName, Class<?> userClass, Method method,
            String annotated, List<Parameter> parameters, @Nullable Type stateType, String description) {
        this.beanFactory = beanFactory;
        this.beanName = beanName;
        this.userClass = userClass;
        this.method = method;
        this.annotated = annotated;
        this.parameters = parameters;
        this.stateType = stateType;
        this.description = description;
    }

    /** What a {@code @Step} method may look like, as failures say it. */
    static final String STEP_SIGNATURE = "A @Step method returns " + Outcome.class.getName() + " and takes, in any"
            + " order and each at most once: the state (an object: a record, a class, a boxed value), StepContext"
            + " and Inbox";

    /** What an {@code @OnError} method may look like, as failures say it. */
    static final String ON_ERROR_SIGNATURE = "An @OnError method returns " + Outcome.class.getName() + " and takes,"
            + " in any order and each at most once: the exception (an Exception type, or Throwable), the state,"
            + " StepContext and Inbox";

    /**
     * Inspects {@code method} of the bean {@code beanName} (of class {@code userClass}).
     *
     * @param errorHandler whether the method is an {@code @OnError} method (it may take an exception)
     * @throws InvalidMachineBeanException naming the bean, the method and, if one is to blame, the parameter, if
     *                                     the method's signature is not supported
     */
    static MethodInvoker inspect(BeanFactory beanFactory, String beanName, Class<?> userClass, Method method,
            boolean errorHandler) {
        String annotation = errorHandler ? "@OnError" : "@Step";
        String description = describe(method) + " of bean '" + beanName + "'";
        String where = InvalidMachineBeanException.method(annotation, method);
        String allowed = (errorHandler ? ON_ERROR_SIGNATURE : STEP_SIGNATURE) + ".";
        int modifiers = method.getModifiers();
        if (Modifier.isStatic(modifiers) || Modifier.isPrivate(modifiers)) {
            throw InvalidMachineBeanException.methods(beanName, userClass, List.of(where), "the method is "
                    + (Modifier.isStatic(modifiers) ? "static" : "private") + ", and durable calls it on the bean",
                    "Make it neither private nor static (package-private, protected or public).");
        }
        if (!Outcome.class.isAssignableFrom(method.getReturnType())) {
            throw InvalidMachineBeanException.methods(beanName, userClass, List.of(where), "the method returns "
                    + method.getReturnType().getSimpleName() + "; it must return " + Outcome.class.getName(),
                    "Return an Outcome: next, retry, await, done or stop. " + allowed);
        }
        Class<?>[] types = method.getParameterTypes();
        Parameter[] kinds = new Parameter[types.length];
        Type state = null;
        for (int i = 0; i < types.length; i++) {
            Class<?> type = types[i];
            Parameter kind = kind(type);
            if (kind == Parameter.ERROR && !errorHandler) {
                throw InvalidMachineBeanException.parameter(beanName, userClass, where, method, i, "the parameter"
                        + " is an exception, and only @OnError methods receive exceptions", "Handle the exception in"
                        + " an @OnError method of the machine. " + allowed);
            }
            if (kind == Parameter.ERROR && type != Throwable.class && !Exception.class.isAssignableFrom(type)) {
                throw InvalidMachineBeanException.parameter(beanName, userClass, where, method, i, "the parameter"
                        + " is an Error, and errors are never handed to @OnError methods (a step that dies of one is"
                        + " treated like a crash)", "Declare an Exception type, or Throwable. " + allowed);
            }
            if (type.isPrimitive()) {
                throw InvalidMachineBeanException.parameter(beanName, userClass, where, method, i,
                        primitive(method, i, errorHandler), allowed);
            }
            for (int j = 0; j < i; j++) {
                if (kinds[j] == kind) {
                    throw InvalidMachineBeanException.parameter(beanName, userClass, where, method, i,
                            "it would be a second " + name(kind) + ": "
                                    + InvalidMachineBeanException.parameter(method, j) + " is the " + name(kind)
                                    + " already" + (kind == Parameter.STATE ? ", and besides the state durable passes"
                                    + " only " + others(errorHandler) : ""),
                            allowed);
                }
            }
            if (kind == Parameter.STATE) {
                state = GenericTypeResolver.resolveType(method.getGenericParameterTypes()[i], userClass);
            }
            kinds[i] = kind;
        }
        return new MethodInvoker(beanFactory, beanName, userClass, method, where, List.of(kinds), state,
                description);
    }

    /** What a parameter of this type would receive; primitives count as the state (and are refused as such). */
    private static Parameter kind(Class<?> type) {
        if (type == StepContext.class) {
            return Parameter.CONTEXT;
        }
        if (type == Inbox.class) {
            return Parameter.INBOX;
        }
        return Throwable.class.isAssignableFrom(type) ? Parameter.ERROR : Parameter.STATE;
    }

    /**
     * Why the primitive parameter {@code index} cannot be: if another parameter is the state, that nothing else is
     * passed (the primitive is not a state candidate the user meant); otherwise that a state is an object.
     */
    private static String primitive(Method method, int index, boolean errorHandler) {
        Class<?>[] types = method.getParameterTypes();
        String type = types[index].getName();
        for (int i = 0; i < types.length; i++) {
            if (i != index && !types[i].isPrimitive() && kind(types[i]) == Parameter.STATE) {
                return "durable has no " + type + " to pass: the state is "
                        + InvalidMachineBeanException.parameter(method, i) + ", and besides it durable passes only "
                        + others(errorHandler);
            }
        }
        return "a primitive " + type + " cannot be the state: a state is an object (a record, a class, or a boxed value such"
                + " as " + ClassUtils.resolvePrimitiveIfNecessary(types[index]).getSimpleName() + ")";
    }

    private static String others(boolean errorHandler) {
        return errorHandler ? "the exception, StepContext and Inbox" : "StepContext and Inbox";
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

    /** {@code @Step start(Order order, StepContext ctx)}: the method as failures name it, with the bean's class. */
    String annotated() {
        return annotated;
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
        bound = adapt(onBean(beanFactory, beanName, userClass, method, annotated));
        handle = bound;
        return bound;
    }

    /**
     * A handle on {@code method} bound to the bean {@code beanName} (looked up now), through the bean's proxy if it has
     * one; for the methods durable calls on machine beans ({@code annotated} names the method in failures).
     *
     * @throws InvalidMachineBeanException if the method cannot be called on the bean
     */
    static MethodHandle onBean(BeanFactory beanFactory, String beanName, Class<?> userClass, Method method,
            String annotated) {
        Object bean = beanFactory.getBean(beanName);
        Method invocable;
        try {
            invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        } catch (IllegalStateException e) {
            throw InvalidMachineBeanException.methods(beanName, userClass, List.of(annotated), "durable cannot call"
                    + " the method on the bean, a " + bean.getClass().getName() + ": " + e.getMessage(), "Make the"
                    + " method callable on the bean: declare it on an interface the bean's proxy implements, or have"
                    + " Spring proxy the class (proxyTargetClass = true).");
        }
        ReflectionUtils.makeAccessible(invocable);
        try {
            return MethodHandles.lookup().unreflect(invocable).bindTo(bean);
        } catch (IllegalAccessException e) {
            throw InvalidMachineBeanException.methods(beanName, userClass, List.of(annotated), "durable cannot call"
                    + " the method: " + e.getMessage(), "Make the method accessible (neither private nor static).");
        }
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
