package dev.durable.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.durable.Schedule;
import dev.durable.dashboard.app.Parcels;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The dashboard's JSON over HTTP, as its pages read it (docs/DESIGN.md, "Dashboard"): counts that match the
 * database, the search's filters and keyset pages, one instance with its history, the machine's diagram, writes and
 * their refusals, and bad input refused naming the problem.
 */
class DashboardApiTest extends DashboardTest {


    @Test
    void theOverviewCountsAQueuesInstancesByStatusAndReason() {
        parked("a");
        parked("b");
        failed("c");

        JsonNode overview = get("/api/overview").json();
        JsonNode queue = null;
        for (JsonNode candidate : overview.get("queues")) {
            if (candidate.get("name").asString().equals(Parcels.QUEUE)) {
                queue = candidate;
            }
        }
        assertThat(queue).isNotNull();
        assertThat(queue.get("statuses").get("awaiting_signal").asLong()).isEqualTo(2);
        assertThat(queue.get("statuses").get("failed").asLong()).isEqualTo(1);
        assertThat(queue.get("waiting").get("signal").asLong()).isEqualTo(2);
        assertThat(queue.get("waiting").get("failed").asLong()).isEqualTo(1);
        assertThat(overview.get("node").get("state").asString()).isEqualTo("running");
        assertThat(overview.get("machines").get(0).get("name").asString()).isEqualTo("parcel");
    }

