package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.testkit.TestDirs;

/**
 * The dashboard in headless Chromium against a real controller: a browser per test, waits that
 * look again while the page re-renders, what the charts draw (read from their Chart.js instances),
 * downloads into a directory of the test's own, and screenshots into target/screenshots/. Every page runs under
 * the controller's Content-Security-Policy: a test fails when the browser logged that the policy refused anything
 * (an inline script or style, a resource from elsewhere).
 */
abstract class BrowserTest extends ControllerIntegrationTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Path SCREENSHOTS = Path.of("target", "screenshots");

    protected ChromeDriver browser;
    protected Path downloads;
    private Path profile;

    @BeforeEach
    void openBrowser() throws IOException {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "headless Chromium is not installed: apt-get install -y chromium chromium-driver (.ci/run does)");
        downloads = TestDirs.fresh("downloads");
        profile = TestDirs.fresh("chromium");
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile()).addArguments(
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1400,1600", "--user-data-dir=" + profile);
        options.setExperimentalOption("prefs", Map.of("download.default_directory", downloads.toString(),
                "download.prompt_for_download", false));
        options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL")); // what the policy refused
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).build();
        browser = new ChromeDriver(service, options);
        Files.createDirectories(SCREENSHOTS);
        logIn("admin", ADMIN_PASSWORD);
    }

    /** Logs in on the login page, as a person would; waits until the dashboard shows who is logged in. */
    protected void logIn(String name, String password) {
        browser.get("http://127.0.0.1:" + port + "/login");
        waitFor(By.id("username")).sendKeys(name);
        browser.findElement(By.id("password")).sendKeys(password);
        browser.findElement(By.cssSelector("button[type=submit]")).click();
        try {
            waitFor(By.id("who"));
        } catch (org.openqa.selenium.TimeoutException e) {
            // once more from the dashboard: the session holds. Chrome aborts the requests in flight when the host's
            // network changes (ERR_NETWORK_CHANGED), which a test's namespaces and bridges do as they come up.
            String seen = browser.manage().logs().get(LogType.BROWSER).getAll().stream().map(LogEntry::getMessage)
                    .reduce("", (a, b) -> a + b + "\n");
            assertThat(seen).as("what the page's Content-Security-Policy refused").doesNotContain("Content Security Policy");
            browser.get("http://127.0.0.1:" + port + "/");
            try {
                waitFor(By.id("who"));
            } catch (org.openqa.selenium.TimeoutException again) {
                throw new AssertionError("the dashboard never showed who is logged in; the browser's log:\n" + seen, again);
            }
        }
    }

    @AfterEach
    void closeBrowser() throws IOException {
        try {
            if (browser != null) {
                assertThat(refusedByThePolicy()).as("what the page's Content-Security-Policy refused (browser log)")
                        .isEmpty();
            }
        } finally {
            if (browser != null) {
                browser.quit();
            }
            TestDirs.delete(profile);
            TestDirs.delete(downloads);
        }
    }

    /** The browser log's Content-Security-Policy refusals since the last call (reading the log empties it). */
    protected List<String> refusedByThePolicy() {
        return browser.manage().logs().get(LogType.BROWSER).getAll().stream().map(LogEntry::getMessage)
                .filter(m -> m.contains("Content Security Policy") || m.contains("Content-Security-Policy")).toList();
    }

    protected void open(String hash) {
        browser.get("http://127.0.0.1:" + port + "/" + hash);
    }

    /** Points of a chart by series label: each point's fields (x, y, min, max, n, ...) as numbers. */
    @SuppressWarnings("unchecked")
    protected Map<String, List<Map<String, Double>>> points(String chart) {
        Object result = browser.executeScript("""
                const out = {};
                for (const d of window.qplabCharts[arguments[0]].data.datasets) {
                  out[d.label] = d.data.map(p => Object.fromEntries(Object.entries(p)
                      .filter(([k, v]) => typeof v === 'number').map(([k, v]) => [k, v])));
                }
                return out;""", chart);
        Map<String, List<Map<String, Double>>> points = new HashMap<>();
        ((Map<String, List<Map<String, Number>>>) result).forEach((label, list) -> {
            List<Map<String, Double>> converted = new ArrayList<>();
            list.forEach(p -> {
                Map<String, Double> point = new HashMap<>();
                p.forEach((key, value) -> point.put(key, value.doubleValue()));
                converted.add(point);
            });
            points.put(label, converted);
        });
        return points;
    }

    /** The points a chart draws, by series label: [x, y] in the chart's units. */
    protected Map<String, List<List<Double>>> drawn(String chart) {
        Map<String, List<List<Double>>> drawn = new HashMap<>();
        points(chart).forEach((label, list) -> drawn.put(label, list.stream().map(p -> List.of(p.get("x"), p.get("y"))).toList()));
        return drawn;
    }

    /** An axis of a chart: {type, title}. */
    @SuppressWarnings("unchecked")
    protected Map<String, Object> axis(String chart, String axis) {
        return (Map<String, Object>) browser.executeScript("""
                const scale = window.qplabCharts[arguments[0]].options.scales[arguments[1]];
                return {type: scale.type, title: scale.title.text, beginAtZero: !!scale.beginAtZero};""", chart, axis);
    }

    protected void awaitCharts(Duration timeout, String... names) {
        String condition = String.join(" && ", java.util.Arrays.stream(names)
                .map(n -> "window.qplabCharts." + n + " && window.qplabCharts." + n + ".data.datasets.length > 0").toList());
        waiting(timeout).until(driver -> ((JavascriptExecutor) driver).executeScript("return !!(window.qplabCharts && " + condition + ")"));
    }

    protected WebElement waitFor(By locator) {
        return waiting(Duration.ofSeconds(20)).until(ExpectedConditions.visibilityOfElementLocated(locator));
    }

    /** The pages re-render every few seconds: an element found a moment ago may be gone, so look again. */
    protected WebDriverWait waiting(Duration timeout) {
        WebDriverWait wait = new WebDriverWait(browser, timeout);
        wait.ignoring(StaleElementReferenceException.class).ignoring(NoSuchElementException.class);
        return wait;
    }

    /**
     * Clicks what the locator finds, looking again if the page re-rendered it meanwhile or if, while
     * the page was still laying out, another element lay over it for a moment (an element that stays
     * covered fails the test after the timeout).
     */
    protected void click(By locator) {
        waiting(Duration.ofSeconds(20)).ignoring(org.openqa.selenium.ElementClickInterceptedException.class)
                .ignoring(org.openqa.selenium.ElementNotInteractableException.class).until(driver -> {
            driver.findElement(locator).click();
            return true;
        });
    }

    /** The downloaded file of that name, once the browser has written all of it. */
    protected Path downloaded(String name) {
        Path file = downloads.resolve(name);
        waiting(Duration.ofSeconds(20)).until(driver -> Files.isRegularFile(file)
                && !Files.exists(downloads.resolve(name + ".crdownload")));
        assertThat(file).isNotEmptyFile();
        return file;
    }

    /**
     * The cards on the page that show nothing: a chart card without a chart, or a card whose visible content is a
     * placeholder line (class empty: "No runs.", "Loading…"); each as "what: its text".
     */
    @SuppressWarnings("unchecked")
    protected List<String> emptyCards() {
        return (List<String>) browser.executeScript("""
                const visible = (e) => e.getClientRects().length > 0;
                return [...document.querySelectorAll('.card')].filter(visible).flatMap((card) => {
                  if (card.matches('.chart-card')) {
                    return card.classList.contains('has-chart') ? [] : [`chart ${card.dataset.chart}: ${card.innerText}`];
                  }
                  const empty = [...card.querySelectorAll('.empty, .chart-empty')].filter(visible);
                  return empty.length === 0 ? [] : [`${card.id || card.querySelector('h2')?.textContent}: `
                    + empty.map((e) => e.textContent).join('; ')];
                });""");
    }

    /** The rows of a table with one header row, each as column header → the cell's text. */
    @SuppressWarnings("unchecked")
    protected List<Map<String, String>> tableRows(String id) {
        return (List<Map<String, String>>) browser.executeScript("""
                const table = document.getElementById(arguments[0]);
                const names = [...table.querySelectorAll('thead th')].map((th) => th.textContent);
                return [...table.querySelectorAll('tbody tr')].map((tr) => Object.fromEntries([...tr.children]
                  .map((td, i) => [names[i], td.textContent])));""", id);
    }

    /** Whether the table with this id fits the width its container gives it (no part of it scrolled out of sight). */
    protected boolean fits(String id) {
        return (Boolean) browser.executeScript("""
                const table = document.getElementById(arguments[0]);
                return table.scrollWidth <= table.parentElement.clientWidth;""", id);
    }

    /** A number as a table shows it (three significant digits, "1,000" with separators) is this value. */
    protected static void assertShows(String shown, double value, String what) {
        assertThat(shown).as(what).isNotEqualTo("–");
        assertThat(Double.parseDouble(shown.replace(",", ""))).as("%s: %s", what, shown)
                .isCloseTo(value, org.assertj.core.api.Assertions.within(Math.abs(value) * 0.005));
    }

    protected void screenshot(String name) throws IOException {
        Files.write(SCREENSHOTS.resolve(name + ".png"), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }
}
