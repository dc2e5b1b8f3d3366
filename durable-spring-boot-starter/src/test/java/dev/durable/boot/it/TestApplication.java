package dev.durable.boot.it;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** The application of the starter's integration tests: the machines, a service, the starter, web and actuator. */
@SpringBootApplication
public class TestApplication {

    /** The gate the blocking machines' steps wait at. */
    @Bean
    StepGate stepGate() {
        return new StepGate();
    }
}
