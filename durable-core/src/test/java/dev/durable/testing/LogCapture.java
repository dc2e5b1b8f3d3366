package dev.durable.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * A JUnit extension that records what durable logs during a test, so a test can assert what an operator would
 * read.
 *
 * <pre>{@code
 * @RegisterExtension LogCapture logs = new LogCapture();
 * assertThat(logs.at(Level.WARN)).anySatisfy(line -> assertThat(line).contains("failed"));
 * }</pre>
 */
public final class LogCapture implements BeforeEachCallback, AfterEachCallback {

    private final Logger logger = (Logger) LoggerFactory.getLogger("dev.durable");
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    @Override
    public void beforeEach(ExtensionContext context) {
        appender.list.clear();
        appender.start();
        logger.addAppender(appender);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        logger.detachAppender(appender);
        appender.stop();
    }

    /** The events logged so far at exactly {@code level}, in order. */
    public List<ILoggingEvent> events(Level level) {
        synchronized (appender) { // AppenderBase appends under this lock
            return appender.list.stream().filter(event -> event.getLevel() == level).toList();
        }
    }

    /** The formatted messages logged so far at exactly {@code level}, in order. */
    public List<String> at(Level level) {
        return events(level).stream().map(ILoggingEvent::getFormattedMessage).toList();
    }
}
