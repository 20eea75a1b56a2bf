package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * The submit box says what it knows of the text now: a verdict on earlier text goes as soon as the text is edited; a
 * valid matrix shows its runs, an estimated duration and its warnings (a host no agent of has connected); a YAML
 * syntax error keeps its caret in a monospace block.
 */
class SubmitBoxBrowserIntegrationTests extends BrowserTest {

    @Test
    void anEditClearsTheStaleVerdictAndAValidMatrixShowsItsEstimateAndWarnings() throws Exception {
        long experiments = count("experiment");
        open("");
        WebElement text = waitFor(By.id("matrix-text"));
        text.clear();
        text.sendKeys("name: typo\nbase: {msg_szie: 64}\n");
        assertThat(textOf(By.id("violations"), t -> t.contains("msg_szie")))
                .contains("unknown parameter 'msg_szie'; did you mean msg_size?");
        click(By.cssSelector("#submit-matrix button[type=submit]"));
        assertThat(textOf(By.id("submit-outcome"), t -> !t.isEmpty())).isEqualTo("Rejected: invalid matrix");

        text.clear();
        // parameters no other test runs (the database is shared): the estimate is from duration_ms, not from history
        text.sendKeys("name: fixed\nbase: {msg_size: 1111, duration_ms: 2345}\nrepeats: 3\n"
                + "hosts: {loopback: [never-connected-host]}\n");
        assertThat(browser.findElement(By.id("submit-outcome")).getText()).as("the rejection of the earlier text")
                .isEmpty();
        assertThat(browser.findElement(By.id("validation")).getText()).as("the earlier text's verdict")
                .doesNotStartWith("✗");
        assertThat(textOf(By.id("validation"), t -> t.startsWith("✓"))).isEqualTo("✓ fixed: 3 runs (1 points × repeats)");
        assertThat(textOf(By.id("validation-estimate"), t -> !t.isEmpty()))
                .startsWith("Estimated duration: ≈ ").contains("for 3 runs").contains("3 runs by duration_ms");
        assertThat(textOf(By.id("warnings"), t -> !t.isEmpty()))
                .contains("hosts: host never-connected-host is unknown: no agent of that name has connected");
        screenshot("submit-estimate-warnings");

        text.sendKeys("dimensions: {threads: [1, 2\n");
        assertThat(browser.findElement(By.id("validation-estimate")).isDisplayed()).as("cleared on edit").isFalse();
        WebElement caret = waiting(Duration.ofSeconds(20)).until(driver -> driver
                .findElements(By.cssSelector("#violations pre.syntax-caret")).stream().findFirst().orElse(null));
        assertThat(caret.getText()).contains("| dimensions: {threads: [1, 2").endsWith("^");
        assertThat(caret.getCssValue("font-family")).contains("monospace");
        assertThat(browser.findElement(By.id("violations")).getText()).contains("malformed YAML at line ");
        assertThat(browser.findElement(By.id("warnings")).isDisplayed()).isFalse();
        screenshot("submit-yaml-caret");
        assertThat(count("experiment")).as("nothing submitted").isEqualTo(experiments);
    }

    private String textOf(By locator, Predicate<String> done) {
        return waiting(Duration.ofSeconds(20)).until(driver -> {
            String value = driver.findElement(locator).getText();
            return done.test(value) ? value : null;
        });
    }
}
