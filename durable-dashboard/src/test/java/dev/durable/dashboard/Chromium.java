package dev.durable.dashboard;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A real headless Chromium for the browser tests: Debian's {@code chromium} and {@code chromedriver} (or those
 * {@code DURABLE_TEST_CHROMIUM} and {@code DURABLE_TEST_CHROMEDRIVER} name), named explicitly so that Selenium never
 * looks for or downloads a browser or a driver of its own. Without them the tests are skipped, saying what to
 * install; CI installs them (.ci/run).
 */
final class Chromium implements AutoCloseable {

    private final ChromeDriver driver;
    private final Path profile;

    private Chromium(ChromeDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    /** A fresh browser with a profile of its own, or the test skipped when there is none to run. */
    static Chromium start() {
        String browser = locate("DURABLE_TEST_CHROMIUM", "/usr/bin/chromium");
        String chromedriver = locate("DURABLE_TEST_CHROMEDRIVER", "/usr/bin/chromedriver");
        String missing = Stream.of(browser, chromedriver).filter(file -> !Files.isExecutable(Path.of(file)))
                .collect(Collectors.joining(" nor "));
        assumeTrue(missing.isEmpty(),
                "No Chromium to run the dashboard's browser tests: found no executable " + missing
                        + "; install Debian's chromium and chromium-driver"
                        + " (apt-get install chromium chromium-driver), or name them in DURABLE_TEST_CHROMIUM and"
                        + " DURABLE_TEST_CHROMEDRIVER");
        try {
            Path profile = Files.createTempDirectory("durable-chromium");
            ChromeOptions options = new ChromeOptions();
            options.setBinary(browser);
            options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--window-size=1400,1000", "--user-data-dir=" + profile);
            ChromeDriverService service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(new File(chromedriver))
                    .usingAnyFreePort()
                    .build();
            ChromeDriver driver = new ChromeDriver(service, options);
            driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
            return new Chromium(driver, profile);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String locate(String variable, String otherwise) {
        String named = System.getenv(variable);
        return named == null || named.isBlank() ? otherwise : named;
    }

    ChromeDriver driver() {
        return driver;
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                // A profile left in the temporary directory harms nothing.
            }
        }
    }
}
