package org.qplab.controller.deploy;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.controller.agent.AgentRepository;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.Conflict;
import org.qplab.controller.api.ErrorBody;
import org.qplab.controller.api.ErrorResponses;
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
@Tag(name = ApiTags.HOSTS)
class HostController {

    /** A host with its agent's status. */
    record HostView(String name, String address, int sshPort, String sshUser, String remoteDir,
                    @Schema(description = "ADDED, DEPLOYING, RUNNING, STOPPED or FAILED.") String state,
                    @Schema(description = "The step under way, or what the last deploy or stop ended with.")
                    String detail,
                    @Schema(description = "SHA-256 of the agent jar deployed, hex.") String agentSha256,
                    OffsetDateTime deployedAt, boolean agentConnected, OffsetDateTime lastHeartbeat,
                    @Schema(description = "What the agent reported about its host (kernel, CPU, RDMA devices, ...).")
                    Map<String, Object> facts) {}

    /** POST /api/hosts body. */
    record NewHost(@Schema(description = "The host's name; its agent registers under it: 1-128 characters of A-Z "
                           + "a-z 0-9 . _ : -", requiredMode = Schema.RequiredMode.REQUIRED) String name,
                   @Schema(description = "The IP address (IPv4, or IPv6 optionally in brackets) or DNS name to reach "
                           + "it by SSH; anything else is a 400 naming this field.",
                           requiredMode = Schema.RequiredMode.REQUIRED) String address,
                   @Schema(description = "SSH port, default 22.") Integer sshPort,
                   @Schema(description = "SSH user, default root.") String sshUser,
                   @Schema(description = "Where the agent goes on the host, absolute or relative to the SSH user's "
                           + "home; default .qplab.") String remoteDir) {}

    private static final String PIN_HOST_KEY = "Trust the host's SSH key on first contact and pin it in "
            + "qplab.deploy.known-hosts; otherwise it must be there already.";

    private final Jdbc jdbc;
    private final HostRepository hosts;
    private final AgentRepository agents;
    private final AgentRegistry registry;
    private final DeployService deploy;
    private final Scheduler ssh = Schedulers.newBoundedElastic(8, 64, "qplab-ssh");

    HostController(Jdbc jdbc, HostRepository hosts, AgentRepository agents, AgentRegistry registry,
                   DeployService deploy) {
        this.jdbc = jdbc;
        this.hosts = hosts;
        this.agents = agents;
        this.registry = registry;
        this.deploy = deploy;
    }

    @GetMapping
    @Operation(operationId = "listHosts", summary = "List hosts",
            description = "The hosts inventory, each with its deploy state and whether its agent is connected.")
    @ApiResponse(responseCode = "200", description = "The hosts.")
    Mono<List<HostView>> list() {
        return jdbc.call(() -> {
            Map<String, AgentRepository.AgentRow> byId = agents.list().stream()
                    .collect(Collectors.toMap(AgentRepository.AgentRow::id, Function.identity()));
            return hosts.list().stream().map(h -> view(h, byId.get(h.name()))).toList();
        });
    }

    @GetMapping("/{name}")
    @Operation(operationId = "getHost", summary = "One host",
            description = "The host, its deploy state (while a deploy, upgrade or stop runs: the step) and its "
                    + "agent's.")
    @ApiResponse(responseCode = "200", description = "The host.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<HostView> get(@PathVariable String name) {
        return jdbc.call(() -> {
            HostRepository.Host host = hosts.get(name).orElseThrow(() -> new NotFound("no host " + name));
            return view(host, agents.list().stream().filter(a -> a.id().equals(name)).findFirst().orElse(null));
        });
    }

