package org.qplab.controller.api;

import java.util.Arrays;
import java.util.List;
import org.springframework.http.MediaType;

/**
 * The CSV every export writes (RFC 4180, one line per row): numbers are written as they are and unquoted, so a
 * spreadsheet reads them as numbers, a negative one included. Any other cell is text: when it starts with
 * {@code = + - @}, a tab or a CR, a spreadsheet would run it as a formula ({@code =HYPERLINK(...)} in an
 * experiment's name), so it gets a leading single quote (OWASP's advice on CSV injection); a cell with a comma,
 * a double quote, a CR or an LF is quoted, its quotes doubled. A null cell is empty.
 */
public final class Csv {

    public static final MediaType MEDIA_TYPE = MediaType.parseMediaType("text/csv;charset=UTF-8");

    private final StringBuilder out = new StringBuilder();

    public Csv row(Object... cells) {
        return row(Arrays.asList(cells));
    }

    public Csv row(List<?> cells) {
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            out.append(cell(cells.get(i)));
        }
        out.append('\n');
        return this;
    }

    @Override
    public String toString() {
        return out.toString();
    }

    static String cell(Object value) {
        if (value == null) {
            return "";
        }
        if (value instanceof Number) {
            return value.toString();
        }
        String text = value.toString();
        if (!text.isEmpty() && "=+-@\t\r".indexOf(text.charAt(0)) >= 0) {
            text = "'" + text;
        }
        if (text.indexOf(',') >= 0 || text.indexOf('"') >= 0 || text.indexOf('\r') >= 0 || text.indexOf('\n') >= 0) {
            text = '"' + text.replace("\"", "\"\"") + '"';
        }
        return text;
    }
}
