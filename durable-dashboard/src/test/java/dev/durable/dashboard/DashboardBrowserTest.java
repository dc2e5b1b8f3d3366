package dev.durable.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.HistoryEntry;
import dev.durable.Schedule;
import dev.durable.dashboard.app.Parcels;
import dev.durable.dashboard.app.Parcels.Parcel;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real headless Chromium (docs/DESIGN.md, "Dashboard"): the overview's counts and targets, a
 * search and an instance's timeline with its patches, a retry from the failed list that runs the instance again, and
 * the machine's diagram, drawn by its library, whose counts follow an instance that moves without the page
 * reloading. Each test leaves a screenshot of its page in target/dashboard-screenshots.
 */
class DashboardBrowserTest extends BrowserTest {

    @Test
    void theOverviewShowsAQueuesCountsByStatusAndReason() {
        parked("o1");
        parked("o2");
        failed("o3");
        checkedUntilPastTheStepTarget(2);

        open("/");

        String row = "tr[data-queue='" + Parcels.QUEUE + "'] ";
        waitForText(row + "td[data-status='awaiting_signal']", "2");
        waitForText(row + "td[data-status='failed']", "1");
        waitForText(row + "td[data-reason='signal']", "2");
        // The ended statuses are not counted on every refresh (a read of the whole table); the page says so.
        assertThat(browser().executeScript("return document.querySelectorAll(\"td[data-status='done']\").length"))
                .isEqualTo(0L);
        assertThat(text("#search-ended")).isEqualTo("search them");
        assertThat(text("#node")).contains("is running");
        assertThat(text("#nodes td[data-state]")).isEqualTo("running");
        // Three transitions of each parked parcel, two of the failed one, all in the window.
        new WebDriverWait(browser(), WAIT).until(driver -> "8".equals(browser().executeScript(
                "return document.getElementById('throughput').dataset.total")));
        assertThat(text("tr[data-machine='parcel']")).contains("await-pickup, deliver, label, pack");
        String target = "tr[data-target='parcel at await-pickup: time at step 0.001s'] ";
        waitForText(target + "td[data-breaching]", "2");
        assertThat(text("tr[data-target='queue parcels: oldest runnable age 1h']")).contains("60 min");
        screenshot("overview");

        // Its link lists the instances past the target, oldest first.
        click(target + "a[data-breaching-search]");
        new WebDriverWait(browser(), WAIT).until(driver -> String.valueOf(
                browser().executeScript("return document.body.dataset.loaded")).contains("waitingLongerThan"));
        waitFor("#results tbody tr");
        assertThat(browser().executeScript("return document.querySelectorAll('#results tbody tr').length"))
                .isEqualTo(2L);
        assertThat(browser().executeScript("return document.querySelector(\"form#search input"
                + "[name='waitingLongerThan']\").value")).isEqualTo("PT0.001S");
    }

    @Test
    void aSearchFindsAFailedInstanceWhoseDetailShowsItsTimelineAndError() {
        parked("s1");
        long broken = failed("s2");

        open("/instances");
        new Select(waitFor("form#search select[name='status']")).selectByValue("failed");
        waitFor("form#search input[name='machine']").sendKeys("parcel");
        waitFor("form#search button[type='submit']").click();

        new WebDriverWait(browser(), WAIT).until(driver -> "#/instances?machine=parcel&status=failed".equals(
                browser().executeScript("return document.body.dataset.loaded")));
        waitFor("#results tr[data-row='" + broken + "']");
        assertThat(browser().executeScript("return document.querySelectorAll('#results tbody tr').length"))
                .isEqualTo(1L);
        screenshot("search");
        click("#results a[data-instance='" + broken + "']");

        waitFor("#history li");
        // Read in one script: the page draws itself again every refresh interval.
        assertThat(browser().executeScript("return [...document.querySelectorAll('#history li')]"
                + ".map(item => item.dataset.event)")).isEqualTo(List.of("next", "stop"));
        assertThat(text("#last-error")).contains("the label printer jammed on s2");
        assertThat(text("td[data-field='status']")).isEqualTo("failed");
        screenshot("instance");
    }

    @Test
    void anInstancesTimelineShowsThePatchOfEachTransitionThatChangedItsState() {
        long id = parked("t1");

        open("/instance/" + id);

        waitFor("#history li[data-event='await']");
        // pack hands the parcel on unchanged (no patch); label writes its label; the await changes nothing.
        assertThat(browser().executeScript("return [...document.querySelectorAll('#history li')].map(item => {"
                + " const patch = item.querySelector('pre.patch'); return patch ? patch.innerText.trim() : null })"))
                .isEqualTo(Arrays.asList(null, "add /label \"LBL-t1\"", null));
        // A patch cut at its size limit says so, as the history stores it (the marker last).
        assertThat(browser().executeScript("return patchView([{op: 'replace', path: '/lines/0', value: 2},"
                + " {op: 'cut', bytes: 20000, operations: 300}], 'patch').innerText.trim()"))
                .isEqualTo("replace /lines/0 2\n… cut at the size limit: the whole patch had 300 operations,"
                        + " 20000 bytes");
        screenshot("timeline");
    }

