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

    private YamlMatrices(Function<String, Map<String, Object>> connectedFacts) {
        ObjectMapper json = JsonMapper.builder().build();
        this.reader = new MatrixReader(json);
        this.expander = connectedFacts == null ? new MatrixExpander(json, 10_000)
                : new MatrixExpander(json, 10_000, connectedFacts);
    }

    /** No host connected: nothing is checked against a host's facts. */
    static YamlMatrices withoutHosts() {
        return new YamlMatrices(null);
    }

    /** The connected hosts' hello facts by agent id (null: not connected). */
    static YamlMatrices withHosts(Function<String, Map<String, Object>> connectedFacts) {
        return new YamlMatrices(connectedFacts);
    }

    Matrix expand(String yaml) {
        return expander.expand(reader.read(yaml.getBytes(), MediaType.parseMediaType("application/yaml")));
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