    @Test
    void theSearchFiltersAndPagesByKeyset() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(parked("p" + i));
        }
        long broken = failed("x");

        JsonNode first = get("/api/instances?machine=parcel&status=awaiting_signal&limit=2&order=oldest_first").json();
        assertThat(first.get("instances").valueStream().map(node -> node.get("id").asLong()))
                .containsExactly(ids.get(0), ids.get(1));
        JsonNode second = get("/api/instances?machine=parcel&status=awaiting_signal&limit=2&order=oldest_first&afterId="
                + first.get("nextAfterId").asLong()).json();
        assertThat(second.get("instances").valueStream().map(node -> node.get("id").asLong()))
                .containsExactly(ids.get(2), ids.get(3));
        JsonNode failed = get("/api/instances?status=failed&errorContains=jammed").json();
        assertThat(failed.get("instances").valueStream().map(node -> node.get("id").asLong()))
                .containsExactly(broken);
        assertThat(failed.get("nextAfterId").isNull()).isTrue();
    }

    @Test
    void badFiltersAreRefusedNamingTheProblem() {
        Answer unknown = get("/api/instances?colour=red");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.json().get("error").asString()).isEqualTo("Unknown filter 'colour'");
        Answer status = get("/api/instances?status=lost");
        assertThat(status.status()).isEqualTo(400);
        assertThat(status.json().get("error").asString()).contains("lost");
        Answer limit = get("/api/instances?limit=many");
        assertThat(limit.status()).isEqualTo(400);
        assertThat(limit.json().get("error").asString()).isEqualTo("limit must be a whole number, was 'many'");
        Answer waiting = get("/api/instances?waitingLongerThan=soon");
        assertThat(waiting.status()).isEqualTo(400);
        assertThat(waiting.json().get("error").asString())
                .isEqualTo("waitingLongerThan must be a duration such as 30s, 24h or PT24H, was 'soon'");
        assertThat(get("/api/instances/424242").status()).isEqualTo(404);
        assertThat(get("/api/machines/nothing").json().get("error").asString())
                .isEqualTo("No machine 'nothing' is registered on this node");
    }

    @Test
    void theClusterShowsEachTargetWithItsBreachesAndTheSearchOfTheInstancesPastIt() {
        long late = parked("late");
        checkedUntilPastTheStepTarget(1);

        JsonNode cluster = get("/api/cluster").json();

        assertThat(cluster.get("targetsCheckedAt").isNull()).isFalse();
        JsonNode step = target(cluster, "time_at_step");
        assertThat(step.get("description").asString()).isEqualTo("parcel at await-pickup: time at step 0.001s");
        assertThat(step.get("limitMillis").asLong()).isEqualTo(1);
        assertThat(step.get("breaching").asLong()).isEqualTo(1);
        assertThat(step.get("longestWaitMillis").asLong()).isGreaterThanOrEqualTo(1);
        String search = step.get("search").asString();
        assertThat(search).isEqualTo("machine=parcel&step=await-pickup&waitingLongerThan=PT0.001S&order=oldest_first");
        // The search the page links to finds what the check counted.
        assertThat(get("/api/instances?" + search).json().get("instances").valueStream()
                .map(instance -> instance.get("id").asLong())).containsExactly(late);
        JsonNode queue = target(cluster, "oldest_runnable_age");
        assertThat(queue.get("breaching").asLong()).isZero();
        assertThat(queue.get("longestWaitMillis").isNull()).isTrue();
        assertThat(queue.get("search").asString())
                .isEqualTo("queue=parcels&status=runnable&waitingLongerThan=PT1H&order=oldest_first");
        assertThat(get("/api/instances?" + queue.get("search").asString()).status()).isEqualTo(200);
    }

    @Test
    void theClusterListsTheNodesAndTheTransitionsPerMinuteOfAllOfThem() {
        parked("counted");

        JsonNode cluster = get("/api/cluster?minutes=15").json();

        JsonNode self = cluster.get("nodes").valueStream().filter(node -> node.get("self").asBoolean()).findFirst()
                .orElseThrow(() -> new AssertionError("This node is not among " + cluster.get("nodes")));
        assertThat(self.get("state").asString()).isEqualTo("running");
        assertThat(self.get("machines").valueStream().map(JsonNode::asString)).containsExactly("parcel v1");
        assertThat(cluster.get("history").asBoolean()).isTrue();
        // Fifteen minutes, the current one last (sixteen if a minute turned between the request and its query).
        assertThat(cluster.get("throughput").size()).isBetween(15, 16);
        // pack's next, label's next and the await: the history this test's parcel wrote, all of it.
        assertThat(cluster.get("throughput").valueStream().mapToLong(minute -> minute.get("transitions").asLong())
                .sum()).isEqualTo(3);
        Answer tooLong = get("/api/cluster?minutes=61");
        assertThat(tooLong.status()).isEqualTo(400);
        assertThat(tooLong.json().get("error").asString()).isEqualTo("minutes must be between 1 and 60, was 61");
    }

    private static JsonNode target(JsonNode cluster, String kind) {
        return cluster.get("targets").valueStream().filter(target -> target.get("kind").asString().equals(kind))
                .findFirst().orElseThrow(() -> new AssertionError("No " + kind + " target in " + cluster));
    }

    @Test
    void anInstanceShowsItsHistoryAndItsState() {
        long id = parked("detail");

        JsonNode instance = get("/api/instances/" + id).json();
        assertThat(instance.get("step").asString()).isEqualTo("await-pickup");
        assertThat(instance.get("state").asString()).contains("detail"); // show-values=always in these tests
        assertThat(instance.get("history").valueStream().map(entry -> entry.get("event").asString() + " "
                + entry.get("step").asString())).containsExactly("next pack", "next label", "await await-pickup");
    }

    @Test
    void theDiagramCountsEachStepsInstancesNowAndEachTransitionsTraffic() {
        parked("d1");
        long second = parked("d2");
        durable.signal(second, "pickup", null, null).orThrow();
        await().atMost(WAIT).until(() -> DashboardDatabase.DATABASE.status(second).equals("done"));

        JsonNode machine = get("/api/machines/parcel?minutes=5").json();
        assertThat(machine.get("nodes").valueStream().filter(node -> node.get("id").asString().equals("await-pickup"))
                .map(node -> node.get("unfinished").asLong())).containsExactly(1L);
        assertThat(machine.get("edges").valueStream().map(edge -> edge.get("id").asString() + "="
                + edge.get("count").asLong())).containsExactlyInAnyOrder("pack->label=2", "label->await-pickup=2",
                "await-pickup->await-pickup:await=2", "await-pickup->deliver=1", "deliver->(done)=1");
        assertThat(get("/api/machines/parcel?minutes=0").status()).isEqualTo(400);
    }

    @Test
    void aRetryFromTheDashboardRunsTheInstanceAgain() {
        long id = failed("retried");
        Parcels.broken.clear();

        Answer retried = post("/api/instances/" + id + "/retry", "{}", true);

        assertThat(retried.status()).isEqualTo(200);
        assertThat(retried.json().get("outcome").asString()).isEqualTo("retried");
        await().atMost(WAIT).until(() -> DashboardDatabase.DATABASE.status(id).equals("awaiting_signal"));
        Answer again = post("/api/instances/" + id + "/retry", "{}", true);
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.json().get("error").asString()).isEqualTo("Instance " + id
                + " is awaiting_signal; only a failed or suspended instance can be retried");
    }

    @Test
    void aRerunWithAStepOrStateThatDoesNotFitIsRefusedNamingTheProblemAndChangesNothing() {
        long id = failed("repair");
        int entries = durable.history(id).size();

        Answer step = post("/api/instances/" + id + "/rerun", "{\"step\":\"fly\"}", true);
        assertThat(step.status()).isEqualTo(400);
        assertThat(step.json().get("error").asString()).isEqualTo("parcel v1 has no step 'fly' (its steps:"
                + " [await-pickup, deliver, label, pack]); nothing was rerun");
        Answer notJson = post("/api/instances/" + id + "/rerun", "{\"step\":\"label\",\"state\":\"{name\"}", true);
        assertThat(notJson.status()).isEqualTo(400);
        assertThat(notJson.json().get("error").asString()).startsWith("The edited state is not JSON");
        Answer lossy = post("/api/instances/" + id + "/rerun",
                "{\"step\":\"label\",\"state\":\"{\\\"name\\\":\\\"x\\\",\\\"colour\\\":\\\"red\\\"}\"}", true);
        assertThat(lossy.status()).isEqualTo(400);
        assertThat(lossy.json().get("error").asString()).contains("colour").endsWith("nothing was rerun");
        Answer running = post("/api/instances/" + parked("busy") + "/rerun", "{\"step\":\"label\"}", true);
        assertThat(running.status()).isEqualTo(409);
        assertThat(running.json().get("error").asString()).endsWith("only an ended instance (done, failed or"
                + " cancelled) can be rerun");

        assertThat(DashboardDatabase.DATABASE.status(id)).isEqualTo("failed");
        assertThat(durable.history(id)).hasSize(entries);
    }

    @Test
    void aWriteWithoutThePagesHeaderIsRefusedAndChangesNothing() {
        long id = parked("guarded");

        Answer refused = post("/api/instances/" + id + "/cancel", "{}", false);

        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.json().get("error").asString()).contains("X-Durable-Dashboard");
        assertThat(DashboardDatabase.DATABASE.status(id)).isEqualTo("awaiting_signal");
        Answer cancelled = post("/api/instances/" + id + "/cancel", "{\"reason\":\"wrong address\"}", true);
        assertThat(cancelled.status()).isEqualTo(200);
        assertThat(DashboardDatabase.DATABASE.status(id)).isEqualTo("cancelled");
        assertThat(durable.find(id).orElseThrow().lastError()).isEqualTo("wrong address (anonymous on the dashboard)");
    }

    @Test
    void aScheduleIsPausedAndResumedAndAWriteThatChangesNothingIsRefusedNamingWhy() {
        durable.schedule(Parcels.class, Schedule.cron("nightly", "0 0 3 * * *"), new Parcels.Parcel("n"));

        assertThat(post("/api/schedules/nightly/pause", "{}", false).status()).isEqualTo(403);
        assertThat(durable.findSchedule("nightly").orElseThrow().paused()).isFalse();
        Answer paused = post("/api/schedules/nightly/pause", "{}", true);
        assertThat(paused.status()).isEqualTo(200);
        assertThat(paused.json().get("outcome").asString()).isEqualTo("paused");
        assertThat(durable.findSchedule("nightly").orElseThrow().paused()).isTrue();
        Answer again = post("/api/schedules/nightly/pause", "{}", true);
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.json().get("error").asString())
                .isEqualTo("Schedule 'nightly' is already paused; nothing was paused");

        assertThat(post("/api/schedules/nightly/resume", "{}", true).status()).isEqualTo(200);
        assertThat(durable.findSchedule("nightly").orElseThrow().paused()).isFalse();
        assertThat(post("/api/schedules/nightly/resume", "{}", true).json().get("error").asString())
                .isEqualTo("Schedule 'nightly' is not paused; nothing was resumed");
        Answer unknown = post("/api/schedules/weekly/pause", "{}", true);
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.json().get("error").asString()).isEqualTo("No schedule 'weekly'");
    }

    @Test
    void aBulkRetryRetriesThePageOfFailedInstances() {
        long first = failed("b1");
        long second = failed("b2");
        Parcels.broken.clear();

        JsonNode result = post("/api/bulk-retry", "{\"status\":\"failed\",\"machine\":\"parcel\"}", true).json();

        assertThat(result.get("changed").asInt()).isEqualTo(2);
        await().atMost(WAIT).until(() -> DashboardDatabase.DATABASE.status(first).equals("awaiting_signal")
                && DashboardDatabase.DATABASE.status(second).equals("awaiting_signal"));
    }
}
