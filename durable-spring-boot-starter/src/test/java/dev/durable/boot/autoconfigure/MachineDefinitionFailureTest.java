package dev.durable.boot.autoconfigure;

import static dev.durable.boot.autoconfigure.AutoConfigurationRunner.assertStartupFailure;

import dev.durable.machine.MachineDefinitionException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** An invalid {@code @DurableMachine} bean fails the start, naming the beans and methods involved. */
class MachineDefinitionFailureTest {

    private final ApplicationContextRunner runner = AutoConfigurationRunner.create();

    @BeforeEach
    void cleanDatabase() {
        TestDatabase.clean();
    }

    @Test
    void duplicateNameAndVersionFailsStartupNamingBothBeans() {
        runner.withUserConfiguration(TestMachines.Greeter.class, TestMachines.OtherGreeter.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "greeter v1 is defined twice", TestMachines.Greeter.class.getName(),
                        TestMachines.OtherGreeter.class.getName()));
    }

    @Test
    void stepReturningVoidFailsStartupNamingTheMethod() {
        runner.withUserConfiguration(TestMachines.VoidStep.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "@Step method " + TestMachines.VoidStep.class.getName() + ".greet(Name)",
                        "returns void; it must return dev.durable.Outcome"));
    }

    @Test
    void stepTakingTwoStatesFailsStartupNamingTheMethod() {
        runner.withUserConfiguration(TestMachines.TwoStates.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        TestMachines.TwoStates.class.getName() + ".greet(Name, String)", "has two state parameters"));
    }

    @Test
    void privateStepFailsStartupNamingTheMethod() {
        runner.withUserConfiguration(TestMachines.PrivateStep.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        TestMachines.PrivateStep.class.getName() + ".greet(Name)",
                        "must be neither static nor private"));
    }

    @Test
    void stepTakingAnExceptionFailsStartup() {
        runner.withUserConfiguration(TestMachines.ExceptionInStep.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "greet(Name, Exception)", "only @OnError methods receive exceptions"));
    }

    @Test
    void methodsDisagreeingOnTheStateTypeFailStartupNamingBoth() {
        runner.withUserConfiguration(TestMachines.DisagreeingStates.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "disagree on the state type", "first(Name)", "second(String)"));
    }

    @Test
    void stepNameDeclaredTwiceFailsStartupNamingBothMethods() {
        runner.withUserConfiguration(TestMachines.StepTwice.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "Step 'greet' of machine twice v1 is declared twice", "greet(Name)", "greetAgain(Name)"));
    }

    @Test
    void missingInitialStepFailsStartup() {
        runner.withUserConfiguration(TestMachines.NoInitial.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "no-initial v1", "declares 2 steps but none is initial"));
    }

    @Test
    void twoInitialStepsFailStartupNamingBothMethods() {
        runner.withUserConfiguration(TestMachines.TwoInitial.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "declares two initial steps", ".a(Name)", ".b(Name)"));
    }

    @Test
    void twoErrorHandlersForOneExceptionTypeFailStartupNamingBoth() {
        runner.withUserConfiguration(TestMachines.TwoHandlersForOneType.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "two @OnError methods for java.lang.IllegalStateException", "first(IllegalStateException)",
                        "second(IllegalStateException, Name)"));
    }
}
