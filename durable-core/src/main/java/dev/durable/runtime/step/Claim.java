package dev.durable.runtime.step;


/** A row id and the lease token of the claim on it. */
public record Claim(long id, long leaseToken) {
}
