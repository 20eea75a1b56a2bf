import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * bench/security: the latency of one GET in four variants that differ only in who the caller is, measured side by
 * side in one run. One long-lived client (java.net.http, HTTP/1.1, one keep-alive connection: no process start-up
 * or connection set-up in the numbers), System.nanoTime around each request, the variants interleaved: in round r
 * they go in the order rotated by r, so each takes every position equally often.
 *
 * <pre>
 *   QPLAB_TOKEN=qplab_... QPLAB_SESSION_COOKIE='SESSION=...' \
 *       java bench/security/LatencyRounds.java http://127.0.0.1:PORT /api/experiments/1 ROUNDS WARMUP MAX_SECONDS
 * </pre>
 * The API token and the session cookie come from the environment (ps shows argv to every local user). Before
 * measuring it checks who each variant is (GET /api/me: 401 without credentials, the account's name with them).
 * Prints a Markdown table of p50 / p95 / p99 per variant, then the differences to A at p50 and p95 with a paired
 * bootstrap interval (rounds resampled), and last a line {@code VERDICT WORST_P95_DIFF WORST_UPPER_BOUND} (ms) over
 * the p95 differences of B and C, for the verdict against the goal (1 ms).
 */
public final class LatencyRounds {

    private static final int BOOTSTRAP = 2000;

    private record Variant(String name, String who, String header, String value) {

        HttpRequest request(URI uri) {
            HttpRequest.Builder builder = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET();
            return header == null ? builder.build() : builder.header(header, value).build();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            throw new IllegalArgumentException("usage: QPLAB_TOKEN=... QPLAB_SESSION_COOKIE=... java LatencyRounds.java "
                    + "BASE_URL PATH ROUNDS WARMUP MAX_SECONDS");
        }
        String base = args[0];
        String path = args[1];
        int rounds = Integer.parseInt(args[2]);
        int warmup = Integer.parseInt(args[3]);
        long deadline = System.nanoTime() + Duration.ofSeconds(Long.parseLong(args[4])).toNanos();
        List<Variant> variants = List.of(
                new Variant("A", "anonymous (control 1)", null, null),
                new Variant("A'", "anonymous again (control 2)", null, null),
                new Variant("B", "API token (`Authorization: Bearer qplab_...`)", "Authorization", "Bearer " + env("QPLAB_TOKEN")),
                new Variant("C", "browser session (`Cookie: SESSION=...`)", "Cookie", env("QPLAB_SESSION_COOKIE")));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();

        for (Variant v : variants) { // the variants really are who they say
            HttpResponse<String> me = client.send(v.request(URI.create(base + "/api/me")), HttpResponse.BodyHandlers.ofString());
            boolean anonymous = v.header() == null;
            if (anonymous ? me.statusCode() != 401 : me.statusCode() != 200 || !me.body().contains("\"name\":\"admin\"")) {
                throw new IllegalStateException(v.name() + ": GET /api/me answered " + me.statusCode() + " " + me.body());
            }
        }

        URI uri = URI.create(base + path);
        HttpRequest[] requests = variants.stream().map(v -> v.request(uri)).toArray(HttpRequest[]::new);
        int n = variants.size();
        long[][] ns = new long[n][rounds];
        int measured = 0;
        for (int r = -warmup; r < rounds; r++) {
            if (System.nanoTime() > deadline) {
                System.err.printf(Locale.ROOT, "LatencyRounds: time is up after %d measured rounds%n", measured);
                break;
            }
            for (int k = 0; k < n; k++) {
                int v = Math.floorMod(r + k, n);
                long t = call(client, requests[v]);
                if (r >= 0) {
                    ns[v][r] = t;
                }
            }
            measured = Math.max(0, r + 1);
        }
        if (measured < 100) {
            throw new IllegalStateException("only " + measured + " rounds measured");
        }
        for (int v = 0; v < n; v++) {
            ns[v] = Arrays.copyOf(ns[v], measured);
        }
        report(variants, ns);
    }

    private static long call(HttpClient client, HttpRequest request) throws IOException, InterruptedException {
        long start = System.nanoTime();
        HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        long took = System.nanoTime() - start;
        if (response.statusCode() != 200 || !new String(response.body(), StandardCharsets.UTF_8).contains("\"status\"")) {
            throw new IllegalStateException(request.uri() + " answered " + response.statusCode() + ": "
                    + new String(response.body(), StandardCharsets.UTF_8));
        }
        return took;
    }

    private static void report(List<Variant> variants, long[][] ns) {
        int rounds = ns[0].length;
        System.out.println("| variant | who the caller is | requests | p50 [ms] | p95 [ms] | p99 [ms] |");
        System.out.println("|---|---|---:|---:|---:|---:|");
        for (int v = 0; v < variants.size(); v++) {
            System.out.printf(Locale.ROOT, "| %s | %s | %d | %.3f | %.3f | %.3f |%n", variants.get(v).name(),
                    variants.get(v).who(), rounds, ms(quantile(ns[v], 0.50)), ms(quantile(ns[v], 0.95)),
                    ms(quantile(ns[v], 0.99)));
        }
        System.out.println();
        System.out.println("| difference | at p50 [ms] | at p95 [ms] | p95 difference, 95 % bootstrap interval [ms] |");
        System.out.println("|---|---:|---:|---|");
        String[] labels = {null, "A' − A (control: the same request twice)", "**B − A (API token check)**",
                "**C − A (session check)**"};
        double worstP95 = Double.NEGATIVE_INFINITY;
        double worstUpper = Double.NEGATIVE_INFINITY;
        Random random = new Random(1);
        for (int v = 1; v < variants.size(); v++) {
            double d50 = ms(quantile(ns[v], 0.50) - quantile(ns[0], 0.50));
            double d95 = ms(quantile(ns[v], 0.95) - quantile(ns[0], 0.95));
            double[] interval = bootstrapP95Difference(ns[v], ns[0], random);
            System.out.printf(Locale.ROOT, "| %s | %+.3f | %+.3f | %+.3f … %+.3f |%n", labels[v], d50, d95, interval[0], interval[1]);
            if (v >= 2) {
                worstP95 = Math.max(worstP95, d95);
                worstUpper = Math.max(worstUpper, interval[1]);
            }
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "VERDICT %.3f %.3f%n", worstP95, worstUpper);
    }

    /** 2.5 % and 97.5 % points of p95(x) − p95(y) over resampled rounds (the same rounds for both: paired in time). */
    private static double[] bootstrapP95Difference(long[] x, long[] y, Random random) {
        int n = x.length;
        double[] d = new double[BOOTSTRAP];
        long[] bx = new long[n];
        long[] by = new long[n];
        for (int b = 0; b < BOOTSTRAP; b++) {
            for (int i = 0; i < n; i++) {
                int j = random.nextInt(n);
                bx[i] = x[j];
                by[i] = y[j];
            }
            d[b] = ms(quantile(bx, 0.95) - quantile(by, 0.95));
        }
        Arrays.sort(d);
        return new double[] {d[(int) (0.025 * (BOOTSTRAP - 1))], d[(int) Math.ceil(0.975 * (BOOTSTRAP - 1))]};
    }

    /** Nearest rank. */
    private static long quantile(long[] values, double q) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    private static double ms(long ns) {
        return ns / 1e6;
    }

    private static String env(String name) {
        String value = System.getenv(name);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " is not set");
        }
        return value;
    }
}
