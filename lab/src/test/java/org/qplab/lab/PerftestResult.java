package org.qplab.lab;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One perftest bandwidth report (ib_send_bw, ib_write_bw, ib_read_bw): the settings block
 * ("Connection type : RC", "GID index : 1", ...) and the result row under the
 * {@code #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]} header.
 */
public record PerftestResult(Map<String, String> settings, long bytes, long iterations, double bwPeakMBps,
        double bwAverageMBps, double msgRateMpps) {

    public static PerftestResult parse(String output) {
        List<String> lines = output.lines().toList();
        Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.startsWith("#bytes")) {
                return row(settings, lines.subList(i + 1, lines.size()), output);
            }
            for (String field : line.split("\t+")) {
                int colon = field.indexOf(" : ");
                if (colon > 0 && !field.startsWith("*")) {
                    settings.putIfAbsent(field.substring(0, colon).strip(), field.substring(colon + 3).strip());
                }
            }
        }
        throw new IllegalArgumentException("no perftest result header (#bytes ...) in:\n" + output);
    }

    private static PerftestResult row(Map<String, String> settings, List<String> rest, String output) {
        String row = rest.stream().map(String::strip).filter(l -> !l.isEmpty()).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no perftest result row in:\n" + output));
        String[] cells = row.split("\\s+");
        if (cells.length < 5) {
            throw new IllegalArgumentException("perftest result row has " + cells.length + " cells, not 5: " + row);
        }
        return new PerftestResult(Map.copyOf(settings), Long.parseLong(cells[0]), Long.parseLong(cells[1]),
                Double.parseDouble(cells[2]), Double.parseDouble(cells[3]), Double.parseDouble(cells[4]));
    }

    /** A setting from the report's header block, e.g. {@code setting("Connection type")} is "RC". */
    public String setting(String name) {
        String value = settings.get(name);
        if (value == null) {
            throw new IllegalArgumentException("no '" + name + "' in the perftest report; it has " + settings.keySet());
        }
        return value;
    }
}
