package dev.durable.boot.docs.starter;

import dev.durable.DurableClient;
import dev.durable.HistoryEntry;
import dev.durable.StatePatch;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/** The starter's README, section "History of an instance": reading an instance's history. */
class InstanceHistory {

    private static final Logger log = LoggerFactory.getLogger(InstanceHistory.class);

    private final DurableClient durable;

    InstanceHistory(DurableClient durable) {
        this.durable = durable;
    }

    void print(long id) {
        for (HistoryEntry entry : durable.history(id)) {
            log.info("{} {} {} attempt {} on {} in {}", entry.at(), entry.step(), entry.event(), entry.attempt(),
                    entry.node(), entry.duration());
        }
    }

    JsonNode stateAfterTheThirdTransition(long id, JsonNode firstState) {
        List<HistoryEntry> history = durable.history(id);
        JsonNode afterThird = StatePatch.replay(firstState, history.subList(0, 3)); // the state the third transition wrote
        return afterThird;
    }
}
