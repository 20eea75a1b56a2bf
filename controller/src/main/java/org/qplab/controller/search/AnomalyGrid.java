package org.qplab.controller.search;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The points of an anomaly search: an index into each dimension's values; its neighbours (one dimension one step
 * away), the neighbours a step down, a dimension's reset, and the pairs of values a point covers.
 */
final class AnomalyGrid {

    private final List<AnomalySearch.Dimension> dimensions;

    AnomalyGrid(List<AnomalySearch.Dimension> dimensions) {
        this.dimensions = dimensions;
    }

    /** Every point one step away in one dimension. */
    List<List<Integer>> neighbours(List<Integer> p) {
        List<List<Integer>> out = new ArrayList<>();
        for (int d = 0; d < p.size(); d++) {
            for (int step : new int[] {-1, 1}) {
                int i = p.get(d) + step;
                if (i >= 0 && i < dimensions.get(d).values().size()) {
                    List<Integer> n = new ArrayList<>(p);
                    n.set(d, i);
                    out.add(List.copyOf(n));
                }
            }
        }
        return out;
    }

    /** One step down in each dimension (up from the first value of a choice), as references for a reset point. */
    List<List<Integer>> downNeighbours(List<Integer> p) {
        List<List<Integer>> out = new ArrayList<>();
        for (int d = 0; d < p.size(); d++) {
            int i = p.get(d) > 0 ? p.get(d) - 1 : dimensions.get(d).numeric() ? -1 : 1;
            if (i >= 0 && i < dimensions.get(d).values().size()) {
                List<Integer> n = new ArrayList<>(p);
                n.set(d, i);
                out.add(List.copyOf(n));
            }
        }
        return out;
    }

    /** p with dimension d at its reset value; null when it is there already. */
    List<Integer> reset(List<Integer> p, int d) {
        int to = dimensions.get(d).reset();
        if (p.get(d) == to) {
            return null;
        }
        List<Integer> r = new ArrayList<>(p);
        r.set(d, to);
        return List.copyOf(r);
    }

    /** The dimension two neighbours differ in. */
    static int differing(List<Integer> a, List<Integer> b) {
        for (int d = 0; d < a.size(); d++) {
            if (!a.get(d).equals(b.get(d))) {
                return d;
            }
        }
        throw new IllegalArgumentException(a + " and " + b + " are the same point");
    }

    /** The point as each dimension's name and value. */
    Map<String, Object> point(List<Integer> p) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int d = 0; d < p.size(); d++) {
            out.put(dimensions.get(d).name(), dimensions.get(d).values().get(p.get(d)));
        }
        return out;
    }

    /** The pairs of dimensions' values the point has (one value when the search has one dimension). */
    List<List<Object>> pairsOf(List<Integer> p) {
        List<List<Object>> out = new ArrayList<>();
        for (int a = 0; a < p.size(); a++) {
            for (int b = a + 1; b < p.size(); b++) {
                out.add(List.of(a, p.get(a), b, p.get(b)));
            }
        }
        if (p.size() == 1) {
            out.add(List.of(0, p.get(0)));
        }
        return out;
    }
}
