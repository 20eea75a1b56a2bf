package org.qplab.controller.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.qplab.testkit.TestDirs;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Draws an experiment's measured curve as a PNG with the dashboard's own Chart.js (the webjar the
 * controller serves), in headless Chromium: y (a run_summary column) against parameter x, one line
 * per combination of the series parameters, each point the mean over its runs. What the reference
 * experiments' READMEs show. Or a chart of the dashboard itself, as its experiment page draws it
 * ({@link #dashboardChart}).
 */
public final class CurvePicture implements AutoCloseable {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    /** What to draw: y in {@code unit} (the column divided by {@code scale}). */
    public record Spec(String x, boolean log2X, String y, String yTitle, double scale, List<String> series) {}

    private final ChromeDriver browser;
    private final Path profile;
    private final int port;

    private CurvePicture(ChromeDriver browser, Path profile, int port) {
        this.browser = browser;
        this.profile = profile;
        this.port = port;
    }

    /** A browser on the controller's dashboard page, or empty where Chromium is not installed. */
    public static Optional<CurvePicture> open(int port) throws IOException {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            return Optional.empty();
        }
        Path profile = TestDirs.fresh("chromium");
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile()).addArguments(
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1000,800", "--user-data-dir=" + profile);
        ChromeDriver browser = new ChromeDriver(new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .build(), options);
        // logged in as the first admin (the tests' controllers set its password)
        browser.get("http://127.0.0.1:" + port + "/login");
        new WebDriverWait(browser, Duration.ofSeconds(30)).until(d -> !d.findElements(org.openqa.selenium.By.id("username")).isEmpty());
        browser.findElement(org.openqa.selenium.By.id("username")).sendKeys("admin");
        browser.findElement(org.openqa.selenium.By.id("password")).sendKeys(
                org.qplab.controller.ControllerIntegrationTest.ADMIN_PASSWORD);
        browser.findElement(org.openqa.selenium.By.cssSelector("button[type=submit]")).click();
        new WebDriverWait(browser, Duration.ofSeconds(30))
                .until(d -> (Boolean) ((JavascriptExecutor) d).executeScript("return typeof window.Chart === 'function'"));
        return Optional.of(new CurvePicture(browser, profile, port));
    }

    /** The points of an experiment's finished runs by series label: [x, mean y] sorted by x. */
    public static Map<String, List<double[]>> points(JdbcClient jdbc, long experimentId, Spec spec) {
        Map<String, Map<Double, double[]>> sums = new LinkedHashMap<>();
        jdbc.sql("SELECT r.params::text, s." + spec.y() + " FROM run r JOIN run_summary s ON s.run_id = r.id "
                        + "WHERE r.experiment_id = ? AND r.status = 'FINISHED' ORDER BY r.id")
                .param(experimentId)
                .query((rs, i) -> {
                    Map<?, ?> params = tools.jackson.databind.json.JsonMapper.builder().build()
                            .readValue(rs.getString(1), Map.class);
                    List<String> label = new ArrayList<>();
                    for (String p : spec.series()) {
                        label.add(p + " " + params.get(p));
                    }
                    double x = ((Number) params.get(spec.x())).doubleValue();
                    double[] sum = sums.computeIfAbsent(String.join(", ", label), k -> new java.util.TreeMap<>())
                            .computeIfAbsent(x, k -> new double[2]);
                    sum[0] += rs.getDouble(2) / spec.scale();
                    sum[1]++;
                    return null;
                }).list();
        Map<String, List<double[]>> points = new LinkedHashMap<>();
        sums.forEach((label, byX) -> points.put(label,
                byX.entrySet().stream().map(e -> new double[] {e.getKey(), e.getValue()[0] / e.getValue()[1]}).toList()));
        return points;
    }

    /** Renders the curve and writes it to file. */
    public void draw(String title, Spec spec, Map<String, List<double[]>> points, Path file) throws IOException {
        List<Map<String, Object>> datasets = new ArrayList<>();
        points.forEach((label, list) -> datasets.add(Map.of("label", label,
                "data", list.stream().map(p -> Map.of("x", p[0], "y", p[1])).toList())));
        String png = (String) browser.executeScript("""
                const [title, xTitle, log2, yTitle, datasets, bytes] = arguments;
                const size = (v) => v >= 1048576 ? (v / 1048576) + ' MiB' : v >= 1024 ? (v / 1024) + ' KiB' : v + ' B';
                const label = (v) => bytes ? size(v) : v;
                const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
                const canvas = document.createElement('canvas');
                canvas.width = 900; canvas.height = 500;
                canvas.style.width = '900px'; canvas.style.height = '500px';
                document.body.replaceChildren(canvas);
                const chart = new Chart(canvas, {
                  type: 'line',
                  data: { datasets: datasets.map((d, i) => ({ ...d, borderColor: palette[i % 8],
                                                              backgroundColor: palette[i % 8], tension: 0 })) },
                  options: {
                    animation: false, responsive: false, devicePixelRatio: 1,
                    plugins: { title: { display: true, text: title }, legend: { position: 'bottom' } },
                    scales: {
                      x: { type: log2 ? 'logarithmic' : 'linear', title: { display: true, text: xTitle },
                           // every power of two on a log2 axis (Chart.js would place 1..9, 10, 20, ...)
                           afterBuildTicks: (axis) => { if (!log2) return; const ticks = [];
                             for (let v = 2 ** Math.floor(Math.log2(axis.min)); v <= axis.max * 1.0001; v *= 2) {
                               if (v >= axis.min * 0.9999) ticks.push({ value: v }); }
                             axis.ticks = ticks; },
                           ticks: log2 ? { callback: (v) => label(v), autoSkip: false }
                                       : { stepSize: 1, callback: (v) => label(v) } },
                      y: { beginAtZero: true, title: { display: true, text: yTitle } },
                    },
                  },
                  plugins: [{ id: 'white', beforeDraw: (c) => { const g = c.ctx; g.save();
                    g.fillStyle = 'white'; g.fillRect(0, 0, c.width, c.height); g.restore(); } }],
                });
                return chart.toBase64Image('image/png');""",
                title, xTitle(spec), spec.log2X(), spec.yTitle(), datasets, spec.x().equals("msg_size"));
        Files.createDirectories(file.getParent());
        Files.write(file, Base64.getDecoder().decode(png.substring(png.indexOf(',') + 1)));
    }

    /**
     * Opens the experiment's page in the dashboard, waits for its chart {@code name} (a key of
     * window.qplabCharts) to draw, and writes the chart's card (caption, chart, axes, legend) to file.
     */
    public void dashboardChart(long experimentId, String name, Path file) throws IOException {
        // a full load: draw() replaces the page's body, and a URL that differs only in its hash would not reload it
        browser.get("about:blank");
        browser.get("http://127.0.0.1:" + port + "/#/experiments/" + experimentId);
        new WebDriverWait(browser, Duration.ofSeconds(60)).until(d -> (Boolean) ((JavascriptExecutor) d).executeScript(
                "const c = window.qplabCharts && window.qplabCharts[arguments[0]];"
                        + " return !!c && c.data.datasets.length > 0;", name));
        org.openqa.selenium.WebElement card = browser.findElement(
                org.openqa.selenium.By.cssSelector("[data-chart=" + name + "]"));
        Files.createDirectories(file.getParent());
        Files.write(file, card.getScreenshotAs(org.openqa.selenium.OutputType.BYTES));
    }

    private static String xTitle(Spec spec) {
        String name = switch (spec.x()) {
            case "msg_size" -> "message size [B, KiB, MiB]";
            case "threads" -> "threads";
            case "qps_per_thread" -> "QPs per thread";
            default -> spec.x();
        };
        return name + (spec.log2X() ? " (log2 axis)" : "");
    }

    @Override
    public void close() {
        browser.quit();
        try {
            TestDirs.delete(profile);
        } catch (IOException e) {
            // a scratch directory under target/tmp: clean removes it
        }
    }
}