    @Test
    void aScheduleIsPausedAndResumedFromTheOverview() {
        durable.schedule(Parcels.class, Schedule.cron("nightly", "0 0 3 * * *"), new Parcel("n"));

        open("/");
        waitFor("button[data-pause='nightly']");
        click("button[data-pause='nightly']");

        waitForText("#notice-info", "Pause: paused");
        assertThat(durable.findSchedule("nightly").orElseThrow().paused()).isTrue();
        waitForText("tr[data-schedule='nightly'] td[data-paused]", "paused");
        click("button[data-resume='nightly']");
        waitForText("#notice-info", "Resume: resumed");
        assertThat(durable.findSchedule("nightly").orElseThrow().paused()).isFalse();
        waitFor("button[data-pause='nightly']");
    }

    @Test
    void aRetryFromTheFailedListRunsTheInstanceAgain() {
        long broken = failed("r1");
        Parcels.broken.clear();

        open("/failed");
        waitFor("button[data-retry='" + broken + "']");
        click("button[data-retry='" + broken + "']");

        waitFor("#notice-info");
        assertThat(text("#notice-info")).isEqualTo("Retry: retried");
        await().atMost(WAIT).until(() -> DashboardDatabase.DATABASE.status(broken).equals("awaiting_signal"));
        waitFor("#none-failed");
    }

    @Test
    void aFailedInstanceIsRerunFromAChosenStepWithAnEditedStateAndRunsOn() {
        long broken = failed("jammed");

        open("/instance/" + broken);
        waitFor("#rerun-step");
        assertThat(browser().executeScript("return document.getElementById('rerun-state').value"))
                .isEqualTo("{\"name\": \"jammed\"}");
        browser().executeScript("document.getElementById('rerun-step').value = 'label';"
                + " document.getElementById('rerun-state').value = '{\"name\":\"fixed\"}'");
        click("#rerun");

        waitForText("#notice-info", "Rerun: rerun");
        await().atMost(WAIT).until(() -> DashboardDatabase.DATABASE.status(broken).equals("awaiting_signal"));
        // The edited state, and the label its rerun step wrote into it.
        assertThat(durable.find(broken).orElseThrow().stateJson())
                .isEqualTo("{\"name\": \"fixed\", \"label\": \"LBL-fixed\"}");
        assertThat(durable.history(broken)).filteredOn(entry -> entry.event() == HistoryEntry.Event.RERUN)
                .singleElement().satisfies(entry -> {
                    assertThat(entry.step()).isEqualTo("label");
                    assertThat(entry.nextStep()).isEqualTo("label");
                    assertThat(entry.error()).isEqualTo("rerun from step 'label' by anonymous, state edited");
                });
        waitForText("td[data-field='status']", "awaiting_signal");
        assertThat(browser().executeScript("return [...document.querySelectorAll('#history li')]"
                + ".map(item => item.dataset.event)")).isEqualTo(List.of("next", "stop", "rerun", "next", "await"));
        screenshot("rerun");
    }

    @Test
    void theDiagramShowsEachStepsCountAndTrafficAndFollowsAnInstanceWithoutReloading() {
        parked("d1");
        long moving = parked("d2");

        open("/machine/parcel?minutes=5");
        waitFor("#diagram[data-nodes]");
        new WebDriverWait(browser(), WAIT).until(driver -> "2".equals(String.valueOf(
                browser().executeScript("return JSON.parse(document.getElementById('diagram').dataset.nodes"
                        + " || '{}')['await-pickup']"))));
        // Drawn by the library, on its canvas: a node per step, an edge per transition taken, labelled with counts.
        assertThat(browser().findElements(By.cssSelector("#diagram canvas"))).isNotEmpty();
        assertThat(browser().executeScript("return diagram.cy.nodes().map(n => n.id()).sort()"))
                .isEqualTo(List.of("await-pickup", "deliver", "label", "pack"));
        assertThat(browser().executeScript("return diagram.cy.getElementById('pack->label').data('label')"))
                .isEqualTo("2");
        assertThat(browser().executeScript("return diagram.cy.getElementById('await-pickup').data('label')"))
                .isEqualTo("await-pickup\n2 now");
        screenshot("machine");
        browser().executeScript("window.durableSamePage = true");

        durable.signal(moving, "pickup", null, null).orThrow();

        new WebDriverWait(browser(), WAIT).until(driver -> Long.valueOf(1).equals(browser().executeScript(
                "const edge = diagram.cy.getElementById('await-pickup->deliver');"
                        + " return edge.length ? edge.data('count') : 0")));
        new WebDriverWait(browser(), WAIT).until(driver -> "await-pickup\n1 now".equals(browser().executeScript(
                "return diagram.cy.getElementById('await-pickup').data('label')")));
        new WebDriverWait(browser(), WAIT).until(driver -> Long.valueOf(1).equals(browser().executeScript(
                "const edge = diagram.cy.getElementById('deliver->(done)');"
                        + " return edge.length ? edge.data('count') : 0")));
        // The same page all along: no reload.
        assertThat(browser().executeScript("return window.durableSamePage === true")).isEqualTo(true);
        assertThat(browser().executeScript("return JSON.parse(document.getElementById('diagram').dataset.edges)"))
                .isInstanceOf(Map.class);
    }
}
