package dev.durable.nextrelease;

import dev.durable.nextrelease.order.OrderWorkflow;
import dev.durable.nextrelease.order.OrderWorkflowAsItIs;
import dev.durable.nextrelease.order.OrderWorkflowUpcasting;
import dev.durable.sample.SampleProperties;
import dev.durable.sample.order.Carrier;
import dev.durable.sample.order.ReserveLine;
import dev.durable.sample.order.Warehouse;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/**
 * The sample's next release as an application: the starter and the actuator, the sample's {@code application.yml},
 * its line reservations, warehouse and carrier, and one deployment of the changed order workflow. Not the REST API:
 * the walkthrough pays the orders as the webhook's controller does, through the {@code DurableClient}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableConfigurationProperties(SampleProperties.class)
@Import({Warehouse.class, Carrier.class, ReserveLine.class})
public class NextRelease {

    /**
     * Starts the next release with {@code workflow}: {@link OrderWorkflowAsItIs} or {@link OrderWorkflowUpcasting}.
     */
    public static ConfigurableApplicationContext start(Class<? extends OrderWorkflow> workflow, String... args) {
        return new SpringApplicationBuilder(NextRelease.class, workflow).run(args);
    }
}
