package org.qplab.controller.experiment;

import java.util.ArrayList;
import java.util.List;
import org.qplab.controller.api.ValidText;
import org.qplab.controller.api.Violation;
import org.springframework.http.MediaType;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/** Reads a submitted matrix body as JSON or YAML, by its Content-Type; refuses text {@link ValidText} refuses, anywhere in it. */
public final class MatrixReader {

    private static final List<MediaType> YAML = List.of(MediaType.parseMediaType("application/yaml"),
            MediaType.parseMediaType("application/x-yaml"), MediaType.parseMediaType("text/yaml"),
            MediaType.parseMediaType("text/x-yaml"));

    private final ObjectMapper json;
    private final ObjectMapper yaml = YAMLMapper.builder().build();

    public MatrixReader(ObjectMapper json) {
        this.json = json;
    }

    public JsonNode read(byte[] body, MediaType contentType) {
        if (contentType == null) {
            throw invalid("Content-Type", "is missing: send the matrix as application/json or application/yaml");
        }
        boolean isJson = MediaType.APPLICATION_JSON.isCompatibleWith(contentType);
        boolean isYaml = YAML.stream().anyMatch(y -> y.isCompatibleWith(contentType));
        if (!isJson && !isYaml) {
            throw invalid("Content-Type", "must be application/json or application/yaml, got " + contentType);
        }
        if (body.length == 0) {
            throw invalid("", "the request body is empty: send a matrix");
        }
        JsonNode tree;
        try {
            tree = (isJson ? json : yaml).readTree(body);
        } catch (JacksonException e) {
            throw invalid("", SyntaxError.of(e, isJson ? "JSON" : "YAML", body));
        }
        List<Violation> invalidText = new ArrayList<>();
        ValidText.check(tree, invalidText);
        if (!invalidText.isEmpty()) {
            throw new InvalidMatrixException(invalidText);
        }
        return tree;
    }

    private static InvalidMatrixException invalid(String field, String message) {
        return new InvalidMatrixException(List.of(new Violation(field, message)));
    }
}
