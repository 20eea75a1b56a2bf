package org.qplab.controller.history;

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

    /** A sample as distinct values in ascending order and how often each occurs (a histogram). */
    public record Counts(long[] values, long[] counts) {
        public Counts {
            if (values.length != counts.length) {
                throw new IllegalArgumentException(values.length + " values but " + counts.length + " counts");
            }
        }

        long total() {
            long n = 0;
            for (long c : counts) {
                n += c;
            }
            return n;
        }
    }

    public static Result test(double[] first, double[] second) {
        return test(counts(first), counts(second));
    }

    /**
     * The test on two histograms: values in one bucket are ties. Linear in the number of buckets,
     * so millions of cycles cost nothing once their histogram is stored.
     */
    public static Result test(Counts first, Counts second) {
        long n1 = first.total();
        long n2 = second.total();
        if (n1 == 0 || n2 == 0) {
            throw new IllegalArgumentException("both samples need values (got " + n1 + " and " + n2 + ")");
        }
        // Walk both value lists together; every run of equal values shares its mean rank.
        double rankSumA = 0;
        double tieTerm = 0;
        long rank = 0;
        int i = 0;
        int j = 0;
        long[] a = first.values();
        long[] b = second.values();
        while (i < a.length || j < b.length) {
            long v = i < a.length && (j >= b.length || a[i] <= b[j]) ? a[i] : b[j];
            long inA = i < a.length && a[i] == v ? first.counts()[i++] : 0;
            long inB = j < b.length && b[j] == v ? second.counts()[j++] : 0;
            double t = inA + inB;
            rankSumA += inA * (rank + (t + 1) / 2);
            tieTerm += t * t * t - t;
            rank += inA + inB;
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

    /** Exact values as a histogram (doubles compared by their bits' order, so any finite values work). */
    private static Counts counts(double[] sample) {
        double[] sorted = sample.clone();
        java.util.Arrays.sort(sorted);
        long[] values = new long[sorted.length];
        long[] counts = new long[sorted.length];
        int k = -1;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) {
                k++;
                values[k] = orderedBits(sorted[i]);
            }
            counts[k]++;
        }
        return new Counts(java.util.Arrays.copyOf(values, k + 1), java.util.Arrays.copyOf(counts, k + 1));
    }

    /** A long whose order is the double's numeric order. */
    private static long orderedBits(double v) {
        long bits = Double.doubleToLongBits(v == 0 ? 0.0 : v);
        return bits < 0 ? bits ^ Long.MAX_VALUE : bits;
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
