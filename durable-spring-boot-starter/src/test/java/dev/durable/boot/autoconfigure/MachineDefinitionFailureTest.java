package dev.durable.boot.autoconfigure;

import static dev.durable.boot.autoconfigure.AutoConfigurationRunner.assertStartupFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durable.machine.MachineDefinitionException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * An invalid {@code @DurableMachine} bean fails the start, naming the beans and methods involved, and a failure
 * analysis reports it without a stack trace.
 */
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
    void aBadCronExpressionOrZoneOfADeclaredScheduleFailsStartupNamingTheValue() {
        runner.withUserConfiguration(TestMachines.BadCron.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        TestMachines.BadCron.class.getName(), "cron = \"every night at two\"",
                        "Cron expression 'every night at two' of schedule 'nightly' is invalid"));
        runner.withUserConfiguration(TestMachines.BadZone.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        TestMachines.BadZone.class.getName(), "Zone 'Europe/Atlantis' of schedule 'nightly'"));
    }

    @Test
    void stepReturningVoidFailsStartupNamingTheMethod() {
        runner.withUserConfiguration(TestMachines.VoidStep.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        TestMachines.VoidStep.class.getName(), "@Step greet(Name name)",
                        "returns void; it must return dev.durable.Outcome"));
    }

    /** Checked at startup with the application's JsonMapper, not at the first step of the first instance. */
    @Test
    void aStateTypeTheApplicationsJsonMapperCannotReadFailsStartupNamingTheBeanAndType() {
        runner.withUserConfiguration(TestMachines.UnreadableState.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "Machine shapes v1", TestMachines.UnreadableState.class.getName(),
                        "stores states of type " + TestMachines.Shape.class.getName(),
                        "which its JSON codec cannot read"));
    }

    @Test
    void stepTakingTwoStatesFailsStartupNamingTheMethod() {
        runner.withUserConfiguration(TestMachines.TwoStates.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        TestMachines.TwoStates.class.getName(), "@Step greet(Name name, String other)",
                        "parameter String other (index 1)", "a second state: Name name (index 0) is the state"));
    }

    @Test
    void privateStepFailsStartupNamingTheMethod() {
        runner.withUserConfiguration(TestMachines.PrivateStep.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        TestMachines.PrivateStep.class.getName(), "@Step greet(Name name)", "the method is private",
                        "Make it neither private nor static"));
    }

    @Test
    void stepTakingAnExceptionFailsStartup() {
        runner.withUserConfiguration(TestMachines.ExceptionInStep.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "@Step greet(Name name, Exception error)", "parameter Exception error (index 1)",
                        "only @OnError methods receive exceptions"));
    }

    @Test
    void methodsDisagreeingOnTheStateTypeFailStartupNamingBoth() {
        runner.withUserConfiguration(TestMachines.DisagreeingStates.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "disagree on the state type", "@Step first(Name name)", "@Step second(String name)"));
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
                        "declares two initial steps", "@Step a(Name name)", "@Step b(Name name)"));
    }

    @Test
    void twoErrorHandlersForOneExceptionTypeFailStartupNamingBoth() {
        runner.withUserConfiguration(TestMachines.TwoHandlersForOneType.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "two @OnError methods for java.lang.IllegalStateException",
                        "@OnError first(IllegalStateException e)",
                        "@OnError second(IllegalStateException e, Name name)"));
    }

    @Test
    void analysisOfABadParameterNamesTheBeanTheMethodTheParameterAndWhatIsAllowed() {
        runner.withUserConfiguration(TestMachines.ExtraParameter.class).run(context -> {
            FailureAnalysis analysis = new MachineDefinitionFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription())
                    .contains("Bean: 'testMachines.ExtraParameter' (" + TestMachines.ExtraParameter.class.getName()
                            + ")")
                    .contains("Method: @Step one(String s, int extra)")
                    .contains("Parameter: int extra (index 1)")
                    .contains("Reason: durable has no int to pass: the state is String s (index 0), and besides it"
                            + " durable passes only StepContext and Inbox")
                    .doesNotContain("int state");
            assertThat(analysis.getAction()).isEqualTo(MethodInvoker.STEP_SIGNATURE + ".");
        });
    }

    @Test
    void analysisOfAnEngineDefinitionErrorGivesItsMessage() {
        runner.withUserConfiguration(TestMachines.Greeter.class, TestMachines.OtherGreeter.class).run(context -> {
            FailureAnalysis analysis = new MachineDefinitionFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("Reason: Machine greeter v1 is defined twice")
                    .contains(TestMachines.OtherGreeter.class.getName());
            assertThat(analysis.getAction()).contains("@DurableMachine, @Step and @OnError");
        });
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void anApplicationWithABadStepSignatureFailsToStartWithTheAnalysisInsteadOfAStackTrace(CapturedOutput output) {
        SpringApplication application = new SpringApplication(BadMachineApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setBannerMode(Banner.Mode.OFF);
        List<String> arguments = new ArrayList<>();
        for (String property : TestDatabase.properties()) {
            arguments.add("--" + property);
        }
        // The test logging configuration silences failure reports; this application is here to print one.
        arguments.add("--logging.level.org.springframework.boot.diagnostics=ERROR");

        assertThatThrownBy(() -> application.run(arguments.toArray(String[]::new)))
                .hasRootCauseInstanceOf(InvalidMachineBeanException.class);
        assertThat(output.getAll())
                .contains("APPLICATION FAILED TO START")
                .contains("Invalid durable machine definition.")
                .contains("Method: @Step one(String s, int extra)")
                .contains("Parameter: int extra (index 1)")
                .contains("Action:" + System.lineSeparator() + System.lineSeparator() + MethodInvoker.STEP_SIGNATURE)
                .doesNotContain("Application run failed");
    }

    /** An application holding a machine with a bad step signature, and only durable's auto-configuration. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({DataSourceAutoConfiguration.class, JacksonAutoConfiguration.class,
            DurableAutoConfiguration.class})
    @Import(TestMachines.ExtraParameter.class)
    static class BadMachineApplication {
    }
}
