package org.qplab.controller.experiment;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * The known name nearest a misspelt one, for a refusal's "did you mean msg_size?": by Damerau-Levenshtein distance
 * (optimal string alignment: an insertion, deletion, substitution or swap of two neighbours costs one), ignoring
 * case, within a small threshold (one edit for names of up to four characters, two above), so that a name near
 * nothing gets no guess.
 */
public final class Suggestions {

    private Suggestions() {
    }

    /** The known names nearest typed (the nearest distance's, in known's order; at most two), or none. */
    static List<String> nearest(String typed, Collection<String> known) {
        String t = typed.toLowerCase(Locale.ROOT);
        int limit = t.length() <= 4 ? 1 : 2;
        int best = Integer.MAX_VALUE;
        List<String> found = new ArrayList<>();
        for (String name : known) {
            int d = distance(t, name.toLowerCase(Locale.ROOT));
            if (d > limit || d > best) {
                continue;
            }
            if (d < best) {
                best = d;
                found.clear();
            }
            found.add(name);
        }
        return found.size() > 2 ? found.subList(0, 2) : found;
    }

    /** "; did you mean msg_size?" (or "a or b?"), or null when nothing is near. */
    public static String didYouMean(String typed, Collection<String> known) {
        List<String> near = nearest(typed, known);
        return near.isEmpty() ? null : "did you mean " + String.join(" or ", near) + "?";
    }

    /** The optimal-string-alignment distance between a and b. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int v = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    v = Math.min(v, d[i - 2][j - 2] + 1);
                }
                d[i][j] = v;
            }
        }
        return d[a.length()][b.length()];
    }
}
