package dev.durable.jdbc;

/**
 * A node's code is older than its schema: the schema was upgraded by a newer release, and this node (rolled back past
 * that upgrade) would write beside rows it may not read. Thrown before anything is written; the node does not start.
 * Deploy code that knows the schema's version; a schema is never rolled back (it holds what the newer code wrote).
 */
public final class SchemaTooNewException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final int schemaVersion;
    private final int codeVersion;

    SchemaTooNewException(String schema, int schemaVersion, int codeVersion) {
        super("durable's schema '" + schema + "' is at version " + schemaVersion + ", newer than this code's version "
                + codeVersion + ": it was upgraded by a newer release, and this node, rolled back past that upgrade,"
                + " would write beside rows it may not read. The node does not start and wrote nothing. Deploy a"
                + " release whose schema version is " + schemaVersion + " or later (DurableSchema.VERSION); the schema"
                + " itself is never rolled back, it keeps what the newer release wrote.");
        this.schemaVersion = schemaVersion;
        this.codeVersion = codeVersion;
    }

    /** The version the schema records. */
    public int schemaVersion() {
        return schemaVersion;
    }

    /** The newest version this code knows, {@link DurableSchema#VERSION}. */
    public int codeVersion() {
        return codeVersion;
    }
}
