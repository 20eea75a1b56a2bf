package org.qplab.controller.imports;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads JSON and the looser dialect perftest 4.5 writes with --out_json: bare keys and values
 * ({@code test: RDMA_Write_BW_Test,}), a comma after the last member, a space before a colon, a dot
 * in a bare key ({@code percentile_99.9}). Every value remembers where it starts, so whoever reads
 * the tree can name the line of a bad value; a syntax error names its line and column.
 */
final class LooseJson {

    /** A string, a bare word (numbers, true, false and null included) as written, an object or an array. */
    record Value(Object content, int line, int column, int endLine) {

        boolean isObject() {
            return content instanceof Map;
        }

        boolean isText() {
            return content instanceof String;
        }

        @SuppressWarnings("unchecked")
        Map<String, Value> members() {
            return isObject() ? (Map<String, Value>) content : Map.of();
        }

        String text() {
            return isText() ? (String) content : null;
        }
    }

    /** Not readable as JSON or perftest's dialect of it; line and column are 1-based. */
    static final class Malformed extends RuntimeException {
        private final int line;
        private final int column;

        Malformed(int line, int column, String message) {
            super(message);
            this.line = line;
            this.column = column;
        }

        int line() {
            return line;
        }

        int column() {
            return column;
        }
    }

    private static final int MAX_DEPTH = 32;
    private static final String DELIMITERS = "{}[],:\"";

    private final String text;
    private int pos;
    private int line = 1;
    private int lineStart;

    private LooseJson(String text) {
        this.text = text;
    }

    /**
     * The value a text holds, and the closing braces found after it and left out ({@link #readRepairing}):
     * how many, and the line of the first (0 when none).
     */
    record Read(Value value, int extraBraces, int extraLine) {}

    /** The one value the text holds; anything but white space after it is an error. */
    static Value read(String text) {
        return read(text, false).value();
    }

    /**
     * As {@link #read}, except that closing braces after the value, with white space at most around and between
     * them, are left out instead of refused: some perftest versions end their --out_json file with more closing
     * braces than they opened. Anything else after the value is still an error, at its first character that is
     * not such a brace.
     */
    static Read readRepairing(String text) {
        return read(text, true);
    }

    private static Read read(String text, boolean repairBraces) {
        LooseJson reader = new LooseJson(text);
        reader.skipSpace();
        if (reader.pos == text.length()) {
            throw reader.error("the file is empty");
        }
        Value value = reader.value(0);
        reader.skipSpace();
        int braces = 0;
        int braceLine = 0;
        while (repairBraces && reader.pos < text.length() && text.charAt(reader.pos) == '}') {
            if (braces++ == 0) {
                braceLine = reader.line;
            }
            reader.pos++;
            reader.skipSpace();
        }
        if (reader.pos < text.length()) {
            throw reader.error("unexpected '" + text.charAt(reader.pos) + "' after the value that ended on line "
                    + value.endLine());
        }
        return new Read(value, braces, braceLine);
    }

