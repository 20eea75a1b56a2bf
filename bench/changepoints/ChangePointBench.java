import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.qplab.controller.history.ChangePoint;
import org.qplab.controller.history.EDivisive;

/**
 * bench/changepoints: what EDivisive finds on seeded synthetic run-level series, and what a new run costs on a long
 * one. Prints the markdown tables of results.md; run.sh runs it against the controller's compiled classes.
 *
 * Args: seed, series per row, points per series, CVs in % (comma separated), cost runs.
 */
public class ChangePointBench {

    static final int TOLERANCE = 5;
    static final double STEP = 0.10;

    public static void main(String[] args) {
        long seed = Long.parseLong(args[0]);
        int series = Integer.parseInt(args[1]);
        int points = Integer.parseInt(args[2]);
        double[] cvs = Arrays.stream(args[3].split(",")).mapToDouble(Double::parseDouble).toArray();
        int costRuns = Integer.parseInt(args[4]);
        EDivisive detector = new EDivisive(EDivisive.Settings.DEFAULT);
        EDivisive.Settings s = EDivisive.Settings.DEFAULT;
        System.out.printf(Locale.ROOT, "Settings (the defaults) unless a table says otherwise: p %s, window %d, "
                + "minimum magnitude %s %%, p corrected for where the split was looked for %s; seed %d.%n%n", s.pValue(),
                s.window(), s.minMagnitudePercent(), s.selectionCorrected(), seed);
        detectionTable(detector, "the defaults", seed, series, points, cvs);
        EDivisive otava = new EDivisive(new EDivisive.Settings(s.pValue(), s.window(), s.minMagnitudePercent(), false));
        detectionTable(otava, "Otava's p (selectionCorrected false)", seed, series, points, cvs);
        EDivisive strict = new EDivisive(new EDivisive.Settings(0.0001, s.window(), s.minMagnitudePercent(), false));
        detectionTable(strict, "Otava's p at 0.0001", seed, series, points, cvs);
        clustered(detector, seed, series);
        System.out.println();
        cost(detector, seed, costRuns);
    }

    static void detectionTable(EDivisive detector, String settings, long seed, int series, int points, double[] cvs) {
        System.out.printf(Locale.ROOT, "## Detection, %s: %d series × %d points per row%n%n", settings, series, points);
        System.out.println("Stepped: one step of ±10 % (sign alternating) at a random index in [15, 45]; found: a change "
                + "point within ±" + TOLERANCE + " points of it. Flat: the same noise, no step; every change point is "
                + "false. Noise: log-normal, i.i.d. per run, of the CV given.");
        System.out.println();
        System.out.println("| noise CV | stepped: found within ±5 | median \\|index error\\| | stepped: other change points "
                + "per 100 series | flat: false change points per 100 series | flat ×10 (" + series * 10
                + " series): per 100 |");
        System.out.println("|---:|---:|---:|---:|---:|---:|");
        for (double cv : cvs) {
            detection(detector, seed, series, points, cv / 100);
        }
        System.out.println();
    }

    static void detection(EDivisive detector, long seed, int series, int points, double cv) {
        SplittableRandom random = new SplittableRandom(seed);
        int found = 0;
        int others = 0;
        List<Integer> errors = new ArrayList<>();
        for (int k = 0; k < series; k++) {
            int at = 15 + random.nextInt(31);
            double factor = k % 2 == 0 ? 1 + STEP : 1 / (1 + STEP);
            double[] values = noise(random, points, cv);
            for (int i = at; i < points; i++) {
                values[i] *= factor;
            }
            List<ChangePoint> cps = detector.scan(values).all();
            ChangePoint nearest = cps.stream().min((a, b) -> Math.abs(a.index() - at) - Math.abs(b.index() - at))
                    .orElse(null);
            if (nearest != null && Math.abs(nearest.index() - at) <= TOLERANCE) {
                found++;
                errors.add(Math.abs(nearest.index() - at));
                others += cps.size() - 1;
            } else {
                others += cps.size();
            }
        }
        int falseFlat = flat(detector, random, series, points, cv);
        int falseFlatMore = flat(detector, random, series * 10, points, cv);
        errors.sort(null);
        System.out.printf(Locale.ROOT, "| %.1f %% | %d / %d (%.1f %%) | %s | %.1f | %.1f | %.2f |%n", cv * 100, found,
                series, 100.0 * found / series, errors.isEmpty() ? "–" : errors.get(errors.size() / 2).toString(),
                100.0 * others / series, 100.0 * falseFlat / series, 100.0 * falseFlatMore / (series * 10));
    }

    static int flat(EDivisive detector, SplittableRandom random, int series, int points, double cv) {
        int changes = 0;
        for (int k = 0; k < series; k++) {
            changes += detector.scan(noise(random, points, cv)).all().size();
        }
        return changes;
    }

