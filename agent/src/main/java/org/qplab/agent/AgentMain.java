package org.qplab.agent;

import org.qplab.agent.engine.Engine;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/** The qplab agent: one long-running process per host, driven by the controller. */
public final class AgentMain {

    private AgentMain() {
    }

    public static void main(String[] args) {
        AgentConfig config;
        try {
            config = AgentConfig.parse(args, System.getenv(), HostFacts.hostname());
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(args.length > 0 && (args[0].equals("--help") || args[0].equals("-h")) ? 0 : 2);
            return;
        }
        if (!Engine.isAvailable()) {
            Log.info("native engine unavailable, runs will fail: " + Engine.unavailabilityCause());
        }
        ObjectMapper json = JsonMapper.builder().build();
        ControllerLink link = new ControllerLink(config, json, HostFacts.collect(json));
        RunExecutor executor = new RunExecutor(link, json);
        link.onMessage(executor::handle, executor::currentRunId);
        Log.info("agent " + config.agentId() + " connecting to " + config.controller());
        System.exit(link.runForever());
    }
}
