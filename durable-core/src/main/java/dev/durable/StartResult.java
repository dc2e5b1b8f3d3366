package dev.durable;

/**
 * The instance a start resolved to.
 *
 * @param id      the new instance, or the existing one that holds the unique key
 * @param created {@code false} when the start was deduplicated against an instance holding its unique key
 */
public record StartResult(long id, boolean created) {
}
