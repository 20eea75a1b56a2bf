package org.qplab.controller.api;

import java.io.StringWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import org.springframework.http.MediaType;
import tools.jackson.core.JsonGenerator;
import tools.jackson.dataformat.csv.CsvMapper;
import tools.jackson.dataformat.csv.CsvWriteFeature;

/**
 * The CSV every export writes (RFC 4180, one line per row), through Jackson's CSV generator: a cell is quoted
 * only when it must be (a comma, a double quote, a CR or an LF in it), its quotes doubled. Numbers are written as
 * numbers and unquoted, so a spreadsheet reads them as numbers, a negative one included. Any other cell is text
 * ({@code toString()}): when it starts with {@code = + - @}, a tab or a CR, a spreadsheet would run it as a
 * formula ({@code =HYPERLINK(...)} in an experiment's name), so it gets a leading single quote (OWASP's advice on
 * CSV injection). A null cell is empty.
 *
 * <p>Rows are written as they come; {@link #toString()} ends the document, after which no row may be added.
 */
public final class Csv {

    public static final MediaType MEDIA_TYPE = MediaType.parseMediaType("text/csv;charset=UTF-8");

    /** Strict quoting: only what RFC 4180 requires (the default also quotes spaces and most punctuation). */
    private static final CsvMapper MAPPER = CsvMapper.builder().enable(CsvWriteFeature.STRICT_CHECK_FOR_QUOTING).build();
    private static final String FORMULA_STARTS = "=+-@\t\r";

    private final StringWriter out = new StringWriter();
    private final JsonGenerator generator = MAPPER.createGenerator(out);

    public Csv row(Object... cells) {
        return row(Arrays.asList(cells));
    }

    public Csv row(List<?> cells) {
        generator.writeStartArray();
        for (Object cell : cells) {
            write(cell);
        }
        generator.writeEndArray();
        return this;
    }

    /** The document: every row, each ended by a line feed. */
    @Override
    public String toString() {
        if (!generator.isClosed()) {
            generator.close();
        }
        return out.toString();
    }

    private void write(Object value) {
        if (value == null) {
            // an empty text cell, not writeNull(): without a schema the generator drops a null that starts a row
            generator.writeString("");
        } else if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            generator.writeNumber(((Number) value).longValue());
        } else if (value instanceof Double d) {
            generator.writeNumber(d);
        } else if (value instanceof Float f) {
            generator.writeNumber(f);
        } else if (value instanceof BigDecimal d) {
            generator.writeNumber(d);
        } else if (value instanceof BigInteger i) {
            generator.writeNumber(i);
        } else if (value instanceof Number n) {
            generator.writeNumber(n.toString());
        } else {
            generator.writeString(text(value.toString()));
        }
    }

    /** Text a spreadsheet would take for a formula, made plain text by a leading single quote. */
    static String text(String text) {
        return !text.isEmpty() && FORMULA_STARTS.indexOf(text.charAt(0)) >= 0 ? "'" + text : text;
    }
}
