package org.qplab.controller;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.qplab.agent.AgentOption;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * Writes docs/configuration.md: every controller key (from the configuration metadata that
 * spring-boot-configuration-processor builds from the @ConfigurationProperties records, and application.yaml's
 * environment variables), and every agent flag and environment variable (from {@link AgentOption}). Nothing in it
 * is written by hand, so it cannot say a default the code does not have. ConfigurationReferenceTests fails when the
 * committed file differs; {@link #REGENERATE} writes it anew.
 */
public final class ConfigurationReference {

    static final String REGENERATE = "./mvnw -q -B -pl controller -am test -Dtest=ConfigurationReferenceTests "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Dqplab.reference.write=true";

    private static final String METADATA = "META-INF/spring-configuration-metadata.json";
    /** A value of application.yaml that an environment variable can give: ${NAME:fallback}. */
    private static final Pattern ENV_PLACEHOLDER = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*):(.*)}");

    /** A key of application.yaml that an environment variable gives, with the fallback written there. */
    record YamlEnv(String key, String env, String fallback) {}

    private final Path classes;
    private final ObjectMapper json = JsonMapper.builder().build();

    ConfigurationReference(Path classes) {
        this.classes = classes;
    }

    /** The controller's compiled classes (target/classes), where the metadata and application.yaml are. */
    static ConfigurationReference ofBuild() {
        try {
            return new ConfigurationReference(Path.of(QplabApplication.class.getProtectionDomain().getCodeSource()
                    .getLocation().toURI()));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** docs/configuration.md of this checkout. */
    Path document() {
        return classes.resolve("../../../docs/configuration.md").normalize();
    }

    public static void main(String[] args) throws IOException {
        ConfigurationReference reference = ofBuild();
        Files.writeString(reference.document(), reference.render());
        System.out.println("wrote " + reference.document());
    }

    /** qplab's own keys, by name, as the processor described them. */
    Map<String, JsonNode> qplabKeys() {
        Map<String, JsonNode> keys = new TreeMap<>();
        JsonNode metadata = json.readTree(classes.resolve(METADATA).toFile());
        metadata.get("properties").forEach(p -> keys.put(p.get("name").asString(), p));
        return keys;
    }

    /** The keys application.yaml lets an environment variable give, in its order. */
    List<YamlEnv> yamlEnvironment() {
        List<YamlEnv> found = new ArrayList<>();
        flatten("", YAMLMapper.builder().build().readTree(classes.resolve("application.yaml").toFile()), found);
        return found;
    }

    private static void flatten(String prefix, JsonNode node, List<YamlEnv> found) {
        if (node.isObject()) {
            node.properties().forEach(e -> flatten(prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(),
                    e.getValue(), found));
        } else if (node.isString()) {
            Matcher m = ENV_PLACEHOLDER.matcher(node.asString());
            if (m.matches()) {
                found.add(new YamlEnv(prefix, m.group(1), m.group(2)));
            }
        }
    }

    /** Spring Boot's own description of a key, from the metadata of the jars on the class path. */
    private String springDescription(String key) throws IOException {
        for (URL url : Collections.list(getClass().getClassLoader().getResources(METADATA))) {
            try (InputStream in = url.openStream()) {
                for (JsonNode p : json.readTree(in).get("properties")) {
                    if (p.get("name").asString().equals(key) && p.has("description")) {
                        return p.get("description").asString();
                    }
                }
            }
        }
        return "";
    }

    String render() throws IOException {
        Map<String, YamlEnv> env = yamlEnvironment().stream()
                .collect(Collectors.toMap(YamlEnv::key, e -> e, (a, b) -> a, LinkedHashMap::new));
        StringBuilder md = new StringBuilder("""
                # Configuration reference

                <!-- Generated by ConfigurationReference (controller/src/test/java): do not edit. Regenerate with
                     %s -->

                Every setting of the controller and the agent, with its default and what it does. The controller's
                keys come from its `@ConfigurationProperties` records, where each default is written once; the agent's
                flags from its `AgentOption` table.

                ## Controller

                A key is set as `--key=value` after `java -jar qplab-controller.jar`, in an `application.yaml` in the
                working directory, or in the environment: each key also answers to its name in upper case with `.` as
                `_` and `-` left out (Spring Boot's relaxed binding, e.g. `QPLAB_AGENTS_LOSTAFTER=90s`); the
                Environment column names the shorter variable `application.yaml` gives some of them. Durations are
                written like `500ms`, `2s`, `5m`, `1h` or `30d`. "unset" in a meaning says what holds when a key without
                a default is not set.

                """.formatted(REGENERATE));
        md.append("### Server\n\n");
        table(md, "Key");
        for (YamlEnv e : env.values()) {
            if (!e.key().startsWith("qplab.")) {
                row(md, code(e.key()), code(e.env()), e.fallback().isEmpty() ? "" : code(e.fallback()),
                        springDescription(e.key()));
            }
        }
        String group = null;
        for (Map.Entry<String, JsonNode> key : qplabKeys().entrySet()) {
            String name = key.getKey();
            String keyGroup = name.substring(0, name.indexOf('.', "qplab.".length()));
            if (!keyGroup.equals(group)) {
                group = keyGroup;
                md.append("\n### ").append(group).append("\n\n");
                table(md, "Key");
            }
            JsonNode p = key.getValue();
            YamlEnv alias = env.get(name);
            String variable = alias != null ? alias.env() : name.toUpperCase().replace('.', '_').replace("-", "");
            row(md, code(name), code(variable), p.has("defaultValue") ? code(defaultText(p.get("defaultValue"))) : "",
                    p.path("description").asString(""));
        }
        md.append("""

                ## Agent

                `java -jar qplab-agent.jar [FLAG VALUE]...`: a flag wins over its environment variable, which wins over the
                default. `--help` prints the same list.

                """);
        table(md, "Flag");
        for (AgentOption o : AgentOption.values()) {
            String flag = o.flag() == null ? "" : code(o.value() == null ? o.flag() : o.flag() + " " + o.value());
            String fallback = o.defaultValue() != null ? code(o.defaultValue()) : o.whenUnset() == null ? "" : o.whenUnset();
            row(md, flag, o.env() == null ? "" : code(o.env()), fallback, o.meaning());
        }
        return md.toString();
    }

    private static void table(StringBuilder md, String first) {
        md.append("| ").append(first).append(" | Environment | Default | Meaning |\n|---|---|---|---|\n");
    }

    private static void row(StringBuilder md, String... cells) {
        md.append("|");
        for (String cell : cells) {
            md.append(' ').append(cell(cell)).append(" |");
        }
        md.append('\n');
    }

    private static String defaultText(JsonNode value) {
        if (value.isArray()) {
            List<String> items = new ArrayList<>();
            value.forEach(v -> items.add(v.asString()));
            return String.join(",", items);
        }
        return value.asString();
    }

    private static String code(String text) {
        return "`" + text + "`";
    }

    /** Javadoc's inline tags as Markdown, on one line, with the table's separator escaped. */
    private static String cell(String text) {
        return text.replaceAll("\\{@code ([^}]*)}", "`$1`").replaceAll("\\{@link ([^}]*)}", "$1")
                .replaceAll("\\s+", " ").replace("|", "\\|").strip();
    }
}
