package org.qplab.controller.agent;

import java.util.Map;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.handler.SimpleUrlHandlerMapping;

@Configuration(proxyBeanMethods = false)
class AgentWebSocketConfiguration {

    @Bean
    HandlerMapping agentWebSocketMapping(AgentGateway gateway) {
        return new SimpleUrlHandlerMapping(Map.of("/agent", gateway), -1);
    }
}
