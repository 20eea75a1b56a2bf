package org.qplab.controller.imports;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * perftest's --out_json file read into the same {@link PerftestOutput} as its text output: the
 * header from {@code test_info} under the text's names ({@code Number_of_qps} → "Number of qps"),
 * one row from {@code results} under the text's column names. perftest rewrites the file for every
 * size, so an {@code -a} run's file holds its last size only.
 *
 * <pre>
 * {
 * test_info: {
 * test: RDMA_Write_BW_Test,
 * Device: "rxe0",
 * Number_of_qps: 2,
 * ...
 * },
 * results: {
 * MsgSize: 4096,
 * n_iterations: 400,
 * BW_peak: 18.03,
 * ...
 * },
 * }
 * </pre>
 *
 * perftest 4.5 writes bare keys and values and trailing commas ({@link LooseJson} reads that and
 * strict JSON alike). Some perftest versions end the file with more closing braces than they opened:
 * those are left out, and the output names the repair ({@link PerftestOutput#repairs}) for the
 * import to pass on as a warning. Anything else is refused naming the line: a syntax error with its
 * column, a missing section or value with the line where it should have been.
 */
final class PerftestJson {

    private static final Pattern TEST = Pattern.compile("(Send|RDMA_Write|RDMA_Read)_(BW|Latency)_Test");
    /** test_info keys whose text names are not the key with '_' as ' '. */
    private static final Map<String, String> HEADER_NAMES = Map.of(
            "Dual_port", "Dual-port",
            "ibv_wr_API", "ibv_wr* API",
            "rdma_cm_QPs", "rdma_cm QPs",
            "Data_ex_method", "Data ex. method");
    /** results keys → the text's column names, in the text's column order. */
    private static final Map<String, String> RESULT_NAMES = new LinkedHashMap<>();

    static {
        RESULT_NAMES.put("MsgSize", "bytes");
        RESULT_NAMES.put("n_iterations", "iterations");
        RESULT_NAMES.put("BW_peak", "bw_peak");
        RESULT_NAMES.put("BW_average", "bw_average");
        RESULT_NAMES.put("MsgRate", "msg_rate_mpps");
        RESULT_NAMES.put("t_min", "t_min_us");
        RESULT_NAMES.put("t_max", "t_max_us");
        RESULT_NAMES.put("t_typical", "t_typical_us");
        RESULT_NAMES.put("t_avg", "t_avg_us");
        RESULT_NAMES.put("t_stdev", "t_stdev_us");
        RESULT_NAMES.put("percentile_99", "t_p99_us");
        RESULT_NAMES.put("percentile_99.9", "t_p999_us");
    }

    /** Why an --out_json file can be empty, and where the reason is. */
    static final String EMPTY_WHY = "perftest writes its --out_json file when the run reports a result, so a run that "
            + "failed leaves none or an empty one; its text output (stdout and stderr) says why it failed";

    private PerftestJson() {
    }

    /** A JSON object rather than perftest's text: the first character that is not white space is '{'. */
    static boolean looksLikeJson(String text) {
        return text.strip().startsWith("{");
    }

    static PerftestOutput parse(String text) {
        if (text.isBlank()) {
            throw new PerftestOutput.Invalid(0, "the file is empty: " + EMPTY_WHY);
        }
        if (!looksLikeJson(text)) {
            String before = text.substring(0, text.length() - text.stripLeading().length());
            int line = 1 + (int) before.chars().filter(c -> c == '\n').count();
            throw PerftestFailure.explain(text.replace("\r", "").split("\n", -1), new PerftestOutput.Invalid(line, "column "
                    + (before.length() - before.lastIndexOf('\n')) + ": perftest's --out_json file is one JSON object, "
                    + "starting with '{'; is this its text output? Send that as text/plain"));
        }
        LooseJson.Read read;
        try {
            read = LooseJson.readRepairing(text);
        } catch (LooseJson.Malformed e) {
            throw new PerftestOutput.Invalid(e.line(), "column " + e.column() + ": " + e.getMessage());
        }
        LooseJson.Value root = read.value();
        List<PerftestOutput.Repair> repairs = new ArrayList<>();
        if (read.extraBraces() > 0) {
            repairs.add(new PerftestOutput.Repair(read.extraLine(), extraBraces(read.extraBraces())));
        }
        LooseJson.Value info = section(root, "test_info", " (perftest's header: test, Device, Number_of_qps, ...): "
                + "is this perftest's --out_json file?");
        LooseJson.Value results = section(root, "results", ": the run failed before reporting its results, or the "
                + "file is truncated");
        LooseJson.Value test = info.members().get("test");
        if (test == null || !test.isText()) {
            throw new PerftestOutput.Invalid(test == null ? info.line() : test.line(), "test_info has no test name "
                    + "(e.g. \"test\": \"Send_BW_Test\")");
        }
        Matcher m = TEST.matcher(test.text());
        if (!m.matches()) {
            throw new PerftestOutput.Invalid(test.line(), "test '" + test.text() + "' is not one qplab imports: "
                    + "Send, RDMA_Write or RDMA_Read, BW or Latency (e.g. RDMA_Write_BW_Test)");
        }
        String op = switch (m.group(1)) {
            case "Send" -> "send";
            case "RDMA_Write" -> "write";
            default -> "read";
        };
        boolean latency = m.group(2).equals("Latency");
        String tool = "ib_" + op + (latency ? "_lat" : "_bw");
        Map<String, String> header = header(info);
        PerftestOutput.Row row = row(results, tool, latency);
        if (!latency && bandwidthInGigabits(row.values())) {
            header.put("_bw_unit", "Gb");
        }
        return new PerftestOutput(tool, op, latency, header, List.of(row), PerftestOutput.FORMAT_JSON,
                List.copyOf(repairs));
    }

    /** The warning for closing braces after the end of the JSON, which the reading left out. */
    static String extraBraces(int count) {
        return "repaired: " + count + " closing brace" + (count == 1 ? "" : "s") + " after the end of the JSON, left "
                + "out (some perftest versions write them; linux-rdma/perftest#216)";
    }

    private static LooseJson.Value section(LooseJson.Value root, String name, String why) {
        LooseJson.Value section = root.members().get(name);
        if (section == null) {
            throw new PerftestOutput.Invalid(root.endLine(), "the object that ends here has no \"" + name + "\"" + why);
        }
        if (!section.isObject()) {
            throw new PerftestOutput.Invalid(section.line(), "\"" + name + "\" is not an object");
        }
        return section;
    }

    private static Map<String, String> header(LooseJson.Value info) {
        Map<String, String> header = new LinkedHashMap<>();
        info.members().forEach((key, value) -> {
            if (value.isText() && !key.equals("test")) {
                header.put(HEADER_NAMES.getOrDefault(key, key.replace('_', ' ')), value.text());
            }
        });
        return header;
    }

    private static PerftestOutput.Row row(LooseJson.Value results, String tool, boolean latency) {
        Map<String, Double> values = new LinkedHashMap<>();
        results.members().forEach((key, value) -> {
            String column = RESULT_NAMES.get(key);
            if (column != null && !(value.isText() && PerftestOutput.notComputed(column, value.text()))) {
                values.put(column, number(key, value));
            }
        });
        List<String> required = new ArrayList<>(List.of("MsgSize", "n_iterations"));
        required.addAll(latency ? List.of("t_typical", "t_avg") : List.of("BW_peak", "BW_average", "MsgRate"));
        for (String key : required) {
            if (!values.containsKey(RESULT_NAMES.get(key))) {
                throw new PerftestOutput.Invalid(results.endLine(), "the results opened on line " + results.line()
                        + " have no " + key + ", which a " + tool + " run reports: the file is truncated or edited");
            }
        }
        double bytes = values.get("bytes");
        double iterations = values.get("iterations");
        if (bytes < 1 || bytes != Math.rint(bytes) || iterations < 1 || iterations != Math.rint(iterations)) {
            throw new PerftestOutput.Invalid(results.members().get("MsgSize").line(), "MsgSize and n_iterations "
                    + "must be positive integers: " + results.members().get("MsgSize").text() + ", "
                    + results.members().get("n_iterations").text());
        }
        return new PerftestOutput.Row(results.line(), (long) bytes, (long) iterations, values);
    }

    private static double number(String key, LooseJson.Value value) {
        try {
            double v = Double.parseDouble(String.valueOf(value.text()));
            if (Double.isFinite(v) && v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new PerftestOutput.Invalid(value.line(), key + " is not a non-negative number: "
                + (value.isText() ? "'" + value.text() + "'" : "an object or array"));
    }

    /**
     * The file does not say whether BW is in MB/s (2^20 B/s, perftest's default) or Gb/s
     * (--report_gbits); MsgRate × MsgSize is the same bandwidth in bytes/s, and the two units differ
     * by a factor of 119, so the unit is the one whose reading of BW_average lies closer to it. Without
     * a rate to compare (0.000000 Mpps, 0.00 BW), perftest's default.
     */
    static boolean bandwidthInGigabits(Map<String, Double> values) {
        double bytesPerSecond = values.get("msg_rate_mpps") * 1e6 * values.get("bytes");
        double average = values.get("bw_average");
        if (bytesPerSecond <= 0 || average <= 0) {
            return false;
        }
        double asMegabytes = Math.abs(Math.log(average * 1024 * 1024 / bytesPerSecond));
        double asGigabits = Math.abs(Math.log(average * 1e9 / 8 / bytesPerSecond));
        return asGigabits < asMegabytes;
    }
}
