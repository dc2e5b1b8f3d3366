package dev.durable.boot.it;

import dev.durable.DurableClient;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Starts workflows inside the application's transactions. */
@Service
public class Orders {

    private final DurableClient durable;
    private final AtomicLong lastStarted = new AtomicLong();

    Orders(DurableClient durable) {
        this.durable = durable;
    }

    /** The id the last start returned, committed or not. */
    public long lastStarted() {
        return lastStarted.get();
    }

    @Transactional
    public long startAndCommit(String name) {
        long id = durable.start(Workflow.class, new Workflow.State(name, 0)).id();
        lastStarted.set(id);
        return id;
    }

    @Transactional
    public void startAndRollBack(String name) {
        lastStarted.set(durable.start(Workflow.class, new Workflow.State(name, 0)).id());
        throw new IllegalStateException("the order could not be placed");
    }
}
