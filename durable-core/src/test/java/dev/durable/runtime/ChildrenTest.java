package dev.durable.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.durable.BulkResult;
import dev.durable.CancelResult;
import dev.durable.Child;
import dev.durable.DurableClient;
import dev.durable.DurableInstance;
import dev.durable.InstanceQuery;
import dev.durable.InstanceStatus;
import dev.durable.Outcome;
import dev.durable.RetryResult;
import dev.durable.StartOptions;
import dev.durable.machine.MachineDefinition;
import dev.durable.runtime.control.RetentionRepository;
import dev.durable.testing.EngineFixture;
import dev.durable.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Child instances (docs/DESIGN.md, "Children"): a step starts them with its outcome, and the parent waits for all or
 * any of them and reads what became of each; an invalid child takes the step's error path with nothing written;
 * cancelling a parent cancels its unfinished children; retention keeps the children an unfinished parent may still
 * read. The races of a child's end with its parent's park, and a fenced outcome's children, are forced in
 * {@link ChildrenRaceTest}.
 */
class ChildrenTest {

    /** One order line: packed when "go" arrives, or out of stock. */
    record Line(String sku, boolean outOfStock) {
    }

    /** An order of lines, each a child. */
    record Order(List<String> skus) {
    }

    @RegisterExtension
    final EngineFixture engines = new EngineFixture();

    /** What each run of the parent's join step saw: "ended/started: id=status:result ...". */
    private final List<String> joins = new CopyOnWriteArrayList<>();

    private static MachineDefinition lines() {
        return MachineDefinition.builder("line", 1, Line.class)
                .initialStep("pack")
                .step("pack", (line, ctx) -> ctx.awaited("go").isEmpty() ? Outcome.await("go", line)
                        : line.outOfStock() ? Outcome.stop("out of stock: " + line.sku())
                        : Outcome.done("packed " + line.sku()))
                .build();
    }

    /** split: starts one line per sku ("!" marks one out of stock) and awaits them with {@code join}. */
    private MachineDefinition orders(Outcome.Join join) {
        return MachineDefinition.builder("order", 1, Order.class)
                .initialStep("split")
                .step("split", (order, ctx) -> {
                    if (ctx.childrenStarted() == 0) {
                        return Outcome.awaitChildren(order, join).startingChildren(order.skus().stream()
                                .map(sku -> Child.of("line", new Line(sku.replace("!", ""), sku.endsWith("!"))))
                                .toList());
                    }
                    List<DurableInstance> children = ctx.children();
                    joins.add(ctx.childrenEnded() + "/" + ctx.childrenStarted() + ": " + describe(children));
                    if (join == Outcome.Join.ANY && ctx.childrenEnded() < ctx.childrenStarted()) {
                        return Outcome.awaitChildren(order, join);
                    }
                    return Outcome.done(children.stream().map(DurableInstance::status).map(InstanceStatus::label)
                            .collect(Collectors.joining(",")));
                })
                .build();
    }

    private static String describe(List<DurableInstance> children) {
        return children.stream().map(child -> child.status().label()
                        + (child.resultJson() == null ? "" : ":" + child.result(String.class)))
                .collect(Collectors.joining(" "));
    }

    @Test
    void aStepStartsItsChildrenAndTheParentWakesOnceWhenTheLastHasEnded_seeingEachStatusAndResult() {
        DurableClient client = engines.start(orders(Outcome.Join.ALL), lines()).client();
        long order = client.start("order", new Order(List.of("book", "pen!", "ink"))).id();
        List<Long> children = awaitChildren(order, 3);

        assertThat(children).allSatisfy(child -> {
            Map<String, Object> row = TestDatabase.row(child);
            assertThat(row).containsEntry("parent_id", order).containsEntry("cancel_with_parent", true);
        });
        assertThat(TestDatabase.row(order)).containsEntry("status", "awaiting_signal")
                .containsEntry("children_started", 3).containsEntry("awaits_children", 3);

        client.signal(children.get(0), "go", null).orThrow();
        client.signal(children.get(1), "go", null).orThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.row(order).get("children_ended").equals(2));
        assertThat(TestDatabase.status(order)).isEqualTo("awaiting_signal");
        assertThat(joins).isEmpty();

