package dev.durable.firstrelease;

import dev.durable.firstrelease.order.OrderWorkflow;
import dev.durable.sample.SampleProperties;
import dev.durable.sample.order.Carrier;
import dev.durable.sample.order.Warehouse;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/**
 * The sample's first release as an application: the starter and the actuator, the sample's {@code application.yml},
 * its warehouse and carrier, and the order workflow of version 1. Not the REST API: the test places its orders through
 * the {@code DurableClient}, as that release's controller did.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableConfigurationProperties(SampleProperties.class)
@Import({Warehouse.class, Carrier.class, OrderWorkflow.class})
public class FirstRelease {

    public static ConfigurableApplicationContext start(String... args) {
        return new SpringApplicationBuilder(FirstRelease.class).run(args);
    }
}
