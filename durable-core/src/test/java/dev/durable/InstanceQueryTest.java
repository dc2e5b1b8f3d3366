package dev.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A query is an immutable filter checked as it is built: a bad criterion fails at once, naming the problem, before
 * anything is read or written. Searching with queries is tested against PostgreSQL in {@code InstanceSearchTest}.
 */
class InstanceQueryTest {

    private static final Instant MONDAY = Instant.parse("2026-11-23T00:00:00Z");
    private static final Instant TUESDAY = Instant.parse("2026-11-24T00:00:00Z");

    @Test
    void aChainKeepsEveryCriterionItSetsAndLeavesTheOriginalAsItWas() {
        InstanceQuery all = InstanceQuery.all();
        InstanceQuery query = all.queue("orders").machine("order").version(2).step("ship")
                .statuses(List.of(InstanceStatus.FAILED, InstanceStatus.CANCELLED)).uniqueKey("order:42")
                .correlationKey("customer:7").createdFrom(MONDAY).createdBefore(TUESDAY).updatedFrom(MONDAY)
                .updatedBefore(TUESDAY).errorContains("carrier").afterId(17).limit(50).newestFirst();

        assertThat(query.queue()).isEqualTo("orders");
        assertThat(query.machine()).isEqualTo("order");
        assertThat(query.version()).isEqualTo(2);
        assertThat(query.step()).isEqualTo("ship");
        assertThat(query.statuses()).containsExactly(InstanceStatus.FAILED, InstanceStatus.CANCELLED);
        assertThat(query.uniqueKey()).isEqualTo("order:42");
        assertThat(query.correlationKey()).isEqualTo("customer:7");
        assertThat(query.createdFrom()).isEqualTo(MONDAY);
        assertThat(query.createdBefore()).isEqualTo(TUESDAY);
        assertThat(query.updatedFrom()).isEqualTo(MONDAY);
        assertThat(query.updatedBefore()).isEqualTo(TUESDAY);
        assertThat(query.errorContains()).isEqualTo("carrier");
        assertThat(query.afterId()).isEqualTo(17);
        assertThat(query.limit()).isEqualTo(50);
        assertThat(query.order()).isEqualTo(InstanceQuery.Order.NEWEST_FIRST);

        assertThat(all.statuses()).isEmpty();
        assertThat(all.limit()).isEqualTo(InstanceQuery.DEFAULT_LIMIT);
        assertThat(all.order()).isEqualTo(InstanceQuery.Order.OLDEST_FIRST);
        assertThat(all.machine()).isNull();
    }

    @Test
    void queriesWithTheSameCriteriaAreEqualWhateverTheOrderTheyWereSetIn() {
        assertThat(InstanceQuery.all().machine("order").status(InstanceStatus.FAILED))
                .isEqualTo(InstanceQuery.all().status(InstanceStatus.FAILED).machine("order"))
                .hasSameHashCodeAs(InstanceQuery.all().status(InstanceStatus.FAILED).machine("order"))
                .isNotEqualTo(InstanceQuery.all().machine("order"));
        assertThat(InstanceQuery.all().status(InstanceStatus.DONE).status(null)).isEqualTo(InstanceQuery.all());
        assertThat(InstanceQuery.all().statuses(EnumSet.of(InstanceStatus.DONE)).toString())
                .contains("statuses=[done]");
    }

    @Test
    void aPageLargerThanTheLimitIsRefusedNamingTheLimit() {
        assertThatThrownBy(() -> InstanceQuery.all().limit(InstanceQuery.MAX_LIMIT + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("limit must be between 1 and 10000, was 10001");
        assertThatThrownBy(() -> InstanceQuery.all().limit(0))
                .hasMessage("limit must be between 1 and 10000, was 0");
        assertThat(InstanceQuery.all().limit(InstanceQuery.MAX_LIMIT).limit()).isEqualTo(10_000);
    }

    /** Statuses spelled outside Java read through InstanceStatus.fromLabel, which names the labels there are. */
    @Test
    void anUnknownStatusIsRefusedNamingItAndTheStatusesThereAre() {
        assertThatThrownBy(() -> InstanceQuery.all().status(InstanceStatus.fromLabel("stuck")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Unknown instance status 'stuck'; statuses are runnable, executing, awaiting_signal,"
                        + " suspended, done, failed, cancelled");
        assertThatThrownBy(() -> InstanceQuery.all().statuses(List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Name at least one status, or none at all with status(null) for any");
    }

    @Test
    void otherBadCriteriaAreRefusedNamingThem() {
        assertThatThrownBy(() -> InstanceQuery.all().createdFrom(TUESDAY).createdBefore(MONDAY))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("createdFrom (2026-11-24T00:00:00Z) must be before createdBefore (2026-11-23T00:00:00Z):"
                        + " no instance is created in between");
        assertThatThrownBy(() -> InstanceQuery.all().updatedFrom(MONDAY).updatedBefore(MONDAY))
                .hasMessageStartingWith("updatedFrom (2026-11-23T00:00:00Z) must be before updatedBefore");
        assertThatThrownBy(() -> InstanceQuery.all().afterId(-1))
                .hasMessage("afterId must not be negative, was -1 (0 reads from the first page)");
        assertThatThrownBy(() -> InstanceQuery.all().uniqueKey("order\u000042"))
                .hasMessage("uniqueKey holds a NUL character (\\u0000) at index 5, which no stored value can hold");
        assertThatThrownBy(() -> InstanceQuery.all().errorContains("\u0000"))
                .hasMessageStartingWith("errorContains holds a NUL character");
        assertThatThrownBy(() -> InstanceQuery.all().waitingLongerThan(Duration.ofSeconds(-1)))
                .hasMessage("waitingLongerThan must not be negative, was PT-1S");
    }

    /** A target's breaches are a query like any other, paged and refused as one (docs/DESIGN.md, "Targets"). */
    @Test
    void aTargetsBreachesAreAQueryAndABadTargetIsRefusedNamingWhatIsWrong() {
        Duration day = Duration.ofHours(24);
        assertThat(Target.timeAtStep("order", "await-payment", day).breaching())
                .isEqualTo(InstanceQuery.all().machine("order").step("await-payment").waitingLongerThan(day));
        assertThat(Target.oldestRunnableAge("orders", Duration.ofSeconds(30)).breaching())
                .isEqualTo(InstanceQuery.all().queue("orders").status(InstanceStatus.RUNNABLE)
                        .waitingLongerThan(Duration.ofSeconds(30)));
        assertThat(Target.timeAtStep("order", "await-payment", day).describe())
                .isEqualTo("order at await-payment: time at step 24h");
        // The same criteria as a search's filters, in a URL query's form, each value encoded.
        assertThat(Target.timeAtStep("order", "await payment&more", day).breachingFilters())
                .isEqualTo("machine=order&step=await+payment%26more&waitingLongerThan=PT24H");
        assertThat(Target.oldestRunnableAge("orders", Duration.ofMillis(1500)).breachingFilters())
                .isEqualTo("queue=orders&status=runnable&waitingLongerThan=PT1.5S");

        assertThatThrownBy(() -> Target.oldestRunnableAge("orders", Duration.ZERO))
                .hasMessage("The limit of a target must be positive, was PT0S");
        assertThatThrownBy(() -> Target.timeAtStep("order", " ", day))
                .hasMessage("A target names its step, was ' '");
        assertThatThrownBy(() -> new Target(Target.Kind.TIME_AT_STEP, "orders", "order",
                "ship", day)).hasMessage("A time-at-step target names a machine and a step, not a queue");
    }
}