    @PostMapping
    @ResponseStatus(HttpStatus.CREATED)
    @Operation(operationId = "addHost", summary = "Add a host",
            description = "Adds a host to the inventory, to deploy the agent to later. 400 naming each field that is "
                    + "wrong (an address that is neither an IP address nor a DNS name, ...); 409 when one of that name "
                    + "is there already. Needs an admin.")
    @ApiResponse(responseCode = "201", description = "Added: the host, state ADDED.")
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    Mono<HostView> add(@RequestBody NewHost body) {
        List<Violation> violations = new ArrayList<>();
        if (body.name() == null || !body.name().matches("[A-Za-z0-9._:-]{1,128}")) {
            violations.add(new Violation("name", "must be 1-128 characters of A-Z a-z 0-9 . _ : - (the agent registers under it)"));
        }
        String address = HostAddress.problem(body.address());
        if (address != null) {
            violations.add(new Violation("address", "must be an IP address or a DNS name: " + address));
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
    @Operation(operationId = "removeHost", summary = "Remove a host",
            description = "Removes the host from the inventory; 409 while its agent (the agent registered under the "
                    + "host's name) is connected, the error naming it, and while it is being deployed or runs: stop it "
                    + "first. Needs an admin.")
    @ApiResponse(responseCode = "204", description = "Removed.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    Mono<Void> remove(@PathVariable String name) {
        return jdbc.run(() -> {
            HostRepository.Host host = hosts.get(name).orElseThrow(() -> new NotFound("no host " + name));
            if (registry.connected(name)) { // deploy starts the host's agent with --id NAME
                throw new Conflict("host " + name + " has a live agent: agent '" + name + "' is connected; stop it "
                        + "first (POST /api/hosts/" + name + "/stop, or end it on the host), then remove the host");
            }
            if (host.state().equals("DEPLOYING") || host.state().equals("RUNNING")) {
                throw new Conflict("host " + name + " is " + host.state() + ": stop its agent first");
            }
            hosts.remove(name);
        });
    }

    /** Deploys the agent, or upgrades it when one runs already (stop, upload, start). */
    @PostMapping("/{name}/deploy")
    @Operation(operationId = "deployAgent", summary = "Deploy the agent to a host",
            description = "Over SSH: checks the host has Java, uploads the agent jar this controller carries with a "
                    + "fresh token of its own, starts it, and answers once it has registered (while it runs, GET shows "
                    + "the step). One already running is stopped and replaced. 409 while another deploy, upgrade or "
                    + "stop of the host runs; 502 when SSH or the agent fails (the error has the host's answer). Needs "
                    + "an admin.")
    @ApiResponse(responseCode = "200", description = "Deployed: the host, state RUNNING, its agent connected.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    @ApiResponse(responseCode = "502", ref = ErrorResponses.BAD_GATEWAY)
    Mono<HostView> deploy(@PathVariable String name, @Parameter(description = PIN_HOST_KEY)
                          @RequestParam(defaultValue = "false") boolean pinHostKey) {
        return Mono.fromCallable(() -> deploy.deploy(name, pinHostKey)).subscribeOn(ssh).then(get(name));
    }

    /** The same as deploy: the agent running is stopped, the one this controller carries uploaded and started. */
    @PostMapping("/{name}/upgrade")
    @Operation(operationId = "upgradeAgent", summary = "Upgrade the agent on a host",
            description = "The same as deploy: stops the agent running on the host, uploads the one this controller "
                    + "carries and starts it, answering once it has registered. Needs an admin.")
    @ApiResponse(responseCode = "200", description = "Upgraded: the host, state RUNNING, its agent connected.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    @ApiResponse(responseCode = "502", ref = ErrorResponses.BAD_GATEWAY)
    Mono<HostView> upgrade(@PathVariable String name, @Parameter(description = PIN_HOST_KEY)
                           @RequestParam(defaultValue = "false") boolean pinHostKey) {
        return deploy(name, pinHostKey);
    }

    @PostMapping("/{name}/stop")
    @Operation(operationId = "stopAgent", summary = "Stop the agent on a host",
            description = "Over SSH: SIGTERM to the host's agent, SIGKILL after 10 s. 409 while a deploy, upgrade or "
                    + "stop of the host runs; 502 when SSH fails. Needs an admin.")
    @ApiResponse(responseCode = "200", description = "Stopped: the host, state STOPPED.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    @ApiResponse(responseCode = "502", ref = ErrorResponses.BAD_GATEWAY)
    Mono<HostView> stop(@PathVariable String name) {
        return Mono.fromCallable(() -> deploy.stop(name)).subscribeOn(ssh).then(get(name));
    }

    @GetMapping(path = "/{name}/logs", produces = MediaType.TEXT_PLAIN_VALUE)
    @Operation(operationId = "getAgentLog", summary = "The agent's log on a host",
            description = "The last lines of agent.log in the host's remote directory, read over SSH (empty when "
                    + "there is none). 502 when SSH fails. Needs an admin.")
    @ApiResponse(responseCode = "200", description = "The log's last lines.",
            content = @Content(mediaType = MediaType.TEXT_PLAIN_VALUE, schema = @Schema(type = "string")))
    @ApiResponse(responseCode = "403", ref = ErrorResponses.FORBIDDEN)
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "502", ref = ErrorResponses.BAD_GATEWAY)
    Mono<String> logs(@PathVariable String name,
                      @Parameter(description = "How many lines, 1 to 10000.")
                      @RequestParam(defaultValue = "200") int lines) {
        if (lines < 1 || lines > 10_000) {
            return Mono.error(new BadRequest("invalid request", List.of(new Violation("lines", "must be between 1 and 10000"))));
        }
        return Mono.fromCallable(() -> deploy.logs(name, lines)).subscribeOn(ssh);
    }

    @ExceptionHandler(DeployException.class)
    ResponseEntity<ErrorBody> failed(DeployException e) {
        return ResponseEntity.status(HttpStatus.BAD_GATEWAY).body(new ErrorBody(e.getMessage()));
    }

    private static HostView view(HostRepository.Host h, AgentRepository.AgentRow agent) {
        return new HostView(h.name(), h.address(), h.sshPort(), h.sshUser(), h.remoteDir(), h.state(), h.detail(),
                h.agentSha256(), h.deployedAt(), agent != null && agent.connected(),
                agent == null ? null : agent.lastHeartbeat(), agent == null ? Map.of() : agent.facts());
    }
}
