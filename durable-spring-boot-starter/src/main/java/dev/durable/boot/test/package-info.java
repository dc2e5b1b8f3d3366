/**
 * durable's test kit in a Spring Boot test: {@link dev.durable.boot.test.DurableTest}.
 */
@NullMarked
package dev.durable.boot.test;

import org.jspecify.annotations.NullMarked;
