package org.qplab.controller.experiment;

import java.nio.charset.StandardCharsets;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;

/**
 * A body that is not JSON or YAML at all, said as the parser found it: where (line and column, 1-based), what (the
 * parser's problem, and for YAML the construct it was reading, SnakeYAML's context), and the lines up to there with a
 * caret under the spot, for a monospace block:
 *
 * <pre>
 * malformed YAML at line 3, column 1: found character '\t' that cannot start any token ...
 *   2 | base:
 *   3 | →msg_size: 64
 *     | ^
 * </pre>
 *
 * YAML's position is SnakeYAML's problem mark (where it stopped understanding), not the token Jackson last read.
 */
final class SyntaxError {

    /** A line longer than this is shown as the part around the column. */
    private static final int WIDTH = 100;

    private SyntaxError() {
    }

    static String of(JacksonException e, String format, byte[] body) {
        MarkedYamlEngineException yaml = yamlCause(e);
        Mark mark = yaml == null ? null : yaml.getProblemMark().orElse(null);
        int line;
        int column;
        String problem;
        if (mark != null) {
            line = mark.getLine() + 1;
            column = mark.getColumn() + 1;
            problem = yaml.getProblem();
            Mark context = yaml.getContextMark().orElse(null);
            if (yaml.getContext() != null && context != null) {
                problem += " (" + yaml.getContext() + " at line " + (context.getLine() + 1) + ", column "
                        + (context.getColumn() + 1) + ")";
            }
        } else {
            TokenStreamLocation at = e.getLocation();
            line = at == null ? -1 : at.getLineNr();
            column = at == null ? -1 : at.getColumnNr();
            problem = e.getOriginalMessage();
        }
        if (line < 1 || column < 1) {
            return "malformed " + format + ": " + problem;
        }
        return "malformed " + format + " at line " + line + ", column " + column + ": " + problem + "\n"
                + caret(new String(body, StandardCharsets.UTF_8), line, column);
    }

    /**
     * The line before (when there is one) and the line itself, numbered, then a caret under column; a long line is
     * shown from WIDTH / 2 characters before the column, after an ellipsis.
     */
    static String caret(String text, int line, int column) {
        String[] lines = text.split("\r\n|\r|\n", -1);
        int gutter = String.valueOf(line).length();
        int from = column > WIDTH ? column - 1 - WIDTH / 2 : 0;
        StringBuilder out = new StringBuilder();
        for (int n = Math.max(1, line - 1); n <= line; n++) {
            out.append(pad(String.valueOf(n), gutter)).append(" | ").append(shown(lines, n, from)).append('\n');
        }
        String at = line <= lines.length ? lines[line - 1] : "";
        StringBuilder under = new StringBuilder(from > 0 ? " " : "");
        for (int i = from; i < column - 1; i++) {
            under.append(i < at.length() && at.charAt(i) == '\t' ? '\t' : ' ');
        }
        return out.append(" ".repeat(gutter)).append(" | ").append(under).append('^').toString();
    }

    /** Line n (1-based; empty past the end) from character from, at most WIDTH characters of it. */
    private static String shown(String[] lines, int n, int from) {
        String line = n <= lines.length ? lines[n - 1] : "";
        String part = from >= line.length() ? "" : line.substring(from);
        return (from > 0 ? "…" : "") + (part.length() > WIDTH ? part.substring(0, WIDTH) + "…" : part);
    }

    private static String pad(String number, int width) {
        return " ".repeat(width - number.length()) + number;
    }

    private static MarkedYamlEngineException yamlCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof MarkedYamlEngineException marked) {
                return marked;
            }
        }
        return null;
    }
}
