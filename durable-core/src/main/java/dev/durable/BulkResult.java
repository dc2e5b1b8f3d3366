package dev.durable;

/**
 * What one call of a bulk operation did ({@link DurableClient#bulkRetry(InstanceQuery)},
 * {@link DurableClient#bulkCancel(InstanceQuery, String)}): it acts on one page of the instances its query selects,
 * oldest first, and says where the next page starts.
 *
 * <pre>{@code
 * InstanceQuery query = InstanceQuery.all().machine("order").status(InstanceStatus.FAILED).limit(500);
 * BulkResult page;
 * do {
 *     page = durable.bulkRetry(query);
 *     query = query.afterId(page.lastId());
 * } while (page.more());
 * }</pre>
 *
 * @param selected how many instances the page selected: those matching the query as the operation locked them, at
 *                 most the query's limit
 * @param changed  how many of them it retried or cancelled; the others it left as they were (for a retry, those whose
 *                 unique key another instance holds)
 * @param lastId   the id of the page's last instance, where the next page starts ({@link InstanceQuery#afterId(long)});
 *                 the query's own {@code afterId} when the page was empty
 * @param more     whether the page was full, so that more instances may match after {@code lastId}
 */
public record BulkResult(int selected, int changed, long lastId, boolean more) {

    /** How many selected instances were left as they were. */
    public int skipped() {
        return selected - changed;
    }
}
