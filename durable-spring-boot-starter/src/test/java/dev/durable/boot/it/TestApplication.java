package dev.durable.boot.it;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application of the starter's integration tests: the machines, a service, the starter, web and actuator. */
@SpringBootApplication
public class TestApplication {
}
