package org.qplab.controller.agent;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.stereotype.Component;

/**
 * After a controller restart no agent is connected yet, whatever the table says; they re-register.
 * Runs before the web server opens, so no fresh registration is overwritten.
 */
@Component
class AgentStartup implements SmartInitializingSingleton {

    private final AgentRepository agents;

    AgentStartup(AgentRepository agents) {
        this.agents = agents;
    }

    @Override
    public void afterSingletonsInstantiated() {
        agents.allDisconnected();
    }
}
