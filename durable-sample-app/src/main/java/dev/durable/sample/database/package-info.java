@NullMarked
package dev.durable.sample.database;

import org.jspecify.annotations.NullMarked;
