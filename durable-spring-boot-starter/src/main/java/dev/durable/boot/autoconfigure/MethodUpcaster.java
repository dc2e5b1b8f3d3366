package dev.durable.boot.autoconfigure;

import dev.durable.boot.Upcast;
import dev.durable.machine.StateUpcaster;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import tools.jackson.databind.JsonNode;

/**
 * Calls one {@link Upcast @Upcast} method of a machine bean as the machine's {@link StateUpcaster} for its version
 * (docs/DESIGN.md, "Upcasting"). Like {@link MethodInvoker}: the signature is checked when the method is inspected,
 * the bean looked up and a {@link MethodHandle} built once, at startup ({@link #bind()}) or on first use; a call is a
 * plain {@code invokeExact}, and what the method throws reaches the engine as is.
 */
final class MethodUpcaster implements StateUpcaster {

    /** What an {@code @Upcast} method may look like, as failures say it. */
    static final String SIGNATURE = "An @Upcast method takes the stored state as a " + JsonNode.class.getName()
            + " (or an ObjectNode) and returns the next version's state as one";

    private static final MethodType ADAPTED = MethodType.methodType(JsonNode.class, JsonNode.class);

    private final BeanFactory beanFactory;
    private final String beanName;
    private final Class<?> userClass;
    private final Method method;
    private final String annotated;
    private final int fromVersion;
    private final Class<?> takes;
    private volatile @Nullable MethodHandle handle;

    private MethodUpcaster(BeanFactory beanFactory, String beanName, Class<?> userClass, Method method,
            String annotated, int fromVersion, Class<?> takes) {
        this.beanFactory = beanFactory;
        this.beanName = beanName;
        this.userClass = userClass;
        this.method = method;
        this.annotated = annotated;
        this.fromVersion = fromVersion;
        this.takes = takes;
    }

    /**
     * Inspects {@code method} of the bean {@code beanName} (of class {@code userClass}), annotated {@code upcast}.
     *
     * @throws InvalidMachineBeanException naming the bean, the method and, if one is to blame, the parameter, if the
     *                                     method's signature is not supported
     */
    static MethodUpcaster inspect(BeanFactory beanFactory, String beanName, Class<?> userClass, Method method,
            Upcast upcast) {
        String where = InvalidMachineBeanException.method("@Upcast(fromVersion = " + upcast.fromVersion() + ")",
                method);
        int modifiers = method.getModifiers();
        if (Modifier.isStatic(modifiers) || Modifier.isPrivate(modifiers)) {
            throw InvalidMachineBeanException.methods(beanName, userClass, List.of(where), "the method is "
                    + (Modifier.isStatic(modifiers) ? "static" : "private") + ", and durable calls it on the bean",
                    "Make it neither private nor static (package-private, protected or public).");
        }
        if (!JsonNode.class.isAssignableFrom(method.getReturnType())) {
            throw InvalidMachineBeanException.methods(beanName, userClass, List.of(where), "the method returns "
                    + method.getReturnType().getSimpleName() + "; it must return the next version's state as a JSON"
                    + " tree", SIGNATURE + ".");
        }
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length != 1) {
            throw InvalidMachineBeanException.methods(beanName, userClass, List.of(where), "the method takes "
                    + parameters.length + " parameters; it takes the stored state only", SIGNATURE + ".");
        }
        if (!JsonNode.class.isAssignableFrom(parameters[0])) {
            throw InvalidMachineBeanException.parameter(beanName, userClass, where, method, 0, "the stored state is"
                    + " passed as a JSON tree, not as a " + parameters[0].getSimpleName(), SIGNATURE + ".");
        }
        return new MethodUpcaster(beanFactory, beanName, userClass, method, where, upcast.fromVersion(),
                parameters[0]);
    }

    /** The version whose states the method brings to the next. */
    int fromVersion() {
        return fromVersion;
    }

    Method method() {
        return method;
    }

    /** {@code @Upcast(fromVersion = 1) rename(ObjectNode order)}: the method as failures name it. */
    String annotated() {
        return annotated;
    }

    @Override
    public JsonNode upcast(JsonNode stored) throws Exception {
        if (!takes.isInstance(stored)) {
            throw new IllegalArgumentException(annotated + " of bean '" + beanName + "' takes a "
                    + takes.getSimpleName() + ", but the stored state of version " + fromVersion + " is "
                    + stored.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        }
        MethodHandle target = handle;
        if (target == null) {
            target = bind();
        }
        try {
            return (JsonNode) target.invokeExact(stored);
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new UndeclaredThrowableException(t);
        }
    }

    /**
     * Looks the bean up and builds the handle; called at startup so that a method that cannot be called fails the
     * start, not the first upcast.
     */
    MethodHandle bind() {
        MethodHandle bound = handle;
        if (bound != null) {
            return bound;
        }
        bound = MethodInvoker.onBean(beanFactory, beanName, userClass, method, annotated).asType(ADAPTED);
        handle = bound;
        return bound;
    }

    @Override
    public String toString() {
        return annotated + " of bean '" + beanName + "'";
    }
}
