package dev.durable.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.durable.Inbox;
import dev.durable.Outcome;
import dev.durable.StepContext;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/** What {@link MethodInvoker} says of a signature it cannot call: the parameter to blame, why, and what is allowed. */
class MethodInvokerTest {

    record State(String name) {
    }

    /** Signatures, good and bad; only inspected, never called. */
    @SuppressWarnings("unused")
    static class Signatures {
        Outcome extraInt(String s, int extra) {
            return Outcome.done();
        }

        Outcome primitiveState(int count, StepContext ctx) {
            return Outcome.done();
        }

        Outcome twoStates(State state, String other) {
            return Outcome.done();
        }

        Outcome twoContexts(StepContext first, State state, StepContext second) {
            return Outcome.done();
        }

        Outcome exception(State state, Exception error) {
            return Outcome.done();
        }

        Outcome error(StackOverflowError error, State state) {
            return Outcome.done();
        }

        Outcome handlerWithExtraLong(Exception error, State state, long extra) {
            return Outcome.done();
        }

        void returnsNothing(State state) {
        }

        static Outcome isStatic(State state) {
            return Outcome.done();
        }

        Outcome fine(Inbox inbox, State state, StepContext ctx) {
            return Outcome.done();
        }
    }

    @Test
    void anExtraPrimitiveBesidesTheStateIsBlamedAsSuchNotAsAState() {
        InvalidMachineBeanException invalid = invalidStep("extraInt");
        assertThat(invalid.parameter()).isEqualTo("int extra (index 1)");
        assertThat(invalid.reason()).isEqualTo("durable has no int to pass: the state is String s (index 0), and"
                + " besides it durable passes only StepContext and Inbox");
        assertThat(invalid.getMessage()).doesNotContain("int state")
                .contains("bean 'signatures' (" + Signatures.class.getName() + ")")
                .contains("@Step extraInt(String s, int extra)");
        assertThat(invalid.action()).isEqualTo(MethodInvoker.STEP_SIGNATURE + ".");
    }

    @Test
    void aPrimitiveThatWouldBeTheStateIsBlamedForBeingPrimitive() {
        InvalidMachineBeanException invalid = invalidStep("primitiveState");
        assertThat(invalid.parameter()).isEqualTo("int count (index 0)");
        assertThat(invalid.reason()).isEqualTo("a primitive int cannot be the state: a state is an object (a record,"
                + " a class, or a boxed value such as Integer)");
    }

    @Test
    void aSecondStateIsBlamedNamingTheFirst() {
        InvalidMachineBeanException invalid = invalidStep("twoStates");
        assertThat(invalid.parameter()).isEqualTo("String other (index 1)");
        assertThat(invalid.reason()).isEqualTo("it would be a second state: State state (index 0) is the state"
                + " already, and besides the state durable passes only StepContext and Inbox");
    }

    @Test
    void aSecondStepContextIsBlamedNamingTheFirst() {
        InvalidMachineBeanException invalid = invalidStep("twoContexts");
        assertThat(invalid.parameter()).isEqualTo("StepContext second (index 2)");
        assertThat(invalid.reason())
                .isEqualTo("it would be a second StepContext: StepContext first (index 0) is the StepContext already");
    }

    @Test
    void anExceptionInAStepIsBlamedAndSentToOnError() {
        InvalidMachineBeanException invalid = invalidStep("exception");
        assertThat(invalid.parameter()).isEqualTo("Exception error (index 1)");
        assertThat(invalid.reason()).contains("only @OnError methods receive exceptions");
        assertThat(invalid.action()).startsWith("Handle the exception in an @OnError method of the machine.");
    }

    @Test
    void anErrorInAnErrorHandlerIsBlamedWithWhatToDeclareInstead() {
        InvalidMachineBeanException invalid = invalidHandler("error");
        assertThat(invalid.methods()).containsExactly("@OnError error(StackOverflowError error, State state)");
        assertThat(invalid.parameter()).isEqualTo("StackOverflowError error (index 0)");
        assertThat(invalid.reason()).contains("is an Error").contains("treated like a crash");
        assertThat(invalid.action()).isEqualTo("Declare an Exception type, or Throwable. "
                + MethodInvoker.ON_ERROR_SIGNATURE + ".");
    }

    @Test
    void anErrorHandlersExtraPrimitiveIsBlamedWithWhatAHandlerTakes() {
        InvalidMachineBeanException invalid = invalidHandler("handlerWithExtraLong");
        assertThat(invalid.parameter()).isEqualTo("long extra (index 2)");
        assertThat(invalid.reason()).isEqualTo("durable has no long to pass: the state is State state (index 1), and"
                + " besides it durable passes only the exception, StepContext and Inbox");
        assertThat(invalid.action()).isEqualTo(MethodInvoker.ON_ERROR_SIGNATURE + ".");
    }

    @Test
    void aWrongReturnTypeOrModifierBlamesTheMethodNotAParameter() {
        InvalidMachineBeanException returnsNothing = invalidStep("returnsNothing");
        assertThat(returnsNothing.parameter()).isNull();
        assertThat(returnsNothing.reason()).isEqualTo("the method returns void; it must return dev.durable.Outcome");
        InvalidMachineBeanException isStatic = invalidStep("isStatic");
        assertThat(isStatic.parameter()).isNull();
        assertThat(isStatic.reason()).isEqualTo("the method is static, and durable calls it on the bean");
    }

    @Test
    void aSupportedSignatureIsAccepted() {
        MethodInvoker invoker = MethodInvoker.inspect(new DefaultListableBeanFactory(), "signatures",
                Signatures.class, method("fine"), false);
        assertThat(invoker.stateType()).isEqualTo(State.class);
        assertThat(invoker.annotated()).isEqualTo("@Step fine(Inbox inbox, State state, StepContext ctx)");
    }

    private static InvalidMachineBeanException invalidStep(String name) {
        return invalid(name, false);
    }

    private static InvalidMachineBeanException invalidHandler(String name) {
        return invalid(name, true);
    }

    private static InvalidMachineBeanException invalid(String name, boolean errorHandler) {
        InvalidMachineBeanException invalid = catchThrowableOfType(InvalidMachineBeanException.class,
                () -> MethodInvoker.inspect(new DefaultListableBeanFactory(), "signatures", Signatures.class,
                        method(name), errorHandler));
        assertThat(invalid).as("the failure of %s", name).isNotNull();
        assertThat(invalid.bean()).isEqualTo("'signatures' (" + Signatures.class.getName() + ")");
        return invalid;
    }

    private static Method method(String name) {
        return Arrays.stream(Signatures.class.getDeclaredMethods()).filter(m -> m.getName().equals(name))
                .findFirst().orElseThrow();
    }
}
