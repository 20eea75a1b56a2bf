package org.qplab.controller.history;

import java.math.BigDecimal;
import java.math.MathContext;
import org.qplab.controller.analysis.Metric;

/**
 * One expect rule of a matrix, read by {@link ExpectRules}: a run-level metric, in the unit its name says, against a
 * limit; an absolute one ({@code bw_avg_gbps: ">= 90"}) or a factor of the value of the run's fingerprint's baseline
 * ({@code bw_avg: ">= 0.95 * baseline"}).
 *
 * @param name     the metric as the rule names it (bw_avg_gbps, latency_p99_us, bw_avg)
 * @param metric   the run-level metric it reads
 * @param scale    what the metric's value is multiplied by to be in the rule's unit (8e-9 from B/s to Gbit/s)
 * @param unit     the rule's unit; null for a name without one (bw_avg), which only a relative rule may use
 * @param op       the comparison
 * @param number   the absolute limit, or the factor of the baseline
 * @param relative whether number is a factor of the baseline's value
 */
public record ExpectRule(String name, Metric metric, double scale, String unit, Op op, double number, boolean relative) {

    /** A comparison a measured value must pass. */
    public enum Op {
        GE(">="), LE("<="), GT(">"), LT("<");

        final String symbol;

        Op(String symbol) {
            this.symbol = symbol;
        }

        boolean holds(double value, double limit) {
            return switch (this) {
                case GE -> value >= limit;
                case LE -> value <= limit;
                case GT -> value > limit;
                case LT -> value < limit;
            };
        }

        static Op of(String symbol) {
            for (Op op : values()) {
                if (op.symbol.equals(symbol)) {
                    return op;
                }
            }
            throw new IllegalArgumentException(symbol);
        }
    }

    /** The rule as a person reads it: "bw_avg_gbps >= 90", "bw_avg >= 0.95 * baseline". */
    public String text() {
        return name + " " + op.symbol + " " + (relative ? (number == 1 ? "" : format(number) + " * ") + "baseline"
                : format(number));
    }

    /** Whether a value (in the rule's unit) passes against the limit (an absolute limit, or factor × baseline). */
    public boolean holds(double value, double limit) {
        return op.holds(value, limit);
    }

    /** The limit a run is held to: the absolute number, or the factor times the baseline's value (in the rule's unit). */
    public double limit(double baselineValue) {
        return relative ? number * baselineValue : number;
    }

    /** Four significant digits, no exponent: 93.12, 4210, 0.001234. */
    static String format(double value) {
        if (!Double.isFinite(value)) {
            return String.valueOf(value);
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return String.valueOf((long) value);
        }
        return BigDecimal.valueOf(value).round(new MathContext(4)).stripTrailingZeros().toPlainString();
    }
}
