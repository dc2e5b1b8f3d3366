package dev.durable.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.springframework.aot.hint.predicate.RuntimeHintsPredicates.reflection;
import static org.springframework.aot.hint.predicate.RuntimeHintsPredicates.resource;

import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.StepContext;
import dev.durable.boot.DurableMachine;
import dev.durable.boot.OnError;
import dev.durable.boot.Step;
import dev.durable.boot.Upcast;
import dev.durable.jdbc.DurableSchema;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.annotation.RegisterReflectionForBinding;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.javapoet.ClassName;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import tools.jackson.databind.node.ObjectNode;

/**
 * The hints a native image of an application using durable needs, checked with Spring's
 * {@code RuntimeHintsPredicates} on an application context processed ahead of time, as
 * {@code spring-boot:process-aot} processes one (docs/COMPATIBILITY.md, "AOT and native images").
 */
class DurableAotHintsTest {

    @Test
    void everyStepErrorAndUpcastMethodOfEveryMachineMayBeInvoked() {
        RuntimeHints hints = processAheadOfTime(Shop.class);

        assertThat(reflection().onType(Checkout.class)).accepts(hints);
        for (String method : List.of("reserve", "pay", "ship", "onError", "onTimeout")) {
            assertThat(reflection().onMethodInvocation(Checkout.class, method)).as(method).accepts(hints);
        }
        assertThat(reflection().onMethodInvocation(CheckoutSteps.class, "ship")).as("a step declared by a superclass")
                .accepts(hints);
        assertThat(reflection().onMethodInvocation(Refunds.class, "refund")).as("every machine").accepts(hints);
        assertThat(reflection().onMethodInvocation(Refunds.class, "fromCents")).as("an upcaster").accepts(hints);
        assertThat(reflection().onMethodInvocation(Checkout.class, "helper")).as("not a step").rejects(hints);
    }

    @Test
    void theStateTypeAndWhatItIsMadeOfMayBeBound() throws NoSuchMethodException {
        RuntimeHints hints = processAheadOfTime(Shop.class);

        assertThat(reflection().onConstructorInvocation(Cart.class.getDeclaredConstructor(String.class, List.class)))
                .accepts(hints);
        assertThat(reflection().onMethodInvocation(Cart.class, "customer")).accepts(hints);
        assertThat(reflection().onMethodInvocation(Cart.class, "lines")).accepts(hints);
        assertThat(reflection().onMethodInvocation(Line.class, "sku")).as("an element of a list in the state")
                .accepts(hints);
        assertThat(reflection().onMethodInvocation(RefundState.class, "getAmountCents")).as("a bean's getter")
                .accepts(hints);
    }

    @Test
    void signalPayloadsAndResultsTheMachineDeclaresMayBeBound() {
        RuntimeHints hints = processAheadOfTime(Shop.class);

        assertThat(reflection().onMethodInvocation(Payment.class, "amountCents")).accepts(hints);
        assertThat(reflection().onMethodInvocation(Receipt.class, "tracking")).accepts(hints);
    }

    @Test
    void theSchemaFilesMayBeReadFromTheClassPath() {
        RuntimeHints hints = processAheadOfTime(Shop.class);

        assertThat(resource().forResource(DurableSchema.CHANGELOG)).accepts(hints);
        assertThat(DurableSchema.SQL_SCRIPTS).allSatisfy(script -> assertThat(resource().forResource(script))
                .as(script).accepts(hints));
    }

    @Test
    void whatTheEngineFindsByNameOrThroughAHandleIsDeclared() throws ReflectiveOperationException {
        RuntimeHints hints = processAheadOfTime(Shop.class);

        assertThat(reflection().onType(org.postgresql.PGStatement.class)).accepts(hints);
        assertThat(reflection().onMethodInvocation(org.postgresql.PGStatement.class.getMethod("setPrepareThreshold",
                int.class))).accepts(hints);
        assertThat(reflection().onType(liquibase.command.CommandScope.class)).accepts(hints);
        assertThat(reflection().onMethodInvocation(StepContext.class, "inbox")).accepts(hints);
        assertThat(reflection().onMethodInvocation(InstanceStatus.class, "label")).accepts(hints);
        // The starter's entries in META-INF/spring.factories, which Spring Boot instantiates by reflection.
        assertThat(reflection().onType(MachineDefinitionFailureAnalyzer.class)).accepts(hints);
        assertThat(reflection().onConstructorInvocation(
                MachineDefinitionFailureAnalyzer.class.getDeclaredConstructors()[0])).accepts(hints);
    }

