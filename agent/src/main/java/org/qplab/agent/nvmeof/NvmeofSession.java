package org.qplab.agent.nvmeof;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.qplab.agent.log.Log;
import org.qplab.engine.HostCost;
import org.qplab.engine.RunSession;
import org.qplab.engine.SpecViolation;
import org.qplab.engine.nvmeof.NvmeofSpec;
import org.qplab.protocol.Interval;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * One side of an nvmeof run (provider nvmeof), driven by RunExecutor like an engine session. A pair run's server
 * is the NVMe-oF target (null_blk or a backing path, an nvmet subsystem and port; it waits for the initiator on a
 * control socket, allows its host NQN, and then only waits for its "done"); the client is the initiator (nvme
 * connect, fio on the namespace, nvme disconnect, "done"). A loopback run (transport local) runs fio on the
 * backing device itself. Everything made is removed by {@link #close()}, and what a dead run left by
 * {@link Leftovers} at the next prepare.
 */
public final class NvmeofSession implements RunSession {

    public static final String PROVIDER = "nvmeof";
    static final Duration ACCEPT_TIMEOUT = Duration.ofSeconds(50);
    static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    static final Duration HELLO_TIMEOUT = Duration.ofSeconds(10);
    /**
     * A stop or a teardown may take fio's SIGTERM grace and SIGKILL (5 + 5 s), nvme disconnect (30 s) and the
     * configfs removals with their own timeouts: only past this is the agent's thread stuck.
     */
    static final Duration STUCK_AFTER = Duration.ofSeconds(90);
    static final Duration DRAIN_INTERVAL = Duration.ofMillis(50);
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private final NvmeofHost host;
    private final long runId;
    private final String role;
    private final NvmeofSpec spec;
    /** What the run cost this host (the engine's qpb_cost), from start; null before, or when it could not begin. */
    private HostCost cost;
    private String costProblem;
    private final List<String> warnings = new ArrayList<>();
    private Backing backing;
    private Target target;
    private ServerSocket control;
    private Socket peer;
    private final StringBuilder line = new StringBuilder();
    private Initiator initiator;
    private volatile FioRun fio;
    private volatile boolean stopRequested;
    private boolean started;
    private boolean ended;
    private String error;
    /** False once the peer closed the control connection. */
    private boolean peerOpen = true;

    private NvmeofSession(NvmeofHost host, long runId, String role, NvmeofSpec spec) {
        this.host = host;
        this.runId = runId;
        this.role = role;
        this.spec = spec;
    }

    /**
     * Checks the spec and this host (refusing before it creates anything), cleans up what earlier runs left, and
     * makes this side's part: the target's backing, subsystem, port and control socket; a loopback's backing.
     */
    public static NvmeofSession create(long runId, Map<String, Object> params, NvmeofHost host) {
        try {
            return prepare(runId, params, host);
        } catch (NvmeofException e) {
            throw e;
        } catch (RuntimeException e) { // RunExecutor reports engine exceptions only
            throw NvmeofException.failed("prepare: " + e);
        }
    }

    private static NvmeofSession prepare(long runId, Map<String, Object> params, NvmeofHost host) {
        Map<String, Object> specKeys = new LinkedHashMap<>(params);
        String role = String.valueOf(specKeys.getOrDefault("role", "loopback"));
        specKeys.remove("role");
        NvmeofSpec spec;
        try {
            spec = NvmeofSpec.of(specKeys);
        } catch (IllegalArgumentException e) {
            throw NvmeofException.invalid(e.getMessage());
        }
        boolean local = "local".equals(spec.transport());
        if (local != "loopback".equals(role)) {
            throw NvmeofException.invalid(local ? "transport local runs fio on the target host's backing device: a "
                    + "loopback run, not a pair's " + role : "transport " + spec.transport() + " needs a pair run (server "
                    + "= NVMe-oF target, client = initiator), not a " + role + " run");
        }
        String side = "client".equals(role) ? "initiator" : "target";
        Leftovers.Report leftovers = Leftovers.clean(host);
        if (!leftovers.isEmpty()) {
            Log.info("run " + runId + ": nvmeof leftovers of earlier runs: " + leftovers);
        }
        String refusal = Capabilities.probe(host).refusal(host.agentId(), side, spec.transport(), spec.backing());
        if (refusal != null) {
            throw NvmeofException.refused(refusal);
        }
        SpecViolation path = "initiator".equals(side) ? null : spec.checkBackingPath(host.agentId(), host.backingPaths());
        if (path != null) {
            throw NvmeofException.invalid(path.field() + ": " + path.message());
        }
        if (!"server".equals(role) && !FioOutput.warmUp()) { // the side that runs fio: before it measures
            Log.info("run " + runId + ": warming up the reader of fio's output failed: the first status dump pays "
                    + "for loading it");
        }
        NvmeofSession session = new NvmeofSession(host, runId, role, spec);
        try {
            if (!"initiator".equals(side)) {
                session.backing = Backing.create(host, runId, spec);
            }
            if ("server".equals(role)) {
                session.target = Target.create(host, runId, spec.transport(), session.backing.device());
                session.control = listen(host.dataAddress().get());
            }
            return session;
        } catch (RuntimeException e) {
            session.close();
            throw e;
        }
    }

    private static ServerSocket listen(String address) {
        try {
            ServerSocket socket = new ServerSocket();
            socket.bind(new InetSocketAddress(InetAddress.getByName(address), 0), 1);
            return socket;
        } catch (IOException e) {
            throw NvmeofException.failed("open the control socket on " + address + ": " + e.getMessage());
        }
    }

    @Override
    public String localEndpoint() {
        Map<String, Object> endpoint = new LinkedHashMap<>();
        if (target != null) {
            endpoint.put("trtype", spec.transport());
            endpoint.put("traddr", target.traddr());
            endpoint.put("trsvcid", target.trsvcid());
            endpoint.put("subnqn", target.nqn());
            endpoint.put("control", target.traddr() + ":" + control.getLocalPort());
        } else if ("client".equals(role)) {
            endpoint.put("hostnqn", host.hostNqn());
        }
        return JSON.writeValueAsString(endpoint);
    }

    @Override
    public void connect(String peerEndpointJson) {
        Map<?, ?> endpoint;
        try {
            endpoint = JSON.readValue(peerEndpointJson, Map.class);
        } catch (JacksonException e) {
            throw NvmeofException.invalid("connect: the peer's endpoint is not JSON: " + peerEndpointJson);
        }
        try {
            if (target != null) {
                String hostNqn = text(endpoint, "hostnqn");
                if (!NvmeofHost.isInitiatorNqn(hostNqn)) { // it names a directory under configfs, made as root
                    throw NvmeofException.invalid("connect: the initiator's host NQN '" + hostNqn + "' is not a qplab "
                            + "agent's (" + NvmeofHost.NQN_PREFIX + "TAG:host)");
                }
                acceptInitiator(hostNqn);
            } else if (initiator == null && "client".equals(role)) {
                connectToTarget(endpoint);
            }
        } catch (NvmeofException e) {
            throw e;
        } catch (RuntimeException e) { // RunExecutor reports engine exceptions only
            throw NvmeofException.failed("connect: " + e);
        }
    }

    /** Target: the initiator connects to the control socket and says hello with its host NQN; it is allowed. */
    private void acceptInitiator(String hostNqn) {
        String where = target.traddr() + ":" + control.getLocalPort();
        try {
            control.setSoTimeout((int) ACCEPT_TIMEOUT.toMillis());
            peer = control.accept();
            peer.setSoTimeout((int) HELLO_TIMEOUT.toMillis());
        } catch (SocketTimeoutException e) {
            throw NvmeofException.failed("connect: no initiator connected to the control socket " + where + " within "
                    + ACCEPT_TIMEOUT.toSeconds() + " s");
        } catch (IOException e) {
            throw NvmeofException.failed("connect: accepting on the control socket " + where + ": " + e.getMessage());
        }
        String hello = readLine(HELLO_TIMEOUT, "connect: the initiator's hello");
        if (hello == null || !hello.equals("hello " + hostNqn)) {
            throw NvmeofException.failed("connect: the initiator said " + (hello == null ? "nothing (it closed the control "
                    + "connection)" : "'" + hello + "'") + ", not 'hello " + hostNqn + "'");
        }
        target.allow(hostNqn);
        send("ready");
    }

    /** Initiator: hello on the target's control socket, its ready, then nvme connect and the namespace's device. */
    private void connectToTarget(Map<?, ?> endpoint) {
        String control = text(endpoint, "control");
        int colon = control.lastIndexOf(':');
        try {
            peer = new Socket();
            peer.connect(new InetSocketAddress(control.substring(0, colon), Integer.parseInt(control.substring(colon + 1))),
                    (int) HELLO_TIMEOUT.toMillis());
        } catch (IOException | RuntimeException e) {
            throw NvmeofException.failed("connect: to the target's control socket " + control + ": " + e.getMessage());
        }
        send("hello " + host.hostNqn());
        String ready = readLine(READY_TIMEOUT, "connect: the target's ready");
        if (!"ready".equals(ready)) {
            throw NvmeofException.failed("connect: the target answered " + (ready == null ? "nothing (it closed the "
                    + "control connection)" : "'" + ready + "'") + " instead of ready");
        }
        if (!spec.transport().equals(text(endpoint, "trtype"))) { // it names the module modprobe loads
            throw NvmeofException.invalid("connect: the target offers transport '" + text(endpoint, "trtype")
                    + "', this run is over " + spec.transport());
        }
        initiator = Initiator.connect(host, text(endpoint, "trtype"), text(endpoint, "traddr"), text(endpoint, "trsvcid"),
                text(endpoint, "subnqn"));
    }

    private static String text(Map<?, ?> endpoint, String key) {
        Object value = endpoint.get(key);
        if (!(value instanceof String s) || s.isEmpty()) {
            throw NvmeofException.invalid("connect: the peer's endpoint has no " + key + ": " + endpoint);
        }
        return s;
    }

    @Override
    public void start() {
        if ("client".equals(role) && initiator == null) {
            throw NvmeofException.failed("start: the initiator is not connected");
        }
        cost = beginCost();
        started = true;
        if (target == null) {
            String device = initiator != null ? initiator.device() : backing.device();
            List<String> argv = new ArrayList<>();
            argv.add("fio");
            argv.addAll(spec.fioArguments(device, host.runName(runId)));
            Log.info("run " + runId + ": " + String.join(" ", argv));
            try {
                fio = FioRun.start(argv);
            } catch (NvmeofException e) {
                throw e;
            } catch (RuntimeException e) {
                throw NvmeofException.failed("start fio on " + device + ": " + e.getMessage());
            }
            if (stopRequested) {
                stop();
            }
        }
    }

    @Override
    public boolean awaitEnd(Duration timeout) {
        if (ended || !started) {
            return ended;
        }
        if (target != null) {
            if (stopRequested) {
                return finish(null);
            }
            String said = readLine(timeout, null);
            if ("done".equals(said)) {
                return finish(null);
            }
            return !peerOpen && finish(stopRequested ? null : "the initiator closed the control connection before it "
                    + "said done");
        }
        if (!fio.awaitEnd(timeout)) {
            return false;
        }
        endCost();
        if (initiator != null) {
            List<String> problems = initiator.close();
            warnings.addAll(problems);
            send("done");
        }
        ended = true;
        return true;
    }

    private boolean finish(String why) {
        endCost();
        error = why;
        ended = true;
        return true;
    }

    /**
     * The host's CPU and counters from now on, by the engine (HostCost): the RDMA port of the spec's device or of the
     * data address for rdma, the host's TCP counters for tcp and local. Null, with why in costProblem, when the engine
     * cannot measure them: the run goes on without.
     */
    private HostCost beginCost() {
        HostCost.Roots roots = new HostCost.Roots(host.proc(), host.sysfs().resolve("class/infiniband"));
        try {
            return "rdma".equals(spec.transport())
                    ? HostCost.rdma(spec.device(), spec.device().isEmpty() ? host.dataAddress().get() : null, roots)
                    : HostCost.tcp(roots);
        } catch (RuntimeException e) {
            costProblem = "CPU and counters not measured: " + e.getMessage();
            Log.info("run " + runId + ": " + costProblem);
            return null;
        }
    }

    private void endCost() {
        if (cost != null) {
            cost.end();
        }
    }

    /** {"cpu","counters","warnings"} in the engine summary's keys; the two measures null when none were taken. */
    private Map<String, Object> costSummary() {
        try {
            if (costProblem == null) {
                @SuppressWarnings("unchecked")
                Map<String, Object> measured = JSON.readValue(cost != null ? cost.json() : HostCost.neverBegun(),
                        LinkedHashMap.class);
                return measured;
            }
        } catch (RuntimeException e) {
            costProblem = "CPU and counters not reported: " + e.getMessage();
        }
        Map<String, Object> none = new LinkedHashMap<>();
        none.put("cpu", null);
        none.put("counters", null);
        none.put("warnings", List.of(costProblem));
        return none;
    }

    /**
     * Reads one line of the control connection, waiting at most timeout; null when the peer closed it (peerOpen
     * false) or, with step null, when no line came in time. step: the failure a timeout or an error throws.
     */
    private String readLine(Duration timeout, String step) {
        try {
            peer.setSoTimeout((int) Math.max(1, timeout.toMillis()));
            InputStream in = peer.getInputStream();
            while (true) {
                int c = in.read();
                if (c < 0) {
                    peerOpen = false;
                    return null;
                }
                if (c == '\n') {
                    String text = line.toString().strip();
                    line.setLength(0);
                    return text;
                }
                if (line.length() < 1024) {
                    line.append((char) c);
                }
            }
        } catch (SocketTimeoutException e) {
            if (step != null) {
                throw NvmeofException.failed(step + ": nothing within " + timeout.toSeconds() + " s");
            }
            return null;
        } catch (IOException e) {
            peerOpen = false;
            if (step != null) {
                throw NvmeofException.failed(step + ": " + e.getMessage());
            }
            return null;
        }
    }

    private void send(String message) {
        try {
            OutputStream out = peer.getOutputStream();
            out.write((message + "\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
        } catch (IOException | RuntimeException e) {
            if (!"done".equals(message)) {
                throw NvmeofException.failed("send '" + message + "' on the control connection: " + e.getMessage());
            }
            warnings.add("send done to the target: " + e.getMessage());
        }
    }

    @Override
    public int drainRaw(byte[] dest, int offset, int max) {
        return 0; // nvmeof runs have no trace records
    }

    @Override
    public int drainIntervals(List<Interval> into) {
        FioRun run = fio;
        return run == null ? 0 : run.drainIntervals(into);
    }

    /** Returns at once (RunExecutor calls it on the controller link's thread): fio is stopped on a thread of its own. */
    @Override
    public void stop() {
        stopRequested = true;
        FioRun run = fio;
        if (run != null) {
            Thread stopping = new Thread(run::stop, "qplab-fio-stop");
            stopping.setDaemon(true);
            stopping.start();
        }
    }

    /** This side's summary: the shape protocol's run-summary.schema.json documents for provider nvmeof. */
    @Override
    public String summaryJson() {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("provider", PROVIDER);
        summary.put("transport", spec.transport());
        summary.put("role", role);
        summary.put("side", "server".equals(role) ? "target" : "client".equals(role) ? "initiator" : "local");
        summary.put("device", initiator != null ? initiator.device() : backing != null ? backing.device() : null);
        summary.put("interval_ms", spec.intervalMs());
        Map<String, Object> fioCpu = null;
        List<String> all = new ArrayList<>();
        Map<String, Object> measured = null;
        if (fio != null) {
            try {
                measured = new LinkedHashMap<>(fio.summary());
            } catch (IllegalStateException e) { // fio failed, or printed no final report
                error = "fio on " + summary.get("device") + ": " + e.getMessage();
            }
        }
        if (measured != null) {
            if (measured.remove("cpu") instanceof Map<?, ?> cpu) {
                fioCpu = copy(cpu);
            }
            if (measured.remove("warnings") instanceof List<?> list) {
                list.forEach(w -> all.add(String.valueOf(w)));
            }
            summary.putAll(measured);
        } else {
            summary.put("cycles", 0L);
            summary.put("messages", 0L);
            summary.put("bytes", 0L);
            summary.put("errors", 0L);
        }
        Map<String, Object> hostCost = costSummary();
        Map<String, Object> cpu = hostCost.get("cpu") instanceof Map<?, ?> measuredCpu ? copy(measuredCpu) : null;
        if (fioCpu != null) {
            cpu = cpu != null ? cpu : new LinkedHashMap<>();
            cpu.putAll(fioCpu);
        }
        summary.put("cpu", cpu);
        summary.put("counters", hostCost.get("counters"));
        if (hostCost.get("warnings") instanceof List<?> counted) {
            counted.forEach(w -> all.add(String.valueOf(w)));
        }
        all.addAll(warnings);
        summary.put("warnings", all);
        if (error != null && !(summary.get("error") instanceof String)) {
            summary.put("error", error);
        }
        return JSON.writeValueAsString(summary);
    }

    private static Map<String, Object> copy(Map<?, ?> map) {
        Map<String, Object> copy = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            copy.put(String.valueOf(e.getKey()), e.getValue());
        }
        return copy;
    }

    /**
     * fio closes an interval every interval_ms (100 ms at the least): waking every 5 ms, as for the engine, only took
     * CPU from fio (the initiator) and from the kernel's target work (the target) on a small host. Waking every 250 ms
     * instead of 50 was measured too (bench/nvmeof-vs-fio/notes.md) and was no better.
     */
    @Override
    public Duration drainInterval() {
        return DRAIN_INTERVAL;
    }

    @Override
    public Duration stuckAfter() {
        return STUCK_AFTER;
    }

    /** Tears down everything this side made, in reverse; goes on past a failure and logs it. */
    @Override
    public void close() {
        List<String> problems = new ArrayList<>();
        FioRun run = fio;
        if (run != null) {
            step(problems, "stop fio", () -> run.close());
        }
        if (cost != null) {
            step(problems, "free the cost readings", () -> cost.close());
        }
        if (initiator != null) {
            step(problems, "nvme disconnect", () -> problems.addAll(initiator.close()));
        }
        step(problems, "close the control connection", () -> {
            try (Socket s = peer; ServerSocket c = control) {
                peer = null;
                control = null;
            }
        });
        if (target != null) {
            step(problems, "tear down the target", () -> problems.addAll(target.close()));
        }
        if (backing != null) {
            step(problems, "remove the backing", () -> problems.addAll(backing.close()));
        }
        if (!problems.isEmpty()) {
            Log.info("run " + runId + ": nvmeof teardown left something (the next prepare cleans it up): "
                    + String.join("; ", problems));
        }
    }

    private interface Step {
        void run() throws IOException;
    }

    private static void step(List<String> problems, String what, Step step) {
        try {
            step.run();
        } catch (IOException | RuntimeException e) {
            problems.add(what + ": " + e.getMessage());
        }
    }
}
