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
 * badBelow x the best (a metric where higher is better) or above badAbove x the best (a time). A pair judged bad is
 * tested again (the matrix's retests; schedule/PairRetests), and stays bad only if it is bad in every round it ran:
 * one slow round (a neighbour's burst, a flap) does not condemn a link. The best is the best of the first round,
 * where every pair ran: the retests are judged against the best their pairs were found bad by.
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
            @Schema(description = "The median over its finished runs of its last round, in the metric's unit.") double value,
            @Schema(description = "How many finished runs in its last round.") int n,
            @Schema(description = "value / best.") double relative,
            @Schema(description = "Whether it is bad by the rule in every round it ran.") boolean bad,
            @Schema(description = "How many rounds it ran: 1, and one more for each retest (a pair is retested "
                    + "while it stays bad).") int rounds) {
    }

    /** A pair's runs of one configuration in one round (0: the matrix's own runs, k: its k-th retest). */
    record Row(Map<String, Object> params, String client, String server, int round, double value, int n) {
        Row(Map<String, Object> params, String client, String server, double value, int n) {
            this(params, client, server, 0, value, n);
        }
    }

    /** The experiment's pairs judged by metric (null: the default metric for its runs). Blocking. */
    public static PairMatrix of(CurveRepository runs, long experimentId, Metric metric, double badBelow,
                                double badAbove) {
        Metric judged = metric;
        if (judged == null) {
            Map<String, Object> params = runs.someParams(experimentId);
            judged = params == null ? Metric.byName("bw_avg_bps").orElseThrow() : Metric.defaultFor(params);
        }
        return judge(judged, badBelow, badAbove, runs.pairs(experimentId, judged.sql()));
    }

    static PairMatrix judge(Metric metric, double badBelow, double badAbove, List<Row> rows) {
        Map<Map<String, Object>, List<Row>> byConfiguration = new LinkedHashMap<>();
        rows.forEach(r -> byConfiguration.computeIfAbsent(r.params(), k -> new ArrayList<>()).add(r));
        TreeSet<String> hosts = new TreeSet<>();
        List<Judged> judged = new ArrayList<>();
        for (Map.Entry<Map<String, Object>, List<Row>> e : byConfiguration.entrySet()) {
            Comparator<Row> better = Comparator.comparingDouble(Row::value);
            // the best of the sweep in which every pair ran (round 0): retests judge against the same best
            List<Row> sweep = e.getValue().stream().filter(r -> r.round() == 0).toList();
            List<Row> among = sweep.isEmpty() ? e.getValue() : sweep;
            Row best = metric.higherIsBetter() ? among.stream().max(better).orElseThrow()
                    : among.stream().min(better).orElseThrow();
            Map<String, List<Row>> byPair = new java.util.TreeMap<>(); // client, then server, ascending
            e.getValue().forEach(r -> byPair.computeIfAbsent(r.client() + "\u0000" + r.server(), k -> new ArrayList<>()).add(r));
            List<Cell> cells = new ArrayList<>();
            int bad = 0;
            for (List<Row> rounds : byPair.values()) {
                rounds.sort(Comparator.comparingInt(Row::round));
                boolean badEveryRound = true;
                for (Row r : rounds) {
                    badEveryRound &= isBad(metric, relative(r, best), badBelow, badAbove);
                }
                Row last = rounds.get(rounds.size() - 1);
                bad += badEveryRound ? 1 : 0;
                cells.add(new Cell(last.client(), last.server(), last.value(), last.n(), relative(last, best),
                        badEveryRound, rounds.size()));
                hosts.add(last.client());
                hosts.add(last.server());
            }
            judged.add(new Judged(e.getKey(), best.value(), best.client() + "/" + best.server(), bad, cells));
        }
        return new PairMatrix(metric.name(), metric.unit(), metric.higherIsBetter(), badBelow, badAbove,
                List.copyOf(hosts), judged);
    }

    private static double relative(Row r, Row best) {
        return best.value() == 0 ? (r.value() == 0 ? 1 : Double.POSITIVE_INFINITY) : r.value() / best.value();
    }

    private static boolean isBad(Metric metric, double relative, double badBelow, double badAbove) {
        return metric.higherIsBetter() ? relative < badBelow : relative > badAbove;
    }
}
