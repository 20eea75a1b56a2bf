package org.qplab.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;

/**
 * Holds every answer the generated client receives to the OpenAPI document it was generated from: the operation
 * must be there, its status declared (exactly, as nXX, or as default) and its Content-Type among the declared ones.
 * The generated client only tells 2xx from the rest, so without this a 200 where the document says 201, or a 404 it
 * never mentions, would pass.
 */
final class DocumentedResponses implements Consumer<HttpResponse<InputStream>> {

    private static final Pattern VARIABLE = Pattern.compile("\\{[^}/]+}");

    private record Template(Pattern pattern, int variables, JsonNode operations) {}

    private final List<Template> templates = new ArrayList<>();
    private final List<String> undocumented = new CopyOnWriteArrayList<>();

    DocumentedResponses(JsonNode document) {
        for (Map.Entry<String, JsonNode> path : document.path("paths").properties()) {
            Matcher variable = VARIABLE.matcher(path.getKey());
            StringBuilder regex = new StringBuilder();
            int variables = 0;
            int literal = 0;
            while (variable.find()) {
                regex.append(Pattern.quote(path.getKey().substring(literal, variable.start()))).append("[^/]+");
                literal = variable.end();
                variables++;
            }
            regex.append(Pattern.quote(path.getKey().substring(literal)));
            templates.add(new Template(Pattern.compile(regex.toString()), variables, path.getValue()));
        }
        templates.sort(Comparator.comparingInt(Template::variables)); // /experiments/validate before /experiments/{id}
    }

    @Override
    public void accept(HttpResponse<InputStream> response) {
        String method = response.request().method();
        String path = response.uri().getPath();
        String call = method + " " + path + " answered " + response.statusCode();
        JsonNode operation = templates.stream().filter(t -> t.pattern().matcher(path).matches())
                .map(t -> t.operations().get(method.toLowerCase(Locale.ROOT))).filter(o -> o != null).findFirst().orElse(null);
        if (operation == null) {
            undocumented.add(call + ": the document has no such operation");
            return;
        }
        JsonNode responses = operation.path("responses");
        String status = String.valueOf(response.statusCode());
        JsonNode declared = responses.has(status) ? responses.get(status)
                : responses.has(status.charAt(0) + "XX") ? responses.get(status.charAt(0) + "XX") : responses.get("default");
        if (declared == null) {
            undocumented.add(call + ": the document declares only " + names(responses));
            return;
        }
        String type = response.headers().firstValue("Content-Type").map(t -> t.split(";")[0].strip()).orElse(null);
        JsonNode content = declared.path("content");
        if (type != null && !content.isEmpty() && names(content).stream().noneMatch(declaredType -> matches(declaredType, type))) {
            undocumented.add(call + " as " + type + ": the document declares " + names(content));
        }
    }

    /** What no declaration covered since the last call, and forgets it. */
    List<String> takeUndocumented() {
        List<String> taken = List.copyOf(undocumented);
        undocumented.clear();
        return taken;
    }

    private static boolean matches(String declared, String actual) {
        String[] d = declared.toLowerCase(Locale.ROOT).split("/");
        String[] a = actual.toLowerCase(Locale.ROOT).split("/");
        return d.length == 2 && a.length == 2 && (d[0].equals("*") || d[0].equals(a[0])) && (d[1].equals("*") || d[1].equals(a[1]));
    }

    private static List<String> names(JsonNode object) {
        return StreamSupport.stream(object.properties().spliterator(), false).map(Map.Entry::getKey).toList();
    }
}
