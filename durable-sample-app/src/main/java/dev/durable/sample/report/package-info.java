/** The nightly report: a recurring schedule that starts one report instance per night in the whole cluster. */
@NullMarked
package dev.durable.sample.report;

import org.jspecify.annotations.NullMarked;
