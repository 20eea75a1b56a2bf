package org.qplab.agent;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLSocketFactory;
import org.qplab.agent.log.Log;
import org.qplab.agent.nvmeof.Leftovers;
import org.qplab.agent.nvmeof.NvmeofHost;
import org.qplab.agent.nvmeof.NvmeofProvider;
import org.qplab.agent.provider.EngineProvider;
import org.qplab.agent.provider.Provider;
import org.qplab.engine.Engine;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/** The qplab agent: one long-running process per host, driven by the controller. */
public final class AgentMain {

    private AgentMain() {
    }

    public static void main(String[] args) {
        AgentConfig config;
        SSLSocketFactory tls;
        AgentCredentials credentials;
        try {
            config = AgentConfig.parse(args, System.getenv(), HostFacts.hostname());
            tls = ControllerTrust.socketFactory(config.caFile());
            credentials = AgentCredentials.load(config.stateDir(), config.token());
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(args.length > 0 && AgentOption.ofFlag(args[0]).orElse(null) == AgentOption.HELP ? 0 : 2);
            return;
        }
        if (!Engine.isAvailable()) {
            Log.info("native engine unavailable, runs will fail: " + Engine.unavailabilityCause());
        }
        ObjectMapper json = JsonMapper.builder().build();
        String dataAddress = config.dataAddress() != null ? config.dataAddress() : routeTo(config.controller());
        NvmeofHost nvmeof = NvmeofHost.of(config.agentId(), config.nvmeofBacking(), () -> dataAddress);
        Leftovers.Report leftovers = Leftovers.clean(nvmeof);
        if (!leftovers.isEmpty()) {
            Log.info("nvmeof leftovers of an earlier agent process: " + leftovers);
        }
        List<Provider> providers = List.of(new EngineProvider(json, () -> dataAddress, config.dataAddress()),
                new NvmeofProvider(nvmeof));
        Map<String, Object> facts = HostFacts.collect(providers);
        facts.put("data_address", dataAddress);
        Outbox outbox = new Outbox(config.spoolDir(), config.spoolMemoryBytes(), json);
        try {
            int loaded = outbox.load();
            if (loaded > 0) {
                Log.info("spool " + config.spoolDir() + ": " + loaded + " frames and run ends an earlier agent process "
                        + "left unacknowledged; they go to the controller once registered");
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("cannot read the spool " + config.spoolDir() + ": " + e
                    + " (move it aside, or pass another --spool-dir)");
            System.exit(2);
        }
        ControllerLink link = new ControllerLink(config, tls, json, facts, outbox, credentials);
        RunExecutor executor = new RunExecutor(link, json, providers);
        link.onMessage(executor::handle, executor::currentRunId, executor::preparedRunId);
        if (config.healthPort() >= 0) {
            try {
                AgentHealth health = AgentHealth.start(config.healthAddress(), config.healthPort(), config.agentId(),
                        AgentHealth.of(link::registered, executor::currentRunId, executor::engineStuck, outbox, link::runsEnded));
                Log.info("health and metrics on http://" + config.healthAddress() + ":" + health.port()
                        + "/health, /metrics");
            } catch (IOException e) {
                System.err.println("cannot serve health on " + config.healthAddress() + ":" + config.healthPort() + ": " + e);
                System.exit(2);
            }
        }
        Log.info("agent " + config.agentId() + " connecting to " + config.controller());
        System.exit(link.runForever());
    }

    /**
     * The local address of the route to the controller (a connected UDP socket: nothing is sent).
     * Falls back to 127.0.0.1, which suits a controller on this host.
     */
    static String routeTo(URI controller) {
        try (DatagramSocket probe = new DatagramSocket()) {
            int port = controller.getPort() > 0 ? controller.getPort() : 80;
            probe.connect(InetAddress.getByName(controller.getHost()), port);
            InetAddress local = probe.getLocalAddress();
            return local instanceof Inet4Address && !local.isAnyLocalAddress() ? local.getHostAddress() : "127.0.0.1";
        } catch (IOException e) {
            return "127.0.0.1";
        }
    }
}
