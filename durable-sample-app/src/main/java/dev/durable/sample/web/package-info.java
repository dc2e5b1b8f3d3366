@NullMarked
package dev.durable.sample.web;

import org.jspecify.annotations.NullMarked;
