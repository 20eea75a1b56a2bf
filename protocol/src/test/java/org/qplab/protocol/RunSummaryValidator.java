package org.qplab.protocol;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Validates a run's summary against {@link RunSummarySchema} (networknt's json-schema-validator, test scope). In the
 * protocol test-jar, for the tests of every module that has real summaries: the engine's (tcp), the agent's
 * (nvmeof) and the lab's (verbs, nvmeof over rxe).
 */
public final class RunSummaryValidator {

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final Set<String> KEY_KEYWORDS = Set.of("required", "additionalProperties", "unevaluatedProperties");
    private static final Set<String> DEFINED = definedKeys(JSON.readTree(RunSummarySchema.text()));
    private static final Schema SCHEMA = SchemaRegistry
            .withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
                    registry -> registry.schemaRegistryConfig(SchemaRegistryConfig.builder().locale(Locale.ENGLISH).build()))
            .getSchema(RunSummarySchema.text(), InputFormat.JSON);

    private RunSummaryValidator() {
    }

    /**
     * What is wrong with summary, one line per problem: "PATH: message" (PATH a JSON pointer into the summary, "" for
     * the summary itself); empty when it follows the schema. A key that no provider documents reads as "property
     * 'name' is not evaluated and the schema does not allow unevaluated properties".
     */
    public static List<String> problems(String summaryJson) {
        return problemsOf(JSON.readTree(summaryJson));
    }

    /** As {@link #problems(String)}, of a summary already read into a map (the lab's tests read them so). */
    public static List<String> problems(Map<String, ?> summary) {
        return problemsOf(JSON.valueToTree(summary));
    }

    private static List<String> problemsOf(JsonNode summary) {
        List<Error> errors = SCHEMA.validate(summary);
        // A provider's branch that fails on one key leaves every key it defines "not evaluated" too: while there are
        // other problems, only the keys the schema defines nowhere are reported as such.
        boolean others = errors.stream().anyMatch(e -> !unevaluated(e));
        return errors.stream().filter(e -> !others || !unevaluated(e) || !DEFINED.contains(e.getProperty()))
                .sorted(Comparator.comparing(RunSummaryValidator::unevaluated))
                .map(e -> pointer(e) + ": " + e.getMessage()).distinct().toList();
    }

    private static boolean unevaluated(Error e) {
        return "unevaluatedProperties".equals(e.getKeyword());
    }

    /** The JSON pointer of the offending value; of the key itself for a missing, undefined or unevaluated key. */
    private static String pointer(Error e) {
        StringBuilder path = new StringBuilder();
        for (int i = 0; i < e.getInstanceLocation().getNameCount(); i++) {
            path.append('/').append(e.getInstanceLocation().getName(i));
        }
        if (KEY_KEYWORDS.contains(e.getKeyword()) && e.getProperty() != null) {
            path.append('/').append(e.getProperty());
        }
        return path.toString();
    }

    /** Every key name any "properties" of the schema defines, at any level. */
    private static Set<String> definedKeys(JsonNode schema) {
        Set<String> keys = new HashSet<>();
        List<JsonNode> todo = new ArrayList<>(List.of(schema));
        while (!todo.isEmpty()) {
            JsonNode node = todo.remove(todo.size() - 1);
            if (node.path("properties").isObject()) {
                keys.addAll(node.path("properties").propertyNames());
            }
            node.forEach(todo::add);
        }
        return keys;
    }

    /** Fails, naming the provider, every offending key path and the summary, unless summary follows the schema. */
    public static void assertValid(String summaryJson) {
        check(problems(summaryJson), summaryJson);
    }

    /** As {@link #assertValid(String)}, of a summary read into a map. */
    public static void assertValid(Map<String, ?> summary) {
        check(problems(summary), JSON.writeValueAsString(summary));
    }

    private static void check(List<String> problems, String summaryJson) {
        if (!problems.isEmpty()) {
            Object provider = JSON.readTree(summaryJson).path("provider").asString("(none)");
            throw new AssertionError("the " + provider + " summary does not follow " + RunSummarySchema.RESOURCE
                    + " (document a new key there):\n  " + String.join("\n  ", problems) + "\nsummary: " + summaryJson);
        }
    }
}
