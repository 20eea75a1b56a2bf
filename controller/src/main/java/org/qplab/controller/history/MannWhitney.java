package org.qplab.controller.history;

import java.util.Arrays;

/**
 * The Mann–Whitney U test (Wilcoxon rank-sum) of two samples, with the tie-corrected normal
 * approximation and continuity correction — what scipy's mannwhitneyu(method="asymptotic") gives.
 * Per-cycle times are far from normal and have long tails; a rank test does not care.
 */
public final class MannWhitney {

    /**
     * @param u           U of the first sample (pairs (a, b) with a &gt; b, ties counting one half)
     * @param z           standardised U
     * @param pValue      two-sided p-value
     * @param probability P(a &gt; b) + P(a = b)/2, the common-language effect size (0.5 = no shift)
     */
    public record Result(double u, double z, double pValue, double probability) {}

    private MannWhitney() {
    }

    public static Result test(double[] first, double[] second) {
        int n1 = first.length;
        int n2 = second.length;
        if (n1 == 0 || n2 == 0) {
            throw new IllegalArgumentException("both samples need values (got " + n1 + " and " + n2 + ")");
        }
        double[] a = first.clone();
        double[] b = second.clone();
        Arrays.sort(a);
        Arrays.sort(b);
        // Walk both sorted samples together; every run of equal values shares its mean rank.
        double rankSumA = 0;
        double tieTerm = 0;
        int i = 0;
        int j = 0;
        long rank = 0;
        while (i < n1 || j < n2) {
            double v = i < n1 && (j >= n2 || a[i] <= b[j]) ? a[i] : b[j];
            int inA = 0;
            while (i < n1 && a[i] == v) {
                i++;
                inA++;
            }
            int inB = 0;
            while (j < n2 && b[j] == v) {
                j++;
                inB++;
            }
            long t = inA + inB;
            double meanRank = rank + (t + 1) / 2.0;
            rankSumA += inA * meanRank;
            tieTerm += (double) t * t * t - t;
            rank += t;
        }
        double n = (double) n1 + n2;
        double u = rankSumA - (double) n1 * (n1 + 1) / 2;
        double mean = (double) n1 * n2 / 2;
        double variance = (double) n1 * n2 / 12 * ((n + 1) - tieTerm / (n * (n - 1)));
        double z;
        if (variance <= 0) {
            z = 0; // every value equal
        } else {
            double d = u - mean;
            z = (d == 0 ? 0 : d - Math.signum(d) * 0.5) / Math.sqrt(variance);
        }
        double p = Math.min(1, erfc(Math.abs(z) / Math.sqrt(2)));
        return new Result(u, z, p, u / ((double) n1 * n2));
    }

    /** Complementary error function, fractional error below 1.2e-7 everywhere (Numerical Recipes' erfcc). */
    static double erfc(double x) {
        double z = Math.abs(x);
        double t = 1 / (1 + 0.5 * z);
        double r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418
                + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587
                + t * (-0.82215223 + t * 0.17087277)))))))));
        return x >= 0 ? r : 2 - r;
    }
}
