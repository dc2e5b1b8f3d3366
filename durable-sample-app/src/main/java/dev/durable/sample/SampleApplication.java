package dev.durable.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.ApplicationPidFileWriter;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** The sample: an order workflow behind a small REST API, on an embedded PostgreSQL unless one is configured. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication application = new SpringApplication(SampleApplication.class);
        // The crash demo kills this JVM, which under spring-boot:run is a child of Maven (killing Maven leaves it
        // running): its pid goes to spring.pid.file, for `kill -9 $(cat durable-sample-app/.data/sample.pid)`.
        application.addListeners(new ApplicationPidFileWriter());
        application.run(args);
    }
}