        client.signal(children.get(2), "go", null).orThrow();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(order).equals("done"));
        assertThat(joins).containsExactly("3/3: done:packed book failed done:packed ink");
        assertThat(client.find(order).orElseThrow().result(String.class)).isEqualTo("done,failed,done");
        assertThat(client.find(children.get(1)).orElseThrow().parentId()).isEqualTo(order);
        assertThat(client.children(order)).extracting(DurableInstance::id).containsExactlyElementsOf(children);
        assertThat(client.children(children.get(0))).isEmpty();
        // A page at a time, in the order they were started, as the dashboard reads them.
        assertThat(client.children(order, 0, 2)).extracting(DurableInstance::id)
                .containsExactlyElementsOf(children.subList(0, 2));
        assertThat(client.children(order, children.get(1), 2)).extracting(DurableInstance::id)
                .containsExactly(children.get(2));
        assertThatThrownBy(() -> client.children(order, 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("A children page holds 1 to 10000 entries, not 0");
    }

    @Test
    void aJoinOnAnyWakesOncePerNewlyEndedChild_neverForOneTheStepHasSeen() {
        DurableClient client = engines.start(orders(Outcome.Join.ANY), lines()).client();
        long order = client.start("order", new Order(List.of("a", "b"))).id();
        List<Long> children = awaitChildren(order, 2);

        client.signal(children.get(1), "go", null).orThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> joins.size() == 1);
        // The step saw one ended child and awaits any again: it stays parked until another one ends.
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(order).equals("awaiting_signal"));
        assertThat(TestDatabase.row(order)).containsEntry("awaits_children", 2).containsEntry("children_ended", 1);

        client.signal(children.get(0), "go", null).orThrow();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(order).equals("done"));
        assertThat(joins).containsExactly("1/2: awaiting_signal done:packed b", "2/2: done:packed a done:packed b");
    }

    @Test
    void awaitingChildrenWhenNoneIsUnfinishedRunsTheStepAgainAtOnce() {
        List<String> seen = new CopyOnWriteArrayList<>();
        MachineDefinition lonely = MachineDefinition.builder("lonely", 1, Order.class)
                .initialStep("wait")
                .step("wait", (order, ctx) -> {
                    seen.add(ctx.attempt() + ":" + ctx.childrenStarted() + ":" + ctx.timedOut());
                    return seen.size() == 1 ? Outcome.awaitChildren(order) : Outcome.done();
                })
                .build();
        DurableClient client = engines.start(lonely).client();

        long id = client.start("lonely", new Order(List.of())).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(id).equals("done"));
        assertThat(seen).containsExactly("0:0:false", "0:0:false");
    }

    @Test
    void aChildOfAnUnregisteredMachineOrOfTheWrongStateTypeTakesTheErrorPathAndNoChildIsWritten() {
        MachineDefinition parent = MachineDefinition.builder("parent", 1, Order.class)
                .initialStep("spawn")
                .step("spawn", (order, ctx) -> Outcome.awaitChildren(order).startingChildren(
                        Child.of("line", new Line("ok", false)),
                        order.skus().contains("typo") ? Child.of("lien", new Line("x", false))
                                : Child.of("line", "not a line")))
                .build();
        DurableClient client = engines.start(parent, lines()).client();

        long typo = client.start("parent", new Order(List.of("typo"))).id();
        long wrongState = client.start("parent", new Order(List.of("wrong"))).id();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(typo).equals("failed")
                && TestDatabase.status(wrongState).equals("failed"));
        assertThat((String) TestDatabase.row(typo).get("last_error"))
                .contains("Step 'spawn' of parent v1 (instance " + typo + ") starts a child that this node cannot "
                        + "start: No machine named 'lien' is registered");
        assertThat((String) TestDatabase.row(wrongState).get("last_error"))
                .contains("starts a child that cannot be stored: Machine line v1 stores states of type")
                .contains("not java.lang.String");
        assertThat(TestDatabase.jdbc().queryForObject("SELECT count(*) FROM " + TestDatabase.SCHEMA
                + ".durable_instance WHERE parent_id IS NOT NULL OR machine = 'line'", Long.class)).isZero();
        assertThat(TestDatabase.row(typo)).containsEntry("children_started", 0);
    }

    @Test
    void aChildWhoseUniqueKeyIsHeldIsNotStartedAndNotCounted() {
        MachineDefinition parent = MachineDefinition.builder("parent", 1, Order.class)
                .initialStep("spawn")
                .step("spawn", (order, ctx) -> ctx.childrenStarted() > 0 ? Outcome.done(ctx.children().size())
                        : Outcome.awaitChildren(order).startingChildren(order.skus().stream()
                                .map(sku -> Child.of("line", new Line(sku, false))
                                        .options(StartOptions.defaults().uniqueKey("line:" + sku)))
                                .toList()))
                .build();
        DurableClient client = engines.start(parent, lines()).client();
        long holder = client.start("line", new Line("pen", false), StartOptions.defaults().uniqueKey("line:pen"))
                .id();

        long order = client.start("parent", new Order(List.of("pen", "ink"))).id();

        List<Long> children = awaitChildren(order, 1);
        assertThat(TestDatabase.row(order)).containsEntry("children_started", 1);
        assertThat(TestDatabase.row(children.get(0))).containsEntry("unique_key", "line:ink");
        assertThat(TestDatabase.row(holder)).containsEntry("parent_id", null);
        client.signal(children.get(0), "go", null).orThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(order).equals("done"));
    }

    @Test
    void cancellingAParentCancelsItsUnfinishedChildrenAndTheirs_butNotTheOnesThatOutliveIt() {
        // root -> [mid (which starts [leaf]), keeper (cancelledWithParent false), done-line]
        MachineDefinition tree = MachineDefinition.builder("tree", 1, Order.class)
                .initialStep("grow")
                .step("grow", (node, ctx) -> {
                    if (node.skus().isEmpty()) {
                        return Outcome.await("never", node);
                    }
                    return Outcome.awaitChildren(node).startingChildren(
                            Child.of("tree", new Order(List.of())),
                            Child.of("line", new Line("keeper", false)).cancelledWithParent(false),
                            Child.of("line", new Line("quick", false)));
                })
                .build();
        DurableEngine engine = engines.start(tree, lines());
        DurableClient client = engine.client();
        long root = client.start("tree", new Order(List.of("grow"))).id();
        List<Long> children = awaitChildren(root, 3);
        long mid = children.get(0);
        long keeper = children.get(1);
        long quick = children.get(2);
        client.signal(quick, "go", null).orThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(quick).equals("done")
                && TestDatabase.status(mid).equals("awaiting_signal"));
        long leaf = client.start("line", new Line("leaf", false)).id();
        // A grandchild, as a step of mid would have started it.
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance SET parent_id = ?,"
                + " cancel_with_parent = true WHERE id = ?", mid, leaf);
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(leaf).equals("awaiting_signal"));

        CancelResult result = client.cancel(root, "order withdrawn");

        assertThat(result.outcome()).isEqualTo(CancelResult.Cancellation.CANCELLED);
        assertThat(Map.of("root", TestDatabase.status(root), "mid", TestDatabase.status(mid),
                "leaf", TestDatabase.status(leaf), "keeper", TestDatabase.status(keeper),
                "quick", TestDatabase.status(quick)))
                .isEqualTo(Map.of("root", "cancelled", "mid", "cancelled", "leaf", "cancelled",
                        "keeper", "awaiting_signal", "quick", "done"));
        assertThat(TestDatabase.row(leaf)).containsEntry("last_error", "order withdrawn");
        assertThat(engine.stats().cancelsApplied()).isOne();
        // The keeper lives on, and its end is still counted at its (cancelled) parent.
        client.signal(keeper, "go", null).orThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(keeper).equals("done"));
        assertThat(TestDatabase.row(root)).containsEntry("children_ended", 3).containsEntry("status", "cancelled");
    }

    @Test
    void cancellingAChildWakesAParentWaitingForAllOfThem_whichSeesItCancelled() {
        DurableClient client = engines.start(orders(Outcome.Join.ALL), lines()).client();
        long order = client.start("order", new Order(List.of("a", "b"))).id();
        List<Long> children = awaitChildren(order, 2);
        client.signal(children.get(0), "go", null).orThrow();

        client.cancel(children.get(1), "discontinued").orThrow();

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(order).equals("done"));
        assertThat(joins).containsExactly("2/2: done:packed a cancelled");
    }

    @Test
    void anOperatorRetryOfAFailedChildMakesItsParentWaitForItAgain() {
        DurableClient client = engines.start(orders(Outcome.Join.ALL), lines()).client();
        long order = client.start("order", new Order(List.of("a!", "b"))).id();
        List<Long> children = awaitChildren(order, 2);
        client.signal(children.get(0), "go", null).orThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(children.get(0)).equals("failed"));
        assertThat(TestDatabase.row(order)).containsEntry("children_ended", 1);

        assertThat(client.retryFailed(children.get(0)).outcome()).isEqualTo(RetryResult.Retry.RETRIED);
        assertThat(TestDatabase.row(order)).containsEntry("children_ended", 0);
        client.signal(children.get(1), "go", null).orThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(children.get(1)).equals("done"));
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(children.get(0))
                .equals("awaiting_signal"));
        assertThat(TestDatabase.status(order)).isEqualTo("awaiting_signal");

        client.signal(children.get(0), "go", null).orThrow(); // still out of stock: fails again, and the join is done

        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(order).equals("done"));
        assertThat(joins).containsExactly("2/2: failed done:packed b");
    }

    @Test
    void aBulkRetryOfFailedChildrenMakesTheirParentWaitForThemAgainAndABulkCancelCountsThemEnded() {
        DurableClient client = engines.start(orders(Outcome.Join.ALL), lines()).client();
        long order = client.start("order", new Order(List.of("a!", "b!", "c"))).id();
        List<Long> children = awaitChildren(order, 3);
        client.signal(children.get(0), "go", null).orThrow();
        client.signal(children.get(1), "go", null).orThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.row(order).get("children_ended").equals(2));

        BulkResult retried = client.bulkRetry(InstanceQuery.all().machine("line").status(InstanceStatus.FAILED));

        assertThat(retried.changed()).isEqualTo(2);
        assertThat(TestDatabase.row(order)).containsEntry("children_ended", 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> children.stream()
                .allMatch(child -> TestDatabase.status(child).equals("awaiting_signal")));
        assertThat(client.history(children.get(0))).extracting(entry -> entry.event().label()).endsWith("retry_failed",
                "await");

        BulkResult cancelled = client.bulkCancel(InstanceQuery.all().machine("line"), "discontinued");

        assertThat(cancelled.changed()).isEqualTo(3);
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(order).equals("done"));
        assertThat(joins).containsExactly("3/3: cancelled cancelled cancelled");
    }

    @Test
    void retentionKeepsTheEndedChildrenOfAnUnfinishedParent() {
        DurableEngine engine = engines.start("keeper", settings -> settings.retentionDone(Duration.ofMillis(1))
                .retentionInterval(Duration.ofHours(1)), orders(Outcome.Join.ALL), lines());
        DurableClient client = engine.client();
        long order = client.start("order", new Order(List.of("a", "b"))).id();
        List<Long> children = awaitChildren(order, 2);
        client.signal(children.get(0), "go", null).orThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(children.get(0)).equals("done"));
        long orphanLine = client.start("line", new Line("solo", false)).id();
        client.signal(orphanLine, "go", null).orThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.status(orphanLine).equals("done"));
        TestDatabase.jdbc().update("UPDATE " + TestDatabase.SCHEMA + ".durable_instance"
                + " SET updated_at = now() - interval '1 hour' WHERE status = 'done'");

        RetentionRepository retention = Repositories.onTestDatabase().retention();
        assertThat(retention.deleteExpired(InstanceStatus.DONE, Duration.ofMinutes(1), 100)).isOne();

        assertThat(client.find(orphanLine)).isEmpty();
        assertThat(client.find(children.get(0))).isPresent();
    }

    /** Waits until {@code parent} has started {@code count} children; their ids in the order they were started. */
    private static List<Long> awaitChildren(long parent, int count) {
        await().atMost(Duration.ofSeconds(10)).until(() -> TestDatabase.jdbc().queryForObject("SELECT count(*) FROM "
                + TestDatabase.SCHEMA + ".durable_instance WHERE parent_id = ?", Long.class, parent) == count);
        return TestDatabase.jdbc().queryForList("SELECT id FROM " + TestDatabase.SCHEMA
                + ".durable_instance WHERE parent_id = ? ORDER BY id", Long.class, parent);
    }
}
