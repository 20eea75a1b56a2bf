package org.qplab.controller.api;

import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * What the API takes as text, in a name, a matrix, an import or a query parameter: no NUL (PostgreSQL refuses
 * it in text and JSON, which answered 500), no other control character but tab, CR and LF, and no half of a
 * surrogate pair (not Unicode). Query parameters and path variables are checked for every endpoint by
 * {@link RequestText}; a body is checked where it is read, naming the field it is in.
 */
public final class ValidText {

    private ValidText() {}

    /** Why this text is refused, or null when it is fine. */
    public static String problem(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            String at = " at character " + (i + 1);
            if (c == 0) {
                return "contains a NUL character (U+0000)" + at + "; text must not contain control characters"
                        + " other than tab, CR and LF";
            }
            if (Character.isISOControl(c) && c != '\t' && c != '\r' && c != '\n') {
                return "contains the control character " + codePoint(c) + at + "; text must not contain control"
                        + " characters other than tab, CR and LF";
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return "contains an unpaired surrogate " + codePoint(c) + at + ", which is not Unicode text";
            }
        }
        return null;
    }

    /** Adds a violation at field when the text is refused; null is fine. */
    public static void check(String field, String text, List<Violation> violations) {
        String problem = text == null ? null : problem(text);
        if (problem != null) {
            violations.add(new Violation(field, problem));
        }
    }

    /** Checks every string and every key of a JSON (or YAML) tree; fields are paths such as dimensions.msg_size[2]. */
    public static void check(JsonNode node, List<Violation> violations) {
        check("", node, violations);
    }

    private static void check(String path, JsonNode node, List<Violation> violations) {
        if (node.isString()) {
            check(path.isEmpty() ? "(the body)" : path, node.stringValue(), violations);
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                check(path + "[" + i + "]", node.get(i), violations);
            }
        } else if (node.isObject()) {
            for (Map.Entry<String, JsonNode> property : node.properties()) {
                String key = property.getKey();
                String problem = problem(key);
                String field = (path.isEmpty() ? "" : path + ".") + (problem == null ? key : printable(key));
                if (problem != null) {
                    violations.add(new Violation(field, "the key " + problem));
                } else {
                    check(field, property.getValue(), violations);
                }
            }
        }
    }

    /** The text with each character it may not contain written as U+XXXX, to name a field whose key is refused. */
    public static String printable(String text) {
        StringBuilder out = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean paired = Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1));
            if (paired) {
                out.append(c).append(text.charAt(++i));
            } else if (c != '\t' && c != '\r' && c != '\n' && (Character.isISOControl(c) || Character.isSurrogate(c))) {
                out.append(codePoint(c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static String codePoint(char c) {
        return String.format("U+%04X", (int) c);
    }
}
