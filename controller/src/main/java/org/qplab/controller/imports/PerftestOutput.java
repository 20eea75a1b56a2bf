package org.qplab.controller.imports;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One perftest report: its header and one row per message size, read from perftest's text output
 * by {@link #parse} (ib_send_bw, ib_write_bw, ib_read_bw, ib_send_lat, ib_write_lat, ib_read_lat;
 * one size or -a over all sizes) or from its --out_json file by {@link PerftestJson}, under the
 * same names either way. Anything that does not read as perftest output is refused naming the line,
 * the output of a run that failed quoting perftest's error lines.
 *
 * <pre>
 *                     Send BW Test
 *  Dual-port       : OFF          Device         : rxe0
 *  Number of qps   : 1            Transport type : IB
 *  Connection type : RC           Using SRQ      : OFF
 *  ...
 *  #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 *  65536      1000             10.27              10.27               0.000164
 * ---------------------------------------------------------------------------------------
 * </pre>
 */
public record PerftestOutput(String tool, String op, boolean latency, Map<String, String> header, List<Row> rows,
                             String format, List<Repair> repairs) {

    /** What the report was read from: perftest's printed text, or the file --out_json wrote. */
    public static final String FORMAT_TEXT = "text";
    public static final String FORMAT_JSON = "out_json";

    /** One result line: its 1-based line number in the file (of the results object in JSON) and its values by column. */
    public record Row(int line, long bytes, long iterations, Map<String, Double> values) {}

    /**
     * Damage a perftest version is known to write, which the reading left out or put right, keeping the values:
     * the 1-based line where it is and what was repaired, worded for whoever imported the file.
     */
    public record Repair(int line, String message) {}

    /** A file that is not (complete) perftest output; line is 1-based, 0 for the file as a whole. */
    public static class Invalid extends RuntimeException {
        private final int line;

        Invalid(int line, String message) {
            super(message);
            this.line = line;
        }

        public int line() {
            return line;
        }
    }

    static final Pattern TITLE = Pattern.compile("^\\s*(Send|RDMA_Write|RDMA_Read)\\s+(BW|Latency)\\s+Test\\s*$");
    private static final Pattern HEADER_PAIR = Pattern.compile("([A-Za-z][A-Za-z0-9 .*_/-]*?)\\s*:\\s*(\\S[^\\t]*?)(?=\\s{2,}|\\t|$)");
    private static final Pattern DASHES = Pattern.compile("^-{20,}\\s*$");
    /** The result columns perftest prints, each with its unit; the keys name them in a Row. */
    private static final Map<Pattern, String> COLUMNS = new LinkedHashMap<>();

    static {
        COLUMNS.put(Pattern.compile("#bytes"), "bytes");
        COLUMNS.put(Pattern.compile("#iterations"), "iterations");
        COLUMNS.put(Pattern.compile("BW peak\\[(MB|Gb|MiB)/sec\\]"), "bw_peak");
        COLUMNS.put(Pattern.compile("BW average\\[(MB|Gb|MiB)/sec\\]"), "bw_average");
        COLUMNS.put(Pattern.compile("MsgRate\\[Mpps\\]"), "msg_rate_mpps");
        COLUMNS.put(Pattern.compile("t_min\\[usec\\]"), "t_min_us");
        COLUMNS.put(Pattern.compile("t_max\\[usec\\]"), "t_max_us");
        COLUMNS.put(Pattern.compile("t_typical\\[usec\\]"), "t_typical_us");
        COLUMNS.put(Pattern.compile("t_avg\\[usec\\]"), "t_avg_us");
        COLUMNS.put(Pattern.compile("t_stdev\\[usec\\]"), "t_stdev_us");
        COLUMNS.put(Pattern.compile("99% percentile\\[usec\\]"), "t_p99_us");
        COLUMNS.put(Pattern.compile("99\\.9% percentile\\[usec\\]"), "t_p999_us");
    }

    /** "MB" (2^20 bytes, perftest's default) or "Gb" (10^9 bits, --report_gbits): the unit of the BW columns. */
    public String bandwidthUnit() {
        return header.getOrDefault("_bw_unit", "MB");
    }

    /**
     * Reads perftest's text output; refuses what is not a whole report naming the line, and a run that
     * failed (no results) quoting perftest's error lines ({@link PerftestFailure}).
     */
    public static PerftestOutput parse(String text) {
        String[] lines = text.replace("\r", "").split("\n", -1);
        try {
            return read(lines);
        } catch (Invalid e) {
            throw PerftestFailure.explain(lines, e);
        }
    }

    private static PerftestOutput read(String[] lines) {
        String tool = null;
        String op = null;
        boolean latency = false;
        Map<String, String> header = new LinkedHashMap<>();
        List<String> columns = null;
        int columnsLine = 0;
        List<Row> rows = new ArrayList<>();
        boolean ended = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int number = i + 1;
            if (columns == null) {
                Matcher title = TITLE.matcher(line);
                if (title.matches()) {
                    op = switch (title.group(1)) {
                        case "Send" -> "send";
                        case "RDMA_Write" -> "write";
                        default -> "read";
                    };
                    latency = title.group(2).equals("Latency");
                    tool = "ib_" + op + (latency ? "_lat" : "_bw");
                    continue;
                }
                if (line.trim().startsWith("#bytes")) {
                    if (tool == null) {
                        throw new Invalid(number, "a result header before perftest's test title (e.g. \"Send BW Test\"): "
                                + "upload the whole output of ib_send_bw, ib_write_bw, ib_read_bw or their _lat twins");
                    }
                    columns = columns(line, number);
                    columnsLine = number;
                    if (line.contains("Gb/sec")) {
                        header.put("_bw_unit", "Gb");
                    }
                    continue;
                }
                if (tool != null) { // the header: "Key : value" pairs, up to two per line
                    Matcher pairs = HEADER_PAIR.matcher(line);
                    while (pairs.find()) {
                        header.putIfAbsent(pairs.group(1).trim(), pairs.group(2).trim());
                    }
                }
                continue;
            }
            if (ended) {
                continue;
            }
            String trimmed = line.trim();
            if (DASHES.matcher(trimmed).matches()) {
                ended = true;
                continue;
            }
            if (trimmed.isEmpty()) {
                continue;
            }
            String[] values = trimmed.split("\\s+");
            if (values.length != columns.size()) {
                throw new Invalid(number, "expected " + columns.size() + " values (" + String.join(", ", columns) + ") as the "
                        + "header on line " + columnsLine + " announces, got " + values.length + ": '" + trimmed + "'");
            }
            Map<String, Double> row = new LinkedHashMap<>();
            for (int c = 0; c < values.length; c++) {
                if (notComputed(columns.get(c), values[c])) {
                    continue;
                }
                try {
                    double v = Double.parseDouble(values[c]);
                    if (!Double.isFinite(v) || v < 0) {
                        throw new NumberFormatException();
                    }
                    row.put(columns.get(c), v);
                } catch (NumberFormatException e) {
                    throw new Invalid(number, columns.get(c) + " is not a non-negative number: '" + values[c] + "' in '"
                            + trimmed + "'");
                }
            }
            double bytes = row.get("bytes");
            double iterations = row.get("iterations");
            if (bytes < 1 || bytes != Math.rint(bytes) || iterations < 1 || iterations != Math.rint(iterations)) {
                throw new Invalid(number, "#bytes and #iterations must be positive integers: '" + trimmed + "'");
            }
            rows.add(new Row(number, (long) bytes, (long) iterations, row));
        }
        if (tool == null) {
            throw new Invalid(0, "no perftest test title (e.g. \"Send BW Test\", \"RDMA_Read Latency Test\") in the file: "
                    + "upload the output of ib_send_bw, ib_write_bw, ib_read_bw, ib_send_lat, ib_write_lat or ib_read_lat");
        }
        if (columns == null) {
            throw new Invalid(lines.length, "the file ends before perftest's result header (#bytes #iterations ...): "
                    + "the run did not report results, or the file is truncated");
        }
        if (rows.isEmpty()) {
            throw new Invalid(columnsLine, "no result line after the header on line " + columnsLine
                    + ": the run failed or the file is truncated");
        }
        if (!ended) {
            throw new Invalid(rows.get(rows.size() - 1).line(), "the file ends after this result line without perftest's "
                    + "closing dashed line: truncated?");
        }
        List<String> required = latency ? List.of("t_typical_us", "t_avg_us") : List.of("bw_peak", "bw_average", "msg_rate_mpps");
        for (String column : required) {
            if (!columns.contains(column)) {
                throw new Invalid(columnsLine, "the result header lacks " + column + " for a " + tool + " run");
            }
        }
        return new PerftestOutput(tool, op, latency, header, List.copyOf(rows), FORMAT_TEXT, List.of());
    }

    /**
     * Whether perftest printed that it could not compute this value: "-nan" as the standard deviation of
     * large latencies (in the lab's -a latency runs, on lines from 10 ms up, in the text and --out_json
     * alike). The row goes without it; its other values stand.
     */
    static boolean notComputed(String column, String value) {
        return column.equals("t_stdev_us") && value.matches("-?nan");
    }

    private static List<String> columns(String line, int number) {
        List<String> columns = new ArrayList<>();
        String rest = line.trim();
        while (!rest.isEmpty()) {
            String found = null;
            for (Map.Entry<Pattern, String> column : COLUMNS.entrySet()) {
                Matcher m = column.getKey().matcher(rest);
                if (m.lookingAt()) {
                    found = column.getValue();
                    rest = rest.substring(m.end()).trim();
                    break;
                }
            }
            if (found == null) {
                throw new Invalid(number, "unknown result column at '" + rest + "'");
            }
            columns.add(found);
        }
        if (columns.size() < 3 || !columns.get(0).equals("bytes") || !columns.get(1).equals("iterations")) {
            throw new Invalid(number, "a result header must start with #bytes #iterations");
        }
        return columns;
    }

    /** A header value, e.g. "Connection type" → "RC"; null when absent. */
    public String value(String key) {
        return header.get(key);
    }

    /** A header value as a number, ignoring a unit like "[B]"; null when absent or not a number. */
    public Long number(String key) {
        String v = header.get(key);
        if (v == null) {
            return null;
        }
        Matcher m = Pattern.compile("^(\\d+)").matcher(v.trim());
        return m.find() ? Long.parseLong(m.group(1)) : null;
    }

    /** "ON" / "OFF" header flags. */
    public boolean on(String key) {
        return "ON".equals(String.valueOf(header.get(key)).trim().toUpperCase(Locale.ROOT));
    }
}
