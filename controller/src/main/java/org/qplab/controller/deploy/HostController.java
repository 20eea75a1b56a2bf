package org.qplab.controller.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.qplab.controller.agent.AgentRepository;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.Conflict;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.api.ValidText;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The hosts inventory and agent deployment over SSH: /api/hosts. Deploy, upgrade and stop answer
 * when they are done (deploy: when the agent has registered); while they run, GET shows the step.
 */
@RestController
@RequestMapping("/api/hosts")
class HostController {

    /** A host with its agent's status. */
    record HostView(String name, String address, int sshPort, String sshUser, String remoteDir, String state,
                    String detail, String agentSha256, Object deployedAt, boolean agentConnected,
                    Object lastHeartbeat, Map<String, Object> facts) {}

    /** POST /api/hosts body. */
    record NewHost(String name, String address, Integer sshPort, String sshUser, String remoteDir) {}

    private final Jdbc jdbc;
    private final HostRepository hosts;
    private final AgentRepository agents;
    private final DeployService deploy;
    private final Scheduler ssh = Schedulers.newBoundedElastic(8, 64, "qplab-ssh");

    HostController(Jdbc jdbc, HostRepository hosts, AgentRepository agents, DeployService deploy) {
        this.jdbc = jdbc;
        this.hosts = hosts;
        this.agents = agents;
        this.deploy = deploy;
    }

    @GetMapping
    Mono<List<HostView>> list() {
        return jdbc.call(() -> {
            Map<String, AgentRepository.AgentRow> byId = agents.list().stream()
                    .collect(Collectors.toMap(AgentRepository.AgentRow::id, Function.identity()));
            return hosts.list().stream().map(h -> view(h, byId.get(h.name()))).toList();
        });
    }

    @GetMapping("/{name}")
    Mono<HostView> get(@PathVariable String name) {
        return jdbc.call(() -> {
            HostRepository.Host host = hosts.get(name).orElseThrow(() -> new NotFound("no host " + name));
            return view(host, agents.list().stream().filter(a -> a.id().equals(name)).findFirst().orElse(null));
        });
    }

    @PostMapping
    @ResponseStatus(HttpStatus.CREATED)
    Mono<HostView> add(@RequestBody NewHost body) {
        List<Violation> violations = new ArrayList<>();
        if (body.name() == null || !body.name().matches("[A-Za-z0-9._:-]{1,128}")) {
            violations.add(new Violation("name", "must be 1-128 characters of A-Z a-z 0-9 . _ : - (the agent registers under it)"));
        }
        if (body.address() == null || !body.address().matches("[A-Za-z0-9.:%\\[\\]-]{1,253}")) {
            violations.add(new Violation("address", "must be a host name or IP address"));
        }
        int port = body.sshPort() == null ? 22 : body.sshPort();
        if (port < 1 || port > 65535) {
            violations.add(new Violation("sshPort", "must be between 1 and 65535, got " + port));
        }
        String user = body.sshUser() == null ? "root" : body.sshUser();
        if (!user.matches("[a-z_][a-z0-9_.-]{0,31}")) {
            violations.add(new Violation("sshUser", "must be a POSIX user name, got " + user));
        }
        String dir = body.remoteDir() == null ? ".qplab" : body.remoteDir();
        if (dir.isBlank() || dir.contains("\n") || dir.contains("..") || dir.length() > 255) {
            violations.add(new Violation("remoteDir", "must be a directory path (absolute, or relative to the SSH user's home) without '..'"));
        } else {
            ValidText.check("remoteDir", dir, violations);
        }
        if (!violations.isEmpty()) {
            return Mono.error(new BadRequest("invalid host", violations));
        }
        return jdbc.call(() -> {
            if (!hosts.add(body.name(), body.address(), port, user, dir)) {
                throw new Conflict("host " + body.name() + " is already in the inventory");
            }
            return view(hosts.get(body.name()).orElseThrow(), null);
        });
    }

    @DeleteMapping("/{name}")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    Mono<Void> remove(@PathVariable String name) {
        return jdbc.run(() -> {
            HostRepository.Host host = hosts.get(name).orElseThrow(() -> new NotFound("no host " + name));
            if (host.state().equals("DEPLOYING") || host.state().equals("RUNNING")) {
                throw new Conflict("host " + name + " is " + host.state() + ": stop its agent first");
            }
            hosts.remove(name);
        });
    }

    /** Deploys the agent, or upgrades it when one runs already (stop, upload, start). */
    @PostMapping({"/{name}/deploy", "/{name}/upgrade"})
    Mono<HostView> deploy(@PathVariable String name, @RequestParam(defaultValue = "false") boolean pinHostKey) {
        return Mono.fromCallable(() -> deploy.deploy(name, pinHostKey)).subscribeOn(ssh).then(get(name));
    }

    @PostMapping("/{name}/stop")
    Mono<HostView> stop(@PathVariable String name) {
        return Mono.fromCallable(() -> deploy.stop(name)).subscribeOn(ssh).then(get(name));
    }

    @GetMapping(path = "/{name}/logs", produces = MediaType.TEXT_PLAIN_VALUE)
    Mono<String> logs(@PathVariable String name, @RequestParam(defaultValue = "200") int lines) {
        if (lines < 1 || lines > 10_000) {
            return Mono.error(new BadRequest("invalid request", List.of(new Violation("lines", "must be between 1 and 10000"))));
        }
        return Mono.fromCallable(() -> deploy.logs(name, lines)).subscribeOn(ssh);
    }

    @ExceptionHandler(DeployException.class)
    ResponseEntity<Map<String, Object>> failed(DeployException e) {
        return ResponseEntity.status(HttpStatus.BAD_GATEWAY).body(Map.of("error", e.getMessage()));
    }

    private static HostView view(HostRepository.Host h, AgentRepository.AgentRow agent) {
        return new HostView(h.name(), h.address(), h.sshPort(), h.sshUser(), h.remoteDir(), h.state(), h.detail(),
                h.agentSha256(), h.deployedAt(), agent != null && agent.connected(),
                agent == null ? null : agent.lastHeartbeat(), agent == null ? Map.of() : agent.facts());
    }
}
