package dev.durable.runtime;

/** A row id and the lease token of the claim on it. */
record Claim(long id, long token) {
}
