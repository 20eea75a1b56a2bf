package org.qplab.controller.agent;

import java.util.List;
import org.qplab.controller.database.Jdbc;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** GET /api/agents: every agent that ever registered, and whether it is connected. */
@RestController
@RequestMapping("/api/agents")
class AgentController {

    private final Jdbc jdbc;
    private final AgentRepository agents;

    AgentController(Jdbc jdbc, AgentRepository agents) {
        this.jdbc = jdbc;
        this.agents = agents;
    }

    @GetMapping
    Mono<List<AgentRepository.AgentRow>> list() {
        return jdbc.call(agents::list);
    }
}
