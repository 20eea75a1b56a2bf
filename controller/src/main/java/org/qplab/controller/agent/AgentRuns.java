package org.qplab.controller.agent;

import java.util.List;
import org.qplab.protocol.AgentMessage;

/**
 * What agents say about their runs, as the gateway hands it on to where runs are scheduled: one agent's messages in
 * the order it sent them, a run's end only after every frame sent before it is stored. Blocking (database): the
 * gateway calls these on its database scheduler.
 */
public interface AgentRuns {

    /** What an agent's return decided: the runs it must cancel, and the run it is busy with (or null). */
    record Returned(List<Long> cancel, Long busyWith) {}

    /**
     * agentId registers, running currentRun, with preparedRun set up but not started, holding knownRuns (its outbox
     * too).
     */
    Returned returned(String agentId, Long currentRun, Long preparedRun, List<Long> knownRuns);

    /**
     * A message of agentId about a run assigned to it (a pair step, a run's end). True when it recorded the end of a
     * run the agent ran on its own: the gateway then tells the agent (RunRecorded) and frees it.
     */
    boolean report(String agentId, AgentMessage.RunMessage message);
}
