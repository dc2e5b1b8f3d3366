/**
 * Internal: the runtime's plumbing for SQL, shared by every repository. {@code StatementPlanning} hands out the client
 * each statement runs on and writes the schema's name into it ({@code FreshlyPlannedJdbcTemplate} for the statements
 * planned at every execution, docs/DESIGN.md, "Statement planning"); {@code History} says whether and as which node the
 * repositories record transitions; {@code LiteralLimits} renders the few limits written into a statement;
 * {@code DatabaseErrors} tells an outage from a refusal. No statement of its own: each repository sits with the part of
 * the runtime that runs it ("Where the SQL lives"). Its classes may be public for the sibling packages; none is API,
 * and {@code ArchitectureTest} keeps everything outside {@code dev.durable.runtime} from using them.
 */
@NullMarked
package dev.durable.runtime.jdbc;

import org.jspecify.annotations.NullMarked;
