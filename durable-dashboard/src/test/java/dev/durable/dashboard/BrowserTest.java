package dev.durable.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard's tests in a real headless {@link Chromium}: one browser per class, and the ways to read the live
 * pages, which draw themselves again every refresh interval (an element found earlier may be stale, so they read and
 * click in one script each). Screenshots go to target/dashboard-screenshots.
 */
abstract class BrowserTest extends DashboardTest {

    private static Chromium chromium;

    /**
     * One browser for the class, started before its first test; before each, so that without a Chromium each test
     * is reported skipped with the reason (an assumption in a {@code @BeforeAll} would hide them all silently).
     */
    @BeforeEach
    void startBrowser() {
        if (chromium == null) {
            chromium = Chromium.start();
        }
    }

    @AfterAll
    static void stopBrowser() {
        if (chromium != null) {
            chromium.close();
            chromium = null;
        }
    }

    ChromeDriver browser() {
        return chromium.driver();
    }

    WebElement waitFor(String css) {
        return new WebDriverWait(browser(), WAIT).until(driver -> {
            List<WebElement> found = driver.findElements(By.cssSelector(css));
            return found.isEmpty() ? null : found.get(0);
        });
    }

    void waitForText(String css, String text) {
        new WebDriverWait(browser(), WAIT).until(driver -> text.equals(text(css)));
    }

    /**
     * The text of the first element {@code css} selects, read in one script: the live pages draw themselves again
     * every refresh interval, which leaves an element found earlier stale.
     */
    String text(String css) {
        waitFor(css);
        return String.valueOf(browser().executeScript(
                "const found = document.querySelector(arguments[0]); return found ? found.innerText : null", css));
    }

    /** Loads the page afresh (a new fragment alone would not) and waits until it has drawn {@code route}. */
    void open(String route) {
        browser().get("about:blank");
        browser().get(url("/#" + route));
        new WebDriverWait(browser(), WAIT).until(driver -> ("#" + route).equals(
                browser().executeScript("return document.body.dataset.loaded")));
    }

    /** Clicks in one script, so a refresh of the page between finding and clicking cannot intervene. */
    void click(String css) {
        browser().executeScript("document.querySelector(arguments[0]).click()", css);
    }

    void screenshot(String name) {
        try {
            Path directory = Path.of("target", "dashboard-screenshots");
            Files.createDirectories(directory);
            Files.write(directory.resolve(name + ".png"), browser().getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