    @Test
    void anInvalidMachineFailsTheBuildWithTheMessageItWouldFailTheStartWith() {
        assertThatThrownBy(() -> processAheadOfTime(InvalidShop.class))
                .hasStackTraceContaining("two initial steps");
    }

    @Test
    void machinesContributeNothingWhenDurableIsOff() {
        RuntimeHints hints = processAheadOfTime(Shop.class, "durable.enabled=false");

        assertThat(reflection().onMethodInvocation(Checkout.class, "reserve")).rejects(hints);
        assertThat(resource().forResource(DurableSchema.CHANGELOG)).as("the engine's own hints stay")
                .accepts(hints);
    }

    /** Processes {@code configuration} ahead of time, as the build's AOT step does; the hints it produced. */
    private static RuntimeHints processAheadOfTime(Class<?> configuration, String... properties) {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            TestPropertyValues.of(properties).applyTo(context);
            context.register(configuration);
            DefaultGenerationContext generation = new DefaultGenerationContext(
                    new ClassNameGenerator(ClassName.get(configuration)), new InMemoryGeneratedFiles());
            new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
            return generation.getRuntimeHints();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(DurableAutoConfiguration.class)
    @Import({Checkout.class, Refunds.class})
    static class Shop {

        @Bean
        DataSource dataSource() {
            return new SimpleDriverDataSource();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(DurableAutoConfiguration.class)
    @Import(TwoInitialSteps.class)
    static class InvalidShop {

        @Bean
        DataSource dataSource() {
            return new SimpleDriverDataSource();
        }
    }

    record Line(String sku, int quantity) {
    }

    record Cart(String customer, List<Line> lines) {
    }

    record Payment(String paymentId, long amountCents) {
    }

    record Receipt(String tracking) {
    }

    static class RefundState {

        private long amountCents;

        public long getAmountCents() {
            return amountCents;
        }

        public void setAmountCents(long amountCents) {
            this.amountCents = amountCents;
        }
    }

    static class CheckoutSteps {

        @Step("ship")
        Outcome ship(Cart cart) {
            return Outcome.done(new Receipt("TRK-" + cart.customer()));
        }
    }

    @DurableMachine(name = "checkout")
    @RegisterReflectionForBinding({Payment.class, Receipt.class})
    static class Checkout extends CheckoutSteps {

        @Step(value = "reserve", initial = true)
        Outcome reserve(Cart cart) {
            return Outcome.next("pay", cart);
        }

        @Step("pay")
        Outcome pay(Cart cart, StepContext context) {
            return context.awaited("payment").map(signal -> Outcome.next("ship", cart))
                    .orElseGet(() -> Outcome.await("payment", cart));
        }

        @OnError
        Outcome onError(IllegalStateException error, Cart cart) {
            return Outcome.stop(error.getMessage());
        }

        @OnError
        Outcome onTimeout(Exception error) {
            return Outcome.stop(helper());
        }

        String helper() {
            return "gave up";
        }
    }

    @DurableMachine(name = "refunds", version = 2)
    static class Refunds {

        @Step("refund")
        Outcome refund(RefundState state) {
            return Outcome.done(state.getAmountCents());
        }

        /** Called through a method handle like the steps, so declared for invocation like them. */
        @Upcast(fromVersion = 1)
        ObjectNode fromCents(ObjectNode stored) {
            return stored;
        }
    }

    @DurableMachine(name = "invalid")
    static class TwoInitialSteps {

        @Step(value = "one", initial = true)
        Outcome one(Cart cart) {
            return Outcome.done(null);
        }

        @Step(value = "two", initial = true)
        Outcome two(Cart cart) {
            return Outcome.done(null);
        }
    }
}
