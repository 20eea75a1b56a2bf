package org.qplab.controller.analysis;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.qplab.controller.analysis.CurveRepository.Configuration;

/**
 * Lays an experiment's configurations out as a curve: each configuration that matches the pins is one point,
 * placed by x, its series and the values of the split dimensions (every other dimension that still varies).
 * Since each varied dimension is on an axis, in the series, pinned or split, no two configurations land on the
 * same point: a point is never an average over unlike configurations.
 */
final class CurvePoints {

    /** The dimensions preferred to move along a line when x is a metric, in this order. */
    static final List<String> ALONG_PREFERRED = List.of("iodepth", "threads", "qps_per_thread", "msg_size", "numjobs",
            "bs", "tx_depth", "post_list", "signal_every", "inline_size", "rate_limit");

    private CurvePoints() {
    }

    /**
     * @param x        a parameter, or a metric's name when metricX (each configuration's x is then its own median)
     * @param pins     dimension → value as the request wrote it (already checked against the experiment's values)
     * @param along    with a metric x, the dimension requested to move along each line, or null to choose one
     */
    static Curve assemble(String x, boolean metricX, String y, List<String> series, Map<String, String> pins,
                          String along, List<Configuration> configurations) {
        List<Curve.Dimension> dimensions = varied(configurations).stream()
                .map(name -> new Curve.Dimension(name, values(configurations, name))).toList();
        List<Configuration> kept = configurations.stream()
                .filter(c -> pins.entrySet().stream().allMatch(pin -> sameValue(c.params().get(pin.getKey()), pin.getValue())))
                .toList();
        Map<String, Object> pinned = new LinkedHashMap<>();
        pins.forEach((name, text) -> pinned.put(name, kept.isEmpty() ? text : kept.get(0).params().get(name)));

        List<String> free = varied(kept).stream()
                .filter(name -> (metricX || !name.equals(x)) && !series.contains(name) && !pins.containsKey(name)).toList();
        String alongKey = !metricX ? null : along != null ? along
                : ALONG_PREFERRED.stream().filter(free::contains).findFirst()
                        .orElse(free.stream().filter(name -> numeric(kept, name)).findFirst().orElse(null));
        List<String> split = free.stream().filter(name -> !name.equals(alongKey)).toList();

        List<Curve.Point> points = new ArrayList<>(kept.size());
        for (Configuration c : kept) {
            Map<String, Object> splitValues = null;
            if (!split.isEmpty()) {
                splitValues = new LinkedHashMap<>();
                for (String name : split) {
                    splitValues.put(name, c.params().get(name));
                }
            }
            double xValue = metricX ? c.x() : ((Number) c.params().get(x)).doubleValue();
            points.add(new Curve.Point(seriesValue(c.params(), series), splitValues, xValue, c.y(), c.n(), c.min(),
                    c.max(), alongKey == null ? null : c.params().get(alongKey)));
        }
        points.sort(Comparator.comparing((Curve.Point p) -> sortKey(p.series()))
                .thenComparing(p -> p.split() == null ? "" : p.split().values().stream().map(CurvePoints::sortKey)
                        .collect(Collectors.joining("\u0000")))
                .thenComparingDouble(Curve.Point::x));
        return new Curve(x, y, String.join(",", series), pinned, split, alongKey, dimensions, points);
    }

    /** The dimensions whose value (absent counting as one) differs among the configurations, in name order. */
    static List<String> varied(List<Configuration> configurations) {
        Set<String> names = new TreeSet<>();
        configurations.forEach(c -> names.addAll(c.params().keySet()));
        return names.stream().filter(name -> configurations.stream().map(c -> c.params().get(name))
                .map(CurvePoints::text).distinct().count() > 1).toList();
    }

    /** Whether a stored value is the one a request wrote (numbers compared as numbers: 4096 = 4096.0). */
    static boolean sameValue(Object value, String text) {
        if (value instanceof Number number) {
            try {
                return new BigDecimal(number.toString()).compareTo(new BigDecimal(text.trim())) == 0;
            } catch (NumberFormatException e) {
                return false;
            }
        }
        return Objects.equals(text(value), text);
    }

    private static List<Object> values(List<Configuration> configurations, String name) {
        List<Object> values = new ArrayList<>(configurations.stream().map(c -> c.params().get(name))
                .filter(Objects::nonNull).collect(Collectors.toCollection(() -> new TreeSet<>(CurvePoints::compare))));
        if (configurations.stream().anyMatch(c -> c.params().get(name) == null)) {
            values.add(null); // absent in some runs (an engine run beside nvmeof ones)
        }
        return values;
    }

    private static boolean numeric(List<Configuration> configurations, String name) {
        return configurations.stream().map(c -> c.params().get(name)).allMatch(v -> v instanceof Number);
    }

    /** Numbers before text, numbers by value. */
    static int compare(Object a, Object b) {
        if (a instanceof Number m && b instanceof Number n) {
            return new BigDecimal(m.toString()).compareTo(new BigDecimal(n.toString()));
        }
        if (a instanceof Number != b instanceof Number) {
            return a instanceof Number ? -1 : 1;
        }
        return text(a).compareTo(text(b));
    }

    /** One series key: its value (a whole number as a number); several: their values joined by spaces. */
    private static Object seriesValue(Map<String, Object> params, List<String> series) {
        if (series.size() == 1) {
            Object value = params.get(series.get(0));
            if (value instanceof Number n && new BigDecimal(n.toString()).stripTrailingZeros().scale() <= 0) {
                return n.longValue();
            }
            return value == null ? null : text(value);
        }
        return series.stream().map(key -> params.get(key)).filter(Objects::nonNull).map(CurvePoints::text)
                .collect(Collectors.joining(" "));
    }

    private static String text(Object value) {
        return value == null ? null : value.toString();
    }

    private static String sortKey(Object value) {
        if (value instanceof Number n) {
            return String.format("%020.6f", n.doubleValue());
        }
        return "~" + value;
    }
}
