package dev.durable;

import org.jspecify.annotations.Nullable;

/**
 * A filter for {@link DurableClient#list(InstanceQuery)}: every criterion is optional. Results are ordered by id
 * and paged with {@link #afterId(long)} (keyset paging: pass the last id of the previous page).
 */
public record InstanceQuery(@Nullable String queue, @Nullable InstanceStatus status, @Nullable String machine,
        long afterId, int limit) {

    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 10_000;

    public InstanceQuery {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIMIT + ", was " + limit);
        }
    }

    /** Every instance, first page. */
    public static InstanceQuery all() {
        return new InstanceQuery(null, null, null, 0, DEFAULT_LIMIT);
    }

    public InstanceQuery queue(@Nullable String queue) {
        return new InstanceQuery(queue, status, machine, afterId, limit);
    }

    public InstanceQuery status(@Nullable InstanceStatus status) {
        return new InstanceQuery(queue, status, machine, afterId, limit);
    }

    public InstanceQuery machine(@Nullable String machine) {
        return new InstanceQuery(queue, status, machine, afterId, limit);
    }

    public InstanceQuery afterId(long afterId) {
        return new InstanceQuery(queue, status, machine, afterId, limit);
    }

    public InstanceQuery limit(int limit) {
        return new InstanceQuery(queue, status, machine, afterId, limit);
    }
}