    private Value value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("nested deeper than " + MAX_DEPTH + " levels");
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> object(depth);
            case '[' -> array(depth);
            case '"' -> {
                int startLine = line;
                int startColumn = column();
                yield new Value(string(), startLine, startColumn, line);
            }
            default -> {
                int startLine = line;
                int startColumn = column();
                String word = bareWord();
                if (word.isEmpty()) {
                    throw error("expected a value, found '" + c + "'");
                }
                yield new Value(word, startLine, startColumn, line);
            }
        };
    }

    private Value object(int depth) {
        int startLine = line;
        int startColumn = column();
        pos++;
        Map<String, Value> members = new LinkedHashMap<>();
        while (true) {
            skipSpace();
            expectMore("the object opened on line " + startLine);
            if (text.charAt(pos) == '}') {
                pos++;
                return new Value(Collections.unmodifiableMap(members), startLine, startColumn, line);
            }
            int keyLine = line;
            int keyColumn = column();
            String key = text.charAt(pos) == '"' ? string() : bareWord();
            if (key.isEmpty()) {
                throw error("expected a key or '}' in the object opened on line " + startLine + ", found '"
                        + text.charAt(pos) + "'");
            }
            if (members.containsKey(key)) {
                throw new Malformed(keyLine, keyColumn, "\"" + key + "\" appears twice in the object opened on line "
                        + startLine);
            }
            skipSpace();
            expectMore("the object opened on line " + startLine);
            if (text.charAt(pos) != ':') {
                throw error("expected ':' after the key \"" + key + "\", found '" + text.charAt(pos) + "'");
            }
            pos++;
            skipSpace();
            expectMore("the object opened on line " + startLine);
            members.put(key, value(depth + 1));
            if (!separator('}', "the object opened on line " + startLine)) {
                pos++;
                return new Value(Collections.unmodifiableMap(members), startLine, startColumn, line);
            }
        }
    }

    private Value array(int depth) {
        int startLine = line;
        int startColumn = column();
        pos++;
        List<Value> items = new ArrayList<>();
        while (true) {
            skipSpace();
            expectMore("the array opened on line " + startLine);
            if (text.charAt(pos) == ']') {
                pos++;
                return new Value(List.copyOf(items), startLine, startColumn, line);
            }
            items.add(value(depth + 1));
            if (!separator(']', "the array opened on line " + startLine)) {
                pos++;
                return new Value(List.copyOf(items), startLine, startColumn, line);
            }
        }
    }

    /** After a member or item: true at a ',' (consumed), false at the closing bracket (left for the caller). */
    private boolean separator(char close, String inside) {
        skipSpace();
        expectMore(inside);
        char c = text.charAt(pos);
        if (c == ',') {
            pos++;
            return true;
        }
        if (c == close) {
            return false;
        }
        throw error("expected ',' or '" + close + "' in " + inside + ", found '" + c + "'");
    }

    private String string() {
        int startLine = line;
        pos++;
        StringBuilder s = new StringBuilder();
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == '"') {
                pos++;
                return s.toString();
            }
            if (c == '\n') {
                throw error("a line break inside the string opened on line " + startLine);
            }
            if (c == '\\') {
                pos++;
                expectMore("the string opened on line " + startLine);
                char e = text.charAt(pos);
                switch (e) {
                    case '"', '\\', '/' -> s.append(e);
                    case 'b' -> s.append('\b');
                    case 'f' -> s.append('\f');
                    case 'n' -> s.append('\n');
                    case 'r' -> s.append('\r');
                    case 't' -> s.append('\t');
                    case 'u' -> {
                        if (pos + 4 >= text.length()
                                || !text.substring(pos + 1, pos + 5).matches("[0-9a-fA-F]{4}")) {
                            throw error("\\u needs four hex digits");
                        }
                        s.append((char) Integer.parseInt(text.substring(pos + 1, pos + 5), 16));
                        pos += 4;
                    }
                    default -> throw error("unknown escape '\\" + e + "'");
                }
                pos++;
                continue;
            }
            s.append(c);
            pos++;
        }
        throw atEnd("the file ends inside the string opened on line " + startLine + ": truncated?");
    }

    /** A bare word runs to a delimiter or the end of its line; spaces inside it stay, around it go. */
    private String bareWord() {
        int start = pos;
        while (pos < text.length() && text.charAt(pos) != '\n' && DELIMITERS.indexOf(text.charAt(pos)) < 0) {
            pos++;
        }
        return text.substring(start, pos).strip();
    }

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            if (text.charAt(pos) == '\n') {
                line++;
                lineStart = pos + 1;
            }
            pos++;
        }
    }

    private void expectMore(String inside) {
        if (pos >= text.length()) {
            throw atEnd("the file ends inside " + inside + ": truncated?");
        }
    }

    /** An error at the file's last character that is not white space: where a truncated file stops. */
    private Malformed atEnd(String message) {
        int last = text.length() - 1;
        while (last > 0 && Character.isWhitespace(text.charAt(last))) {
            last--;
        }
        int lastLine = 1 + (int) text.substring(0, last).chars().filter(c -> c == '\n').count();
        return new Malformed(lastLine, last - text.lastIndexOf('\n', last - 1), message);
    }

    private int column() {
        return pos - lineStart + 1;
    }

    private Malformed error(String message) {
        return new Malformed(line, column(), message);
    }
}
