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
    void aSignalDeclaredTwiceOrWithABlankNameFailsStartupNamingTheBean() {
        runner.withUserConfiguration(TestMachines.DoubledSignal.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        TestMachines.DoubledSignal.class.getName(), "@DurableSignal(name = \"payment\") is declared"
                                + " twice, with payload " + TestMachines.Name.class.getName() + " and with payload"
                                + " java.lang.String", "Declare each signal once"));
        runner.withUserConfiguration(TestMachines.BlankSignal.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        TestMachines.BlankSignal.class.getName(), "@DurableSignal(name = \" \") is invalid",
                        "a signal name must be non-blank"));
    }

    /** Like a state type, checked at startup with the application's JsonMapper, not at the first signal. */
    @Test
    void aSignalPayloadTypeTheApplicationsJsonMapperCannotReadFailsStartupNamingTheBeanAndType() {
        runner.withUserConfiguration(TestMachines.UnreadablePayload.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "Machine unreadable-payload v1", TestMachines.UnreadablePayload.class.getName(),
                        "declares signal 'drawn' with payloads of type " + TestMachines.Shape.class.getName(),
                        "which its JSON codec cannot read"));
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

    // Upcasting (docs/DESIGN.md, "Upcasting"): the machine, its version and the methods involved are named.

    @Test
    void twoUpcastersForOneVersionFailStartupNamingBothMethods() {
        runner.withUserConfiguration(TestMachines.TwoUpcastersForOneVersion.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        TestMachines.TwoUpcastersForOneVersion.class.getName(),
                        "machine two-upcasters v3 declares two upcasters from version 2",
                        "@Upcast(fromVersion = 2) first(ObjectNode stored)",
                        "@Upcast(fromVersion = 2) second(ObjectNode stored)",
                        "Declare one @Upcast method per version"));
    }

    @Test
    void anUpcasterFromTheCurrentVersionFailsStartup() {
        runner.withUserConfiguration(TestMachines.UpcasterFromTheCurrentVersion.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "@Upcast(fromVersion = 2) fromTwo(ObjectNode stored)",
                        "machine upcast-from-current v2 declares an upcaster from version 2, but an upcaster brings a"
                                + " state of an older version to the next one",
                        "Declare upcasters from versions 1 to 1 only"));
    }

    @Test
    void upcastersWithAGapFailStartupNamingTheMissingVersion() {
        runner.withUserConfiguration(TestMachines.UpcastersWithAGap.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "machine upcast-gap v4 declares upcasters from versions [1, 3] but none from version 2",
                        "Declare an @Upcast method for each version from 1 to 3"));
    }

    @Test
    void anUpcasterThatDoesNotTakeAJsonTreeFailsStartupNamingTheParameter() {
        runner.withUserConfiguration(TestMachines.UpcasterTakingAState.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "@Upcast(fromVersion = 1) fromOne(Name stored)", "parameter Name stored (index 0)",
                        "the stored state is passed as a JSON tree, not as a Name", MethodUpcaster.SIGNATURE));
    }

    @Test
    void aFormerStepNameThatIsACurrentStepFailsStartupNamingBothMethods() {
        runner.withUserConfiguration(TestMachines.FormerNameOfACurrentStep.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "machine former-is-current v1 declares 'wave' as a former name of one step, and it is the"
                                + " name of another", "@Step greet(Name name)", "@Step wave(Name name)"));
    }

    @Test
    void aFormerStepNameDeclaredTwiceFailsStartupNamingBothMethods() {
        runner.withUserConfiguration(TestMachines.FormerNameTwice.class).run(context -> {
            assertStartupFailure(context, MachineDefinitionException.class,
                    "the former step name 'hello' is declared twice", "@Step greet(Name name)",
                    "@Step wave(Name name)");
            FailureAnalysis analysis = new MachineDefinitionFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription())
                    .contains("Bean: 'testMachines.FormerNameTwice' (" + TestMachines.FormerNameTwice.class.getName()
                            + ")")
                    .contains("Method: @Step greet(Name name)")
                    .contains("Method: @Step wave(Name name)")
                    .contains("Reason: the former step name 'hello' is declared twice");
            assertThat(analysis.getAction()).startsWith("Declare each former name once");
        });
    }

    /** Only the highest registered version upcasts; the engine's message names both beans. */
    @Test
    void upcastersOnALowerRegisteredVersionFailStartupNamingBothBeans() {
        runner.withUserConfiguration(TestMachines.UpcastingGreeter.class, TestMachines.UpcastingGreeterV2.class)
                .run(context -> assertStartupFailure(context, MachineDefinitionException.class,
                        "Machine greeter v2 (bean 'testMachines.UpcastingGreeterV2' ("
                                + TestMachines.UpcastingGreeterV2.class.getName() + ")) declares upcasters from"
                                + " versions [1], but greeter v3 (bean 'testMachines.UpcastingGreeter' ("
                                + TestMachines.UpcastingGreeter.class.getName() + ")) is registered too"));
        // Older versions without upcasters run their own rows next to it.
        runner.withUserConfiguration(TestMachines.UpcastingGreeter.class, TestMachines.GreeterV2.class,
                        TestMachines.Greeter.class)
                .run(context -> assertThat(context).hasNotFailed());
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
