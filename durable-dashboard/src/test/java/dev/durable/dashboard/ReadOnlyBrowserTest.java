package dev.durable.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durable.Schedule;
import dev.durable.dashboard.app.DashboardTestApplication;
import dev.durable.dashboard.app.Parcels;
import dev.durable.dashboard.app.Parcels.Parcel;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The dashboard as it is by default, read-only (docs/DESIGN.md, "Dashboard"), in a real headless Chromium: the pages
 * say so and offer no write, a write sent anyway is refused with 403 naming the property, and nothing changes; and
 * states are hidden (show-values is never by default), the values of the history's patches with them.
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class ReadOnlyBrowserTest extends BrowserTest {

    @Test
    void thePagesOfferNoWriteAndAWriteSentAnywayIsRefusedChangingNothing() {
        long id = failed("ro");
        ChromeDriver browser = browser();

        open("/failed");
        new WebDriverWait(browser, WAIT).until(driver -> Boolean.TRUE.equals(browser.executeScript(
                "const button = document.querySelector(\"button[data-retry='" + id + "']\");"
                        + " return button !== null && button.disabled")));
        assertThat(browser.executeScript("return document.querySelector(\"button[data-retry='" + id + "']\").title"))
                .isEqualTo("The dashboard is read-only: set durable.dashboard.read-only=false to allow retries and"
                        + " cancels");
        assertThat(browser.executeScript("return document.getElementById('session').innerText"))
                .isEqualTo("anonymous · read-only");

        durable.schedule(Parcels.class, Schedule.cron("nightly", "0 0 3 * * *"), new Parcel("n"));
        open("/");
        new WebDriverWait(browser, WAIT).until(driver -> Boolean.TRUE.equals(browser.executeScript(
                "const button = document.querySelector(\"button[data-pause='nightly']\");"
                        + " return button !== null && button.disabled")));
        assertThat(post("/api/schedules/nightly/pause", "{}", true).status()).isEqualTo(403);
        assertThat(durable.findSchedule("nightly").orElseThrow().paused()).isFalse();

        // The same request the page would send, with its header: refused all the same.
        Answer refused = post("/api/instances/" + id + "/retry", "{}", true);
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.json().get("error").asString()).startsWith("The dashboard is read-only");
        assertThat(DashboardDatabase.DATABASE.status(id)).isEqualTo("failed");
    }

    @Test
    void aUserWhoMayNotSeeValuesGetsNoneOfThePatchesValues() {
        long id = parked("secret");

        // show-values is never here: the paths of what changed, none of its values, as the actuator shows them.
        Answer detail = get("/api/instances/" + id);
        assertThat(detail.status()).isEqualTo(200);
        assertThat(detail.json().get("state").isNull()).isTrue();
        assertThat(detail.json().get("history").valueStream().map(entry -> entry.get("patch").toString()))
                .containsExactly("null", "[{\"op\":\"add\",\"path\":\"/label\",\"value\":\"******\"}]", "null");
        assertThat(detail.body()).doesNotContain("LBL-secret");

        open("/instance/" + id);
        waitFor("#history pre.patch");
        assertThat(text("#history pre.patch").trim()).isEqualTo("add /label ******");
    }
}
