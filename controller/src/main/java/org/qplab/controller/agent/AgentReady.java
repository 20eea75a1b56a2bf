package org.qplab.controller.agent;

/**
 * An event: agentId may take work now (it registered, or the run it was busy with ended). Published on the thread
 * that freed it, an event-loop thread among them: a listener must not block.
 */
public record AgentReady(String agentId) {}