    /**
     * Flat series as nightly experiments make them: 12 experiments × 5 runs, each experiment's level off by a
     * log-normal drift of its own (bench/compare/notes.md: experiments of one configuration drift apart by 2–40 %
     * beyond their runs' scatter on the busy 2-core host). Every change point is false.
     */
    static void clustered(EDivisive detector, long seed, int series) {
        System.out.printf(Locale.ROOT, "## Flat series with drift between experiments: %d series × 12 experiments × 5 runs%n%n",
                series);
        System.out.println("Runs: the 60 run values as the detector gets them today. Experiments: the same series as 12 "
                + "points, each the geometric mean of an experiment's 5 runs.");
        System.out.println();
        System.out.println("| run CV | drift between experiments (sd) | runs: false change points per 100 series "
                + "| experiments: per 100 series |");
        System.out.println("|---:|---:|---:|---:|");
        double[][] rows = {{0.05, 0.0}, {0.05, 0.02}, {0.05, 0.05}, {0.10, 0.05}, {0.10, 0.15}};
        for (double[] row : rows) {
            SplittableRandom random = new SplittableRandom(seed);
            int changes = 0;
            int experimentChanges = 0;
            for (int k = 0; k < series; k++) {
                double[] values = noise(random, 60, row[0]);
                for (int e = 0; e < 12; e++) {
                    double drift = Math.exp(row[1] * gaussian(random));
                    for (int r = 0; r < 5; r++) {
                        values[e * 5 + r] *= drift;
                    }
                }
                changes += detector.scan(values).all().size();
                double[] experiments = new double[12];
                for (int e = 0; e < 12; e++) {
                    double logs = 0;
                    for (int r = 0; r < 5; r++) {
                        logs += Math.log(values[e * 5 + r]);
                    }
                    experiments[e] = Math.exp(logs / 5);
                }
                experimentChanges += detector.scan(experiments).all().size();
            }
            System.out.printf(Locale.ROOT, "| %.0f %% | %.0f %% | %.1f | %.1f |%n", row[0] * 100, row[1] * 100,
                    100.0 * changes / series, 100.0 * experimentChanges / series);
        }
    }

    /** A new run on a 10,000-run series: resume from the scan before it, timed alone (the copy is not). */
    static void cost(EDivisive detector, long seed, int runs) {
        SplittableRandom random = new SplittableRandom(seed);
        int length = 10_000;
        double[] all = noise(random, length + runs + 1000, 0.05);
        for (int i = 2_000; i < all.length; i += 2_000) { // a step every 2,000 runs: the series has a history
            for (int j = i; j < all.length; j++) {
                all[j] *= i % 4_000 == 0 ? 1.15 : 0.9;
            }
        }
        long fullStart = System.nanoTime();
        EDivisive.Scan scan = detector.scan(Arrays.copyOf(all, length));
        double fullMs = (System.nanoTime() - fullStart) / 1e6;
        int changes = scan.all().size();
        for (int i = 0; i < 1000; i++) { // warm-up: the JIT compiles resume
            scan = detector.resume(Arrays.copyOf(all, length + i + 1), scan);
        }
        EDivisive.Scan warm = scan;
        long[] nanos = new long[runs];
        for (int i = 0; i < runs; i++) { // the tail from where the scan resumes: what a caller loads from the database
            double[] tail = Arrays.copyOfRange(all, warm.resumeAt(), warm.length() + 1);
            long start = System.nanoTime();
            EDivisive.Scan next = detector.resume(tail, warm.resumeAt(), warm);
            nanos[i] = System.nanoTime() - start;
            if (next.length() != warm.length() + 1) {
                throw new AssertionError();
            }
        }
        // every timed call resumed the same scan: also time a chain of appends, each on the scan before it
        long[] chain = new long[runs];
        EDivisive.Scan running = warm;
        for (int i = 0; i < runs; i++) {
            double[] tail = Arrays.copyOfRange(all, running.resumeAt(), running.length() + 1);
            long start = System.nanoTime();
            running = detector.resume(tail, running.resumeAt(), running);
            chain[i] = System.nanoTime() - start;
        }
        long fullAgain = System.nanoTime();
        EDivisive.Scan full = detector.scan(Arrays.copyOf(all, running.length()));
        double fullAgainMs = (System.nanoTime() - fullAgain) / 1e6;
        Arrays.sort(nanos);
        Arrays.sort(chain);
        System.out.printf(Locale.ROOT, "## Cost: one new run on a 10,000-run series%n%n");
        System.out.println("Noise CV 5 %, a step every 2,000 runs. Timed: EDivisive.resume from the scan before it, given "
                + "the points from where that scan resumes to the new run (System.nanoTime around the call alone; " + runs + " calls after 1,000 "
                + "warm-up calls).");
        System.out.println();
        System.out.println("| what | median | p99 | max |");
        System.out.println("|---|---:|---:|---:|");
        System.out.printf(Locale.ROOT, "| run 10,001 appended, %d times | %.3f ms | %.3f ms | %.3f ms |%n", runs,
                nanos[runs / 2] / 1e6, nanos[(int) (runs * 0.99)] / 1e6, nanos[runs - 1] / 1e6);
        System.out.printf(Locale.ROOT, "| runs 11,001–%,d appended one by one | %.3f ms | %.3f ms | %.3f ms |%n",
                11_000 + runs, chain[runs / 2] / 1e6, chain[(int) (runs * 0.99)] / 1e6, chain[runs - 1] / 1e6);
        System.out.printf(Locale.ROOT, "| full scan of 10,000 runs (cold, once) | %.1f ms | | |%n", fullMs);
        System.out.printf(Locale.ROOT, "| full scan of %,d runs (warm, once) | %.1f ms | | |%n", running.length(),
                fullAgainMs);
        System.out.println();
        System.out.printf(Locale.ROOT, "The 10,000-run series had %d change points (4 steps made); after the appends "
                + "the one-by-one scan %s the full scan of the same %,d runs.%n", changes,
                running.equals(full) ? "equals" : "DIFFERS FROM", running.length());
    }

    /** Log-normal noise around 1000 whose CV is cv. */
    static double[] noise(SplittableRandom random, int length, double cv) {
        double sigma = Math.sqrt(Math.log1p(cv * cv));
        double[] values = new double[length];
        for (int i = 0; i < length; i++) {
            values[i] = 1000 * Math.exp(sigma * gaussian(random) - sigma * sigma / 2);
        }
        return values;
    }

    static double gaussian(SplittableRandom random) {
        return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
    }
}
