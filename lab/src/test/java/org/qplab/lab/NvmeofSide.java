package org.qplab.lab;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.qplab.agent.nvmeof.Leftovers;
import org.qplab.agent.nvmeof.NvmeofHost;
import org.qplab.agent.nvmeof.NvmeofSession;
import org.qplab.protocol.Interval;
import tools.jackson.databind.json.JsonMapper;

/**
 * One side of an nvmeof run driven as RunExecutor drives it (create, endpoint, connect, start, drain until the end,
 * summary, close), run inside a lab VM by {@link NvmeofAgentIntegrationTests}: the peer's endpoint arrives as a
 * file. Prints PID, ENDPOINT, CONNECTED, STARTED, SUMMARY and CLOSED lines. With "cleanup" as the only
 * argument after the id, runs {@link Leftovers#clean} and prints its report.
 * <p>Usage: NvmeofSide ID ADDRESS cleanup | NvmeofSide ID ADDRESS ROLE RUN_ID SPEC_JSON_BASE64 PEER_FILE
 * (base64: no quoting through the shells of lab ssh)
 */
public final class NvmeofSide {

    private NvmeofSide() {
    }

    public static void main(String[] args) throws Exception {
        NvmeofHost host = NvmeofHost.of(args[0], List.of(), () -> args[1]);
        System.out.println("PID " + ProcessHandle.current().pid());
        if (args[2].equals("cleanup")) {
            System.out.println("LEFTOVERS " + Leftovers.clean(host));
            return;
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = JsonMapper.builder().build().readValue(Base64.getDecoder().decode(args[4]), Map.class);
        spec.put("role", args[2]);
        try (NvmeofSession session = NvmeofSession.create(Long.parseLong(args[3]), spec, host)) {
            System.out.println("ENDPOINT " + session.localEndpoint());
            if (!args[2].equals("loopback")) {
                Path peer = Path.of(args[5]);
                for (int i = 0; i < 1200 && !Files.exists(peer); i++) {
                    Thread.sleep(100);
                }
                session.connect(Files.readString(peer).strip());
                System.out.println("CONNECTED");
            }
            session.start();
            System.out.println("STARTED");
            List<Interval> intervals = new ArrayList<>();
            boolean ended = false;
            while (!ended) {
                ended = session.awaitEnd(Duration.ofMillis(5));
                session.drainIntervals(intervals);
            }
            while (session.drainIntervals(intervals) > 0) {
                // the last ones
            }
            System.out.println("INTERVALS " + intervals.size() + " " + intervals.stream().mapToLong(Interval::cycles).sum());
            System.out.println("SUMMARY " + session.summaryJson());
        }
        System.out.println("CLOSED");
    }
}
