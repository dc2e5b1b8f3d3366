package dev.durable.runtime;

import dev.durable.DurableException;

/** An {@link EngineSettings} value is invalid; {@link #setting()} names it (e.g. {@code queues.mail.concurrency}). */
public class InvalidSettingException extends DurableException {

    private final String setting;
    private final String problem;

    public InvalidSettingException(String setting, String problem) {
        super("Invalid durable setting '" + setting + "': " + problem);
        this.setting = setting;
        this.problem = problem;
    }

    /** The setting's path in {@link EngineSettings}, e.g. {@code heartbeatInterval} or {@code queues.q.batchSize}. */
    public String setting() {
        return setting;
    }

    /** What is wrong with it, without the setting's name. */
    public String problem() {
        return problem;
    }
}
