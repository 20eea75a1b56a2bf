package org.qplab.controller.imports;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The perftest runs captured in the lab (src/test/resources/perftest/fixtures.tsv, written by capture.sh)
 * and what their files say, read with plain regexes rather than the importer: the expected side of the
 * import tests.
 */
final class PerftestFixtures {

    /** One row of fixtures.tsv: NAME.txt (and NAME.json unless json is "none" or "empty") and how they were made. */
    record Fixture(String name, String outcome, int exit, String side, String json, String quote, String command) {

        boolean reportedResults() {
            return outcome.equals("results");
        }

        boolean hasJson() {
            return json.endsWith(".json");
        }

        /** The perftest tool the command ran, e.g. ib_send_bw. */
        String tool() {
            Matcher m = Pattern.compile("\\b(ib_(?:send|write|read)_(?:bw|lat))\\b").matcher(command);
            assertThat(m.find()).as("the tool in %s", command).isTrue();
            return m.group(1);
        }

        String text() throws IOException {
            return fixture(name + ".txt");
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /**
     * One result line of a text file, or the results of a JSON file: size, iterations and values under the
     * import's names (without those perftest printed as -nan).
     */
    record Result(long bytes, long iterations, Map<String, Double> values) {}

    /** The result columns of perftest's text after #bytes #iterations, by layout, under the names the import stores them. */
    private static final Map<String, List<String>> LAYOUTS = Map.of(
            "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]",
            List.of("bw_peak", "bw_average", "msg_rate_mpps"),
            "#bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] MsgRate[Mpps]",
            List.of("bw_peak", "bw_average", "msg_rate_mpps"),
            "#bytes #iterations t_min[usec] t_max[usec] t_typical[usec] t_avg[usec] t_stdev[usec] 99% percentile[usec] "
                    + "99.9% percentile[usec]",
            List.of("t_min_us", "t_max_us", "t_typical_us", "t_avg_us", "t_stdev_us", "t_p99_us", "t_p999_us"));
    /** The results keys of an --out_json file under the names the import stores them. */
    private static final Map<String, String> JSON_RESULTS = Map.of("BW_peak", "bw_peak", "BW_average", "bw_average",
            "MsgRate", "msg_rate_mpps", "t_min", "t_min_us", "t_max", "t_max_us", "t_typical", "t_typical_us", "t_avg", "t_avg_us",
            "t_stdev", "t_stdev_us", "percentile_99", "t_p99_us", "percentile_99.9", "t_p999_us");
    /** A result line: size, iterations, values; perftest prints "-nan" for a standard deviation it could not compute. */
    private static final Pattern RESULT_LINE = Pattern.compile("^\\s*(\\d+)\\s+(\\d+)((?:\\s+(?:\\d+\\.\\d+|-?nan))+)\\s*$");

    private PerftestFixtures() {
    }

    static String fixture(String name) throws IOException {
        try (InputStream in = PerftestFixtures.class.getResourceAsStream("/perftest/" + name)) {
            assertThat(in).as("fixture %s", name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static List<Fixture> all() throws IOException {
        List<Fixture> fixtures = new ArrayList<>();
        for (String line : fixture("fixtures.tsv").lines().toList()) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            String[] f = line.split("\t", -1);
            assertThat(f).as("fixtures.tsv: %s", line).hasSize(7);
            fixtures.add(new Fixture(f[0], f[1], Integer.parseInt(f[2]), f[3], f[4], f[5], f[6]));
        }
        assertThat(fixtures).as("fixtures.tsv").isNotEmpty();
        return fixtures;
    }

    static List<Fixture> reportedResults() throws IOException {
        return all().stream().filter(Fixture::reportedResults).toList();
    }

    static List<Fixture> withJson() throws IOException {
        return all().stream().filter(f -> f.reportedResults() && f.hasJson()).toList();
    }

    static List<Fixture> failed() throws IOException {
        return all().stream().filter(f -> !f.reportedResults()).toList();
    }

    /** The result lines after the text's #bytes header, each value under the import's name of its column. */
    static List<Result> results(String text) {
        List<String> lines = text.lines().toList();
        int header = 0;
        while (header < lines.size() && !lines.get(header).trim().startsWith("#bytes")) {
            header++;
        }
        assertThat(header).as("a #bytes header").isLessThan(lines.size());
        List<String> columns = LAYOUTS.get(lines.get(header).trim().replaceAll("\\s+", " "));
        assertThat(columns).as("a known result header: %s", lines.get(header)).isNotNull();
        List<Result> results = new ArrayList<>();
        for (String line : lines.subList(header + 1, lines.size())) {
            Matcher m = RESULT_LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            String[] values = m.group(3).trim().split("\\s+");
            assertThat(values).as("values of '%s'", line).hasSameSizeAs(columns);
            Map<String, Double> byName = new LinkedHashMap<>();
            for (int i = 0; i < values.length; i++) {
                if (!values[i].endsWith("nan")) {
                    byName.put(columns.get(i), Double.parseDouble(values[i]));
                }
            }
            results.add(new Result(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), byName));
        }
        return results;
    }

    /** The bytes per second of one unit of the text's BW columns: MB/sec is 2^20 B/s, Gb/sec 10^9 b/s. */
    static double bandwidthUnit(String text) {
        return text.contains("BW average[Gb/sec]") ? 1e9 / 8 : 1024.0 * 1024.0;
    }

    /** The "results" section of an --out_json file. */
    static Result jsonResults(String json) {
        String section = json.substring(json.indexOf("results"));
        Matcher m = Pattern.compile("(?m)^\"?([A-Za-z_][A-Za-z0-9_.]*)\"?\\s*:\\s*([0-9.]+)").matcher(section);
        Map<String, Double> values = new LinkedHashMap<>();
        Long bytes = null;
        Long iterations = null;
        while (m.find()) {
            switch (m.group(1)) {
                case "MsgSize" -> bytes = Long.parseLong(m.group(2));
                case "n_iterations" -> iterations = Long.parseLong(m.group(2));
                default -> values.put(JSON_RESULTS.get(m.group(1)), Double.parseDouble(m.group(2)));
            }
        }
        assertThat(bytes).as("MsgSize").isNotNull();
        assertThat(iterations).as("n_iterations").isNotNull();
        return new Result(bytes, iterations, values);
    }

    /**
     * The run parameters the import takes from perftest's text header ("Connection type : UD", "Using SRQ : ON",
     * "Number of qps : 2", ...), under the import's names, those the header has.
     */
    static Map<String, Object> headerParams(String text) {
        Map<String, Object> params = new LinkedHashMap<>();
        String connection = headerValue(text, "Connection type");
        params.put("transport", connection.toLowerCase(Locale.ROOT));
        params.put("srq", headerValue(text, "Using SRQ").equals("ON") ? "shared" : "none");
        params.put("qps_per_thread", Long.parseLong(headerValue(text, "Number of qps")));
        params.put("device", headerValue(text, "Device"));
        putNumber(params, "tx_depth", text, "TX depth");
        putNumber(params, "signal_every", text, "CQ Moderation");
        putNumber(params, "mtu", text, "Mtu");
        putNumber(params, "inline_size", text, "Max inline data");
        Matcher relaxed = Pattern.compile("(?m)^\\s*PCIe relax order\\s*:\\s*(\\S+)").matcher(text);
        if (relaxed.find()) {
            params.put("relaxed_ordering", relaxed.group(1).equals("ON"));
        }
        return params;
    }

    private static void putNumber(Map<String, Object> params, String name, String text, String key) {
        Matcher m = Pattern.compile("(?m)^\\s*" + Pattern.quote(key) + "\\s*:\\s*(\\d+)").matcher(text);
        if (m.find()) {
            params.put(name, Long.parseLong(m.group(1)));
        }
    }

    private static String headerValue(String text, String key) {
        Matcher m = Pattern.compile("(?:^|\\s)" + Pattern.quote(key) + "\\s*:\\s*(\\S+)").matcher(text);
        assertThat(m.find()).as("'%s' in the header", key).isTrue();
        return m.group(1);
    }

    /** The same parameters from an --out_json file's test_info ("Connection_type: UD,", "TX_depth : 128,"). */
    static Map<String, Object> jsonParams(String json) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("transport", jsonValue(json, "Connection_type").toLowerCase(Locale.ROOT));
        params.put("srq", jsonValue(json, "Using_SRQ").equals("ON") ? "shared" : "none");
        params.put("qps_per_thread", Long.parseLong(jsonValue(json, "Number_of_qps")));
        params.put("device", jsonValue(json, "Device"));
        for (Map.Entry<String, String> key : Map.of("tx_depth", "TX_depth", "signal_every", "CQ_Moderation", "mtu", "Mtu",
                "inline_size", "Max_inline_data").entrySet()) {
            if (Pattern.compile("(?m)^\"?" + key.getValue() + "\"?\\s*:").matcher(json).find()) {
                params.put(key.getKey(), Long.parseLong(jsonValue(json, key.getValue())));
            }
        }
        if (Pattern.compile("(?m)^\"?PCIe_relax_order\"?\\s*:").matcher(json).find()) {
            params.put("relaxed_ordering", jsonValue(json, "PCIe_relax_order").equals("ON"));
        }
        return params;
    }

    private static String jsonValue(String json, String key) {
        Matcher m = Pattern.compile("(?m)^\"?" + Pattern.quote(key) + "\"?\\s*:\\s*\"?([^\",]+)\"?,?$").matcher(json);
        assertThat(m.find()).as("%s in test_info", key).isTrue();
        return m.group(1).trim();
    }
}
