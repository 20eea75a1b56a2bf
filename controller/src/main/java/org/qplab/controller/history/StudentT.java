package org.qplab.controller.history;

/**
 * Student's t distribution: the two-sided tail probability and the quantile, for any real degrees of freedom
 * (Welch's are fractional). Through the regularized incomplete beta function, I_x(a, b), by its continued
 * fraction (Numerical Recipes' betacf, modified Lentz), accurate to ~1e-12 relative.
 */
public final class StudentT {

    private StudentT() {
    }

    /** P(|T| ≥ |t|) for T ~ t(df). */
    public static double twoSidedP(double t, double df) {
        if (!(df > 0)) {
            throw new IllegalArgumentException("degrees of freedom must be > 0, got " + df);
        }
        if (Double.isInfinite(t)) {
            return 0;
        }
        double x = df / (df + t * t);
        return Math.min(1, Math.max(0, regularizedBeta(x, df / 2, 0.5)));
    }

    /** The t with P(T ≤ t) = probability, for probability in (0.5, 1): e.g. 0.995 for a 99 % two-sided interval. */
    public static double quantile(double probability, double df) {
        if (!(probability > 0.5 && probability < 1)) {
            throw new IllegalArgumentException("probability must be in (0.5, 1), got " + probability);
        }
        double tail = 2 * (1 - probability);
        double low = 0;
        double high = 1;
        while (twoSidedP(high, df) > tail) {
            high *= 2;
            if (high > 1e12) {
                return Double.POSITIVE_INFINITY;
            }
        }
        for (int i = 0; i < 200 && high - low > 1e-12 * high; i++) {
            double mid = (low + high) / 2;
            if (twoSidedP(mid, df) > tail) {
                low = mid;
            } else {
                high = mid;
            }
        }
        return (low + high) / 2;
    }

    /** I_x(a, b). */
    static double regularizedBeta(double x, double a, double b) {
        if (x <= 0) {
            return 0;
        }
        if (x >= 1) {
            return 1;
        }
        double front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
        // the continued fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry otherwise
        if (x < (a + 1) / (a + b + 2)) {
            return front * continuedFraction(x, a, b) / a;
        }
        return 1 - front * continuedFraction(1 - x, b, a) / b;
    }

    private static double continuedFraction(double x, double a, double b) {
        final double tiny = 1e-300;
        double qab = a + b;
        double qap = a + 1;
        double qam = a - 1;
        double c = 1;
        double d = 1 - qab * x / qap;
        d = Math.abs(d) < tiny ? tiny : d;
        d = 1 / d;
        double h = d;
        for (int m = 1; m <= 1000; m++) {
            int m2 = 2 * m;
            double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
            d = 1 + aa * d;
            d = Math.abs(d) < tiny ? tiny : d;
            c = 1 + aa / c;
            c = Math.abs(c) < tiny ? tiny : c;
            d = 1 / d;
            h *= d * c;
            aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
            d = 1 + aa * d;
            d = Math.abs(d) < tiny ? tiny : d;
            c = 1 + aa / c;
            c = Math.abs(c) < tiny ? tiny : c;
            d = 1 / d;
            double delta = d * c;
            h *= delta;
            if (Math.abs(delta - 1) < 1e-15) {
                break;
            }
        }
        return h;
    }

    /** ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms: ~1e-15 relative). */
    static double logGamma(double x) {
        if (x < 0.5) {
            return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
        }
        double[] g = {0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
            1.5056327351493116e-7};
        double z = x - 1;
        double sum = g[0];
        for (int i = 1; i < g.length; i++) {
            sum += g[i] / (z + i);
        }
        double t = z + 7.5;
        return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
    }
}
