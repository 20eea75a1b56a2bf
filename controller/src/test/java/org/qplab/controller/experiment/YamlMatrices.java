package org.qplab.controller.experiment;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.qplab.controller.api.Violation;
import org.springframework.http.MediaType;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/** Matrices read from YAML and expanded as a submit does (up to 10,000 runs), for the expander's unit tests. */
final class YamlMatrices {

    final MatrixReader reader;
    private final MatrixExpander expander;
    /** The hosts a controller would judge against (its agents connected now and the hosts it knows), or null. */
    private final HostCapabilities hosts;

    private YamlMatrices(Function<String, Map<String, Object>> connectedFacts) {
        ObjectMapper json = JsonMapper.builder().build();
        this.reader = new MatrixReader(json);
        this.expander = connectedFacts == null ? new MatrixExpander(json, 10_000)
                : new MatrixExpander(json, 10_000, connectedFacts);
        this.hosts = null;
    }

    private YamlMatrices(HostCapabilities hosts) {
        ObjectMapper json = JsonMapper.builder().build();
        this.reader = new MatrixReader(json);
        this.expander = new MatrixExpander(json, 10_000);
        this.hosts = hosts;
    }

    /** As a controller judges: connected, every connected agent's facts by id; known, the hosts it knows. */
    static YamlMatrices asAController(Map<String, Map<String, Object>> connected,
                                      Map<String, HostCapabilities.Offline> known) {
        return new YamlMatrices(new HostCapabilities(connected::get, connected, known));
    }

    /** No host connected: nothing is checked against a host's facts. */
    static YamlMatrices withoutHosts() {
        return new YamlMatrices((Function<String, Map<String, Object>>) null);
    }

    /** The connected hosts' hello facts by agent id (null: not connected). */
    static YamlMatrices withHosts(Function<String, Map<String, Object>> connectedFacts) {
        return new YamlMatrices(connectedFacts);
    }

    Matrix expand(String yaml) {
        var tree = reader.read(yaml.getBytes(), MediaType.parseMediaType("application/yaml"));
        return hosts == null ? expander.expand(tree) : expander.expand(tree, hosts);
    }

    /** Every violation of a matrix that must be refused; AssertionError when it is accepted. */
    List<Violation> violationsOf(String yaml) {
        try {
            expand(yaml);
        } catch (InvalidMatrixException e) {
            return e.violations();
        }
        throw new AssertionError("the matrix was accepted");
    }
}
