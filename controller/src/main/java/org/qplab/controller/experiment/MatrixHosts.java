package org.qplab.controller.experiment;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Pattern;
import org.qplab.controller.api.Violation;
import tools.jackson.databind.JsonNode;

/**
 * The matrix's hosts: reads the hosts forms (loopback, all_pairs, {loopback: [...]}, {pairs: [...]}, {group: [...]})
 * into the client/server pairs every point runs on.
 */
final class MatrixHosts {

    /** Where a run goes: both null is loopback on any agent; only client is loopback on that host. */
    record Pair(String client, String server) {
        static final Pair ANY_LOOPBACK = new Pair(null, null);
    }

    private static final String HOSTS_FORMS = "must be loopback (any agent), all_pairs (every pair of the agents "
            + "connected now), {loopback: [host, ...]}, {pairs: [[client, server], ...]} or {group: [host, ...]} (every "
            + "pair of the group, in rounds of pairs that share no host)";
    private static final Pattern HOST_NAME = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

    private MatrixHosts() {
    }

    /** As read(node, null, violations): all_pairs refused, no agents being known. */
    static List<Pair> read(JsonNode node, List<Violation> violations) {
        return read(node, null, violations);
    }

    /**
     * Never empty: a matrix whose hosts are all refused still counts as running once, on loopback. connected: the
     * agents connected now, by id (all_pairs makes a group of them, sorted); null when not known.
     */
    static List<Pair> read(JsonNode node, Collection<String> connected, List<Violation> violations) {
        List<Pair> where = new ArrayList<>();
        if (node == null || node.isNull() || (node.isString() && node.stringValue().equals("loopback"))) {
            where.add(Pair.ANY_LOOPBACK);
            return where;
        }
        if (node.isString() && node.stringValue().equals("all_pairs")) {
            List<String> agents = connected == null ? List.of() : connected.stream().sorted().toList();
            if (agents.size() < 2) {
                violations.add(new Violation("hosts", "all_pairs needs at least two connected agents; connected now: "
                        + (agents.isEmpty() ? "none" : agents.get(0)) + " (name the hosts with {group: [host, ...]} to "
                        + "queue runs for agents that connect later)"));
                where.add(Pair.ANY_LOOPBACK);
            } else {
                where.addAll(rounds(agents));
            }
            return where;
        }
        if (!node.isObject() || node.size() != 1) {
            violations.add(new Violation("hosts", HOSTS_FORMS));
            where.add(Pair.ANY_LOOPBACK);
            return where;
        }
        String form = node.propertyNames().iterator().next();
        JsonNode list = node.get(form);
        String field = "hosts." + form;
        if (!list.isArray() || list.isEmpty()) {
            violations.add(new Violation(field, "must be a non-empty list"));
        } else if (form.equals("loopback") || form.equals("group")) {
            List<String> names = names(list, field, violations);
            if (form.equals("loopback")) {
                names.forEach(n -> where.add(new Pair(n, null)));
            } else if (names.size() < 2) {
                violations.add(new Violation(field, "needs at least two hosts to make a pair"));
            } else {
                where.addAll(rounds(names));
            }
        } else if (form.equals("pairs")) {
            pairs(list, field, where, violations);
        } else {
            violations.add(new Violation("hosts", HOSTS_FORMS + "; got " + form));
        }
        if (where.isEmpty()) {
            where.add(Pair.ANY_LOOPBACK);
        }
        return where;
    }

    /**
     * Every pair of a group, in n−1 rounds of n/2 pairs that share no host (the circle method; an odd group has one
     * host idle in each round), as ClusterKit tests a fabric. The scheduler runs one benchmark per host at a time
     * and holds busy hosts for the runs first in the queue, so a round's pairs start together and the next round's
     * wait for their hosts, instead of one host's pairs queuing behind each other (a, b), (a, c), (a, d) while the
     * others idle. In each pair the host listed first in the group is the client.
     */
    static List<Pair> rounds(List<String> group) {
        int n = group.size() + group.size() % 2; // an odd group gets a bye: the position past its last host
        List<Pair> pairs = new ArrayList<>(group.size() * (group.size() - 1) / 2);
        for (int round = 0; round < n - 1; round++) {
            // position 0 stays, the others turn one place per round; position i meets position n-1-i
            for (int i = 0; i < n / 2; i++) {
                int x = i == 0 ? 0 : 1 + (i - 1 + round) % (n - 1);
                int y = 1 + (n - 2 - i + round) % (n - 1);
                if (x < group.size() && y < group.size()) {
                    pairs.add(new Pair(group.get(Math.min(x, y)), group.get(Math.max(x, y))));
                }
            }
        }
        return pairs;
    }

    private static List<String> names(JsonNode list, String field, List<Violation> violations) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String name = hostName(list.get(i), field + "[" + i + "]", violations);
            if (name != null && names.contains(name)) {
                violations.add(new Violation(field + "[" + i + "]", "lists " + name + " twice"));
            } else if (name != null) {
                names.add(name);
            }
        }
        return names;
    }

    private static void pairs(JsonNode list, String field, List<Pair> where, List<Violation> violations) {
        for (int i = 0; i < list.size(); i++) {
            JsonNode pair = list.get(i);
            String at = field + "[" + i + "]";
            if (!pair.isArray() || pair.size() != 2) {
                violations.add(new Violation(at, "must be [client, server]"));
                continue;
            }
            String client = hostName(pair.get(0), at + "[0]", violations);
            String server = hostName(pair.get(1), at + "[1]", violations);
            if (client != null && client.equals(server)) {
                violations.add(new Violation(at, "client and server are both " + client
                        + "; for one host use {loopback: [" + client + "]}"));
            } else if (client != null && server != null) {
                where.add(new Pair(client, server));
            }
        }
    }

    private static String hostName(JsonNode node, String field, List<Violation> violations) {
        if (node.isString() && HOST_NAME.matcher(node.stringValue()).matches()) {
            return node.stringValue();
        }
        violations.add(new Violation(field, "must be a host (agent) name: 1-128 characters of A-Z a-z 0-9 . _ : -, got " + node));
        return null;
    }
}
