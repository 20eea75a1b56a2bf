package org.qplab.controller.experiment;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.media.Schema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.qplab.engine.Engine;
import org.qplab.engine.nvmeof.NvmeofProviderSpec;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The OpenAPI document's Matrix shows the engine's own rules, read from the engine (qpb_spec_schema), not copied:
 * every parameter a matrix may set, its type, its bounds or choices, and whether only verbs takes it, as the
 * extension x-engine-parameters and in base's description. What the table cannot say (the rules between keys)
 * the engine checks at submit and at POST /api/experiments/validate ({@link SpecCheck}).
 */
@Component
class EngineRulesDocument implements OpenApiCustomizer {

    static final String EXTENSION = "x-engine-parameters";

    private final ObjectMapper json;

    EngineRulesDocument(ObjectMapper json) {
        this.json = json;
    }

    @Override
    public void customise(OpenAPI api) {
        Schema<?> matrix = api.getComponents() == null || api.getComponents().getSchemas() == null ? null
                : api.getComponents().getSchemas().get("Matrix");
        if (matrix == null) {
            return;
        }
        List<Map<String, Object>> parameters = new ArrayList<>();
        StringBuilder lines = new StringBuilder();
        for (JsonNode key : json.readTree(Engine.specSchema())) {
            String name = key.get("name").stringValue();
            if (ProviderKeys.byKey(name).isEmpty()) {
                continue; // set by the controller or the agent (role, bind, port), not by a matrix
            }
            Map<String, Object> parameter = json.convertValue(key, LinkedHashMap.class);
            parameter.remove("default"); // the document shows what it showed before the schema had them
            parameter.remove("format");
            parameters.add(parameter);
            lines.append("\n- `").append(name).append("`: ").append(key.get("type").stringValue());
            if (key.has("minimum")) {
                lines.append(' ').append(key.get("minimum").asLong()).append("..").append(key.get("maximum").asLong());
            }
            if (key.has("enum")) {
                List<String> choices = new ArrayList<>();
                key.get("enum").forEach(c -> choices.add(c.stringValue()));
                lines.append(" (").append(String.join(", ", choices)).append(')');
            }
            if (key.get("verbs_only").asBoolean()) {
                lines.append(", verbs only");
            }
        }
        matrix.addExtension(EXTENSION, parameters);
        Schema<?> base = matrix.getProperties() == null ? null : (Schema<?>) matrix.getProperties().get("base");
        if (base != null) {
            base.setDescription((base.getDescription() == null ? "" : base.getDescription() + "\n\n")
                    + "The engine's parameters (its spec table; sizes also as \"4K\", \"1MiB\"); the rules between "
                    + "them are the engine's too, checked at submit and by POST /api/experiments/validate:" + lines
                    + "\n\nProvider nvmeof (fio on NVMe-oF; the server host is the target, the client the initiator; "
                    + "transport rdma (default), tcp, or local: fio on the target's own backing device, a loopback run "
                    + "there) takes these instead, its ranges and rules checked at submit as the agent checks them "
                    + "(NvmeofSpec):" + nvmeofLines());
        }
    }

    private static String nvmeofLines() {
        StringBuilder lines = new StringBuilder();
        for (ProviderKey p : ProviderKeys.all()) {
            if (p.providers().equals(NvmeofProviderSpec.NVMEOF.providers())) {
                lines.append("\n- `").append(p.key()).append("`: ").append(switch (p.kind()) {
                    case INT -> "integer";
                    case SIZE -> "size (bytes)";
                    case BOOL -> "boolean";
                    case CHOICE -> "string (" + String.join(", ", p.choices()) + ")";
                    case TEXT -> "string";
                });
            }
        }
        return lines.toString();
    }
}
