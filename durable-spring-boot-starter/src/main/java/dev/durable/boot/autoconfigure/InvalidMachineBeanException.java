package dev.durable.boot.autoconfigure;

import dev.durable.machine.MachineDefinitionException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A {@code @DurableMachine} bean cannot be made a machine: which bean, which methods and which parameter, what is
 * wrong with them and what is allowed instead. Reported by {@link MachineDefinitionFailureAnalyzer}; the message
 * says it all too, for where no failure analyzer runs.
 */
final class InvalidMachineBeanException extends MachineDefinitionException {

    private final String bean;
    private final List<String> methods;
    private final @Nullable String parameter;
    private final String reason;
    private final String action;

    private InvalidMachineBeanException(String bean, List<String> methods, @Nullable String parameter, String reason,
            String action) {
        super("Invalid @DurableMachine bean " + bean
                + (methods.isEmpty() ? "" : ", " + String.join(" and ", methods))
                + (parameter == null ? "" : ", parameter " + parameter) + ": " + reason + ". " + action);
        this.bean = bean;
        this.methods = List.copyOf(methods);
        this.parameter = parameter;
        this.reason = reason;
        this.action = action;
    }

    /** The bean as a whole is wrong. */
    static InvalidMachineBeanException bean(String beanName, @Nullable Class<?> beanClass, String reason,
            String action) {
        return new InvalidMachineBeanException(bean(beanName, beanClass), List.of(), null, reason, action);
    }

    /** One or more methods of the bean are wrong, or disagree with each other. */
    static InvalidMachineBeanException methods(String beanName, Class<?> beanClass, List<String> methods,
            String reason, String action) {
        return new InvalidMachineBeanException(bean(beanName, beanClass), methods, null, reason, action);
    }

    /** The parameter {@code index} of {@code method} is wrong. */
    static InvalidMachineBeanException parameter(String beanName, Class<?> beanClass, String method, Method target,
            int index, String reason, String action) {
        return new InvalidMachineBeanException(bean(beanName, beanClass), List.of(method),
                parameter(target, index), reason, action);
    }

    /** {@code 'checkout' (com.example.Checkout)}. */
    static String bean(String beanName, @Nullable Class<?> beanClass) {
        return "'" + beanName + "'" + (beanClass == null ? "" : " (" + beanClass.getName() + ")");
    }

    /** {@code @Step start(Order order, StepContext ctx)}: parameter names when the class was compiled with them. */
    static String method(String annotation, Method method) {
        return annotation + " " + method.getName() + Arrays.stream(method.getParameters())
                .map(InvalidMachineBeanException::typeAndName).collect(Collectors.joining(", ", "(", ")"));
    }

    /** {@code int extra (index 1)}, or {@code int (index 1)} when the class was compiled without names. */
    static String parameter(Method method, int index) {
        return typeAndName(method.getParameters()[index]) + " (index " + index + ")";
    }

    private static String typeAndName(Parameter parameter) {
        String type = parameter.getType().getSimpleName();
        return parameter.isNamePresent() ? type + " " + parameter.getName() : type;
    }

    /** The bean's name and class. */
    String bean() {
        return bean;
    }

    /** The methods involved, with their annotation; empty when the bean as a whole is wrong. */
    List<String> methods() {
        return methods;
    }

    /** The parameter that is wrong: type, name (when compiled with names) and index; {@code null} if none is. */
    @Nullable String parameter() {
        return parameter;
    }

    /** What is wrong. */
    String reason() {
        return reason;
    }

    /** What is allowed instead. */
    String action() {
        return action;
    }
}
