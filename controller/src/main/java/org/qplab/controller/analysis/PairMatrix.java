package org.qplab.controller.analysis;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * An experiment's host pairs judged against the fabric's best, as ClusterKit judges a fabric: for each configuration
 * (the runs' parameters, hosts aside), every client/server pair's median of a metric over its runs, and the best pair
 * of that configuration (the highest bandwidth or rate, the lowest time). A pair is bad when its median is below
 * badBelow x the best (a metric where higher is better) or above badAbove x the best (a time).
 */
@Schema(description = "The experiment's client/server pairs judged against the best pair of each configuration "
        + "(ClusterKit's rule): bad when below badBelow x the best bandwidth or rate, or above badAbove x the best time.")
public record PairMatrix(
        @Schema(description = "The metric judged.", example = "bw_avg_bps") String metric,
        @Schema(description = "Its unit.", example = "B/s") String unit,
        @Schema(description = "Whether a larger value is better (bandwidth, rates) or worse (times).") boolean higherIsBetter,
        @Schema(description = "A pair is bad below this fraction of the best (metrics where higher is better).") double badBelow,
        @Schema(description = "A pair is bad above this multiple of the best (times).") double badAbove,
        @Schema(description = "Every host of a judged pair, sorted: the rows and columns of the heatmap.") List<String> hosts,
        @Schema(description = "One entry per configuration (parameters other than hosts).") List<Judged> configurations) {

    /** One configuration's pairs. */
    @Schema(description = "The pairs of one configuration, with its best pair and how many are bad.")
    public record Judged(
            @Schema(description = "The configuration's parameters.") Map<String, Object> params,
            @Schema(description = "The best pair's median.") double best,
            @Schema(description = "The best pair, client/server.") String bestPair,
            @Schema(description = "How many of the pairs are bad.") int bad,
            @Schema(description = "Every pair, client then server ascending.") List<Cell> pairs) {
    }

    /** One pair of one configuration. */
    @Schema(description = "One client/server pair: the median of the metric over its runs and its judgment.")
    public record Cell(
            @Schema(description = "The host that ran the client (sending) side.") String client,
            @Schema(description = "The host that ran the server side.") String server,
            @Schema(description = "The median over its finished runs, in the metric's unit.") double value,
            @Schema(description = "How many finished runs.") int n,
            @Schema(description = "value / best.") double relative,
            @Schema(description = "Whether it is bad by the rule.") boolean bad) {
    }

    /** A pair's runs of one configuration, as read from the database. */
    record Row(Map<String, Object> params, String client, String server, double value, int n) {
    }

    static PairMatrix judge(Metric metric, double badBelow, double badAbove, List<Row> rows) {
        Map<Map<String, Object>, List<Row>> byConfiguration = new LinkedHashMap<>();
        rows.forEach(r -> byConfiguration.computeIfAbsent(r.params(), k -> new ArrayList<>()).add(r));
        TreeSet<String> hosts = new TreeSet<>();
        List<Judged> judged = new ArrayList<>();
        for (Map.Entry<Map<String, Object>, List<Row>> e : byConfiguration.entrySet()) {
            List<Row> pairs = new ArrayList<>(e.getValue());
            pairs.sort(Comparator.comparing(Row::client).thenComparing(Row::server));
            Comparator<Row> better = Comparator.comparingDouble(Row::value);
            Row best = metric.higherIsBetter() ? pairs.stream().max(better).orElseThrow()
                    : pairs.stream().min(better).orElseThrow();
            List<Cell> cells = new ArrayList<>();
            int bad = 0;
            for (Row r : pairs) {
                double relative = best.value() == 0 ? (r.value() == 0 ? 1 : Double.POSITIVE_INFINITY) : r.value() / best.value();
                boolean isBad = metric.higherIsBetter() ? relative < badBelow : relative > badAbove;
                bad += isBad ? 1 : 0;
                cells.add(new Cell(r.client(), r.server(), r.value(), r.n(), relative, isBad));
                hosts.add(r.client());
                hosts.add(r.server());
            }
            judged.add(new Judged(e.getKey(), best.value(), best.client() + "/" + best.server(), bad, cells));
        }
        return new PairMatrix(metric.name(), metric.unit(), metric.higherIsBetter(), badBelow, badAbove,
                List.copyOf(hosts), judged);
    }
}
