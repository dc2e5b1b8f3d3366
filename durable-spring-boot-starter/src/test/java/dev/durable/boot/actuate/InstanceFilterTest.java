package dev.durable.boot.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The actuator's criteria read as the client's {@link InstanceQuery}: query parameters and a bulk operation's filter
 * name the same criteria, and a bad one is refused with what is allowed. The HTTP round trip is tested in
 * {@code BusinessKeysEndpointTest}.
 */
class InstanceFilterTest {

    @Test
    void aFilterReadsAsTheQueryItsCriteriaName() {
        InstanceQuery query = InstanceFilter.parse("machine=order&version=2&step=ship&status=failed"
                + "&status=cancelled&queue=orders&uniqueKey=order%3A42&correlationKey=customer%3A7"
                + "&createdFrom=2026-11-23T00:00:00Z&createdBefore=2026-11-24T00:00:00Z"
                + "&updatedFrom=2026-11-23T00:00:00Z&updatedBefore=2026-11-25T00:00:00Z"
                + "&errorContains=carrier+down&waitingLongerThan=24h&afterId=17&limit=50&order=newest_first");

        assertThat(query).isEqualTo(InstanceQuery.all().machine("order").version(2).step("ship")
                .statuses(List.of(InstanceStatus.FAILED, InstanceStatus.CANCELLED)).queue("orders")
                .uniqueKey("order:42").correlationKey("customer:7")
                .createdFrom(Instant.parse("2026-11-23T00:00:00Z")).createdBefore(Instant.parse("2026-11-24T00:00:00Z"))
                .updatedFrom(Instant.parse("2026-11-23T00:00:00Z")).updatedBefore(Instant.parse("2026-11-25T00:00:00Z"))
                .errorContains("carrier down").waitingLongerThan(java.time.Duration.ofHours(24)).afterId(17).limit(50)
                .newestFirst());
        assertThat(InstanceFilter.parse("waitingLongerThan=PT30S").waitingLongerThan())
                .isEqualTo(java.time.Duration.ofSeconds(30));
        assertThat(InstanceFilter.parse("")).isEqualTo(InstanceQuery.all());
        assertThat(InstanceFilter.parse(Map.of("status", "runnable, executing")).statuses())
                .containsExactly(InstanceStatus.RUNNABLE, InstanceStatus.EXECUTING);
    }

    /** The search's query parameters are exactly the criteria, so that a search and a filter mean the same. */
    @Test
    void theSearchTakesEveryCriterionAsAQueryParameter() {
        Method read = Arrays.stream(DurableEndpointWebExtension.class.getMethods())
                .filter(method -> method.isAnnotationPresent(ReadOperation.class)).findFirst().orElseThrow();

        assertThat(Arrays.stream(read.getParameters()).map(Parameter::getName)
                .filter(name -> !name.equals("id") && !name.equals("securityContext")))
                .containsExactlyElementsOf(InstanceFilter.CRITERIA);
    }

    @Test
    void aBadCriterionIsRefusedWithWhatIsAllowed() {
        assertRejected(() -> InstanceFilter.parse("machine=order&stauts=failed"), "Unknown filter 'stauts'",
                "filters", InstanceFilter.CRITERIA.toString());
        assertRejected(() -> InstanceFilter.parse("status=failed,stuck"), "Unknown instance status 'stuck'",
                "statuses", "[runnable, executing, awaiting_signal, suspended, done, failed, cancelled]");
        assertRejected(() -> InstanceFilter.parse("limit=10001"), "limit must be between 1 and 10000, was 10001",
                "maxLimit", "10000");
        assertRejected(() -> InstanceFilter.parse("limit=0"), "limit must be between 1 and 10000, was 0",
                "maxLimit", "10000");
        assertRejected(() -> InstanceFilter.parse("machine=a&machine=b"), "Give machine once in the filter",
                "filters", InstanceFilter.CRITERIA.toString());
        assertRejected(() -> InstanceFilter.parse("afterId=x"), "'x' is not a whole number, as afterId must be",
                "filters", InstanceFilter.CRITERIA.toString());
        assertRejected(() -> InstanceFilter.parse("version=99999999999"), "99999999999 is too large for version",
                "filters", InstanceFilter.CRITERIA.toString());
        assertRejected(() -> InstanceFilter.parse("updatedBefore=2026-11-24"),
                "'2026-11-24' is not an instant, as updatedBefore must be", "format",
                "an ISO-8601 instant, e.g. 2026-11-25T10:15:30Z");
        assertRejected(() -> InstanceFilter.parse("waitingLongerThan=a+day"),
                "'a day' is not a duration, as waitingLongerThan must be", "format",
                "a duration as a property takes it, e.g. 30s, 24h or PT24H");
        assertRejected(() -> InstanceFilter.parse("order=random"), "Unknown order 'random'", "orders",
                "[oldest_first, newest_first]");
        assertRejected(() -> InstanceFilter.parse("afterId=-5"),
                "afterId must not be negative, was -5 (0 reads from the first page)", "filters",
                InstanceFilter.CRITERIA.toString());
        assertRejected(() -> InstanceFilter.parse("errorContains=%"), "'%' in the filter is not URL-encoded text: "
                + "URLDecoder: Incomplete trailing escape (%) pattern", null, null);
    }

    private static void assertRejected(Runnable parse, String error, String allowedName, String allowed) {
        assertThatThrownBy(parse::run).isInstanceOfSatisfying(RejectedRequestException.class, rejected -> {
            Map<?, ?> body = (Map<?, ?>) rejected.response().getBody();
            assertThat(rejected.response().getStatus()).isEqualTo(400);
            assertThat(body.get("error")).isEqualTo(error);
            if (allowedName != null) {
                assertThat(String.valueOf(body.get(allowedName))).isEqualTo(allowed);
            }
        });
    }
}
