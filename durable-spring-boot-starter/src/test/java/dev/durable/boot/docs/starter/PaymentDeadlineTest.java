package dev.durable.boot.docs.starter;

import static dev.durable.test.DurableAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.HistoryEntry.Event;
import dev.durable.boot.docs.starter.Shop.Order;
import dev.durable.boot.test.DurableTest;
import dev.durable.jdbc.DurableSchema;
import dev.durable.test.DurableTestEngine;
import dev.durable.test.postgres.TestPostgres;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter README, section "Testing your machines": its test, run as written by the build on the test database. A
 * 24-hour deadline passes in about a second of wall time, in a cold JVM whose first statements these are (the kit's
 * own tests, DurableTestEngineTest, hold each of theirs under a second).
 */
@SpringBootTest(properties = "durable.schema=payment_deadline_test")
@DurableTest
class PaymentDeadlineTest {

    private static final String SCHEMA = "payment_deadline_test";

    /** The application: the README's machine, and the queue it names. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(PaymentDeadline.class)
    static class Application {
    }

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry properties) {
        TestPostgres postgres = TestPostgres.get();
        properties.add("spring.datasource.url", postgres::jdbcUrl);
        properties.add("spring.datasource.username", postgres::username);
        properties.add("spring.datasource.password", postgres::password);
        properties.add("durable.queues.orders.concurrency", () -> "2");
        // Behind a transaction pooler the schema is installed over a direct connection, as an application would.
        properties.add("durable.initialize-schema", () -> "false");
    }

    @BeforeAll
    static void installTheSchema() {
        DurableSchema.named(SCHEMA).migrate(TestPostgres.get().directDataSource());
    }

    @Autowired
    DurableTestEngine durable;

    private long started;

    @BeforeEach
    void startTheClock() {
        started = System.nanoTime();
    }

    @Test
    void anUnpaidOrderIsStoppedAfterTwentyFourHours() {
        long id = durable.client().start(PaymentDeadline.class, new Order(7, "SKU-42", null, null)).id();
        durable.runDue();
        assertThat(durable.instance(id)).waitsFor("payment", durable.instance(id).deadline());

        durable.advance(Duration.ofHours(24));

        assertThat(durable.instance(id)).isFailed().isAt("cancel");
        assertThat(durable.instance(id)).hasHistory(Event.AWAIT, Event.NEXT, Event.STOP);
    }

    @AfterEach
    void tookAboutASecondNotADay() {
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
    }
}
