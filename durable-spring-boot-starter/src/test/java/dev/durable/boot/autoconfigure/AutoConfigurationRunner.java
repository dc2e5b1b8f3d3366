package dev.durable.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

/** The context runner of the auto-configuration tests: durable's auto-configurations on the test database. */
final class AutoConfigurationRunner {

    private AutoConfigurationRunner() {
    }

    static ApplicationContextRunner create() {
        return createWithout();
    }

    /** {@link #create()} without the test database's values of {@code properties}: they are left unset. */
    static ApplicationContextRunner createWithout(String... properties) {
        List<String> unset = List.of(properties);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        JacksonAutoConfiguration.class, DurableAutoConfiguration.class,
                        DurableMetricsAutoConfiguration.class, DurableHealthContributorAutoConfiguration.class,
                        DurableEndpointAutoConfiguration.class))
                .withPropertyValues(Arrays.stream(TestDatabase.properties())
                        .filter(property -> !unset.contains(property.substring(0, property.indexOf('='))))
                        .toArray(String[]::new));
    }

    /** Asserts that the context failed to start with a {@code cause} whose message holds every fragment. */
    static void assertStartupFailure(AssertableApplicationContext context, Class<? extends Throwable> cause,
            String... fragments) {
        assertThat(context).hasFailed();
        Throwable failure = context.getStartupFailure();
        Throwable found = failure;
        while (found != null && !cause.isInstance(found)) {
            found = found.getCause();
        }
        assertThat(found).as("a %s in the causes of %s", cause.getSimpleName(), failure).isNotNull();
        assertThat(found.getMessage()).contains(fragments);
    }
}
