package dev.durable.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.dashboard.secured.SecuredTestApplication;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The dashboard behind the application's Spring Security, in a real headless Chromium, as a user who may read but not
 * write (docs/DESIGN.md, "Dashboard"): the pages offer no write and say why, and a write the page's own code sends
 * anyway, with the header and the CSRF token, is refused and changes nothing. The browser logs in as HTTP Basic
 * would, by the header Chromium adds to every request (its DevTools protocol), so the page's own fetches carry it.
 */
@SpringBootTest(classes = SecuredTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"durable.dashboard.read-only=false", "durable.dashboard.write-roles=OPS_WRITE"})
@DirtiesContext
class SecuredBrowserTest extends BrowserTest {

    @AfterEach
    void logOut() {
        browser().executeCdpCommand("Network.setExtraHTTPHeaders", Map.of("headers", Map.of()));
    }

    @Test
    void aUserWithoutTheWriteRoleIsOfferedNoWriteAndAWriteSentAnywayIsRefused() {
        long id = failed("viewer-sees");
        ChromeDriver browser = logIn("viewer", "v");

        open("/failed");
        new WebDriverWait(browser, WAIT).until(driver -> Boolean.TRUE.equals(browser.executeScript(
                "const button = document.querySelector(\"button[data-retry='" + id + "']\");"
                        + " return button !== null && button.disabled")));
        assertThat(browser.executeScript("return document.querySelector(\"button[data-retry='" + id + "']\").title"))
                .isEqualTo("Writes need one of the roles [OPS_WRITE], which user 'viewer' does not have");
        assertThat(text("#session")).isEqualTo("viewer · may not write");

        // What the page's retry sends, from the page: its header and the session's CSRF token.
        Object answer = browser.executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                fetch('api/session').then(answer => answer.json()).then(session => {
                    const headers = {'Content-Type': 'application/json'};
                    headers[session.writeHeader] = '1';
                    if (session.csrf) { headers[session.csrf.header] = session.csrf.token; }
                    return fetch('api/instances/' + arguments[0] + '/retry', {method: 'POST', headers, body: '{}'});
                }).then(answer => answer.text().then(body => done(answer.status + ' ' + body)),
                        error => done(String(error)));
                """, id);
        // Refused by the dashboard for the role, not by Spring Security for the token: the body says which.
        assertThat(answer).isEqualTo("403 {\"error\":\"Writes need one of the roles [OPS_WRITE], which user"
                + " 'viewer' does not have\"}");
        assertThat(DashboardDatabase.DATABASE.status(id)).isEqualTo("failed");
    }

    /** Every request of the browser from now on carries {@code user}'s HTTP Basic credentials. */
    private ChromeDriver logIn(String user, String password) {
        ChromeDriver browser = browser();
        String credentials = Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
        browser.executeCdpCommand("Network.enable", Map.of());
        browser.executeCdpCommand("Network.setExtraHTTPHeaders",
                Map.of("headers", Map.of("Authorization", "Basic " + credentials)));
        return browser;
    }
}
