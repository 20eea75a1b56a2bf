package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.springframework.http.MediaType;

/**
 * Accounts in the dashboard: the login page, who is logged in, logging out; a viewer sees no Cancel button and a
 * change it forces anyway (its own request from the page, with its CSRF token) is refused. A new API token is on
 * screen only until it is copied (or hidden, or a minute passes), and Revoke asks first. The pages run under the
 * controller's Content-Security-Policy, and what it refuses shows in the browser's log (BrowserTest checks that
 * log after every test).
 */
class AccountsBrowserIntegrationTests extends BrowserTest {

    @Test
    void anAdminLogsOutAndAViewerSeesNoCancelAndIsRefusedWhenItTries() {
        long id = ((Number) http().post().uri("/api/experiments").contentType(MediaType.parseMediaType("application/yaml"))
                .bodyValue("""
                        name: waits for a host that never comes
                        hosts: {loopback: [nobody-is-here]}
                        base: {provider: tcp, msg_size: 64, iterations: 10}
                        """).exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody()
                .get("id")).longValue();
        try {
            // logged in as admin (BrowserTest): its name and role in the header, and the Cancel button
            open("");
            assertThat(waitFor(By.id("who")).getText()).isEqualTo("admin (admin)");
            assertThat(waitFor(By.cssSelector("#experiment-" + id + " button.cancel")).isDisplayed()).isTrue();
            click(By.id("logout"));
            waiting(Duration.ofSeconds(20)).until(driver -> driver.getCurrentUrl().endsWith("/login?logout"));
            assertThat(waitFor(By.id("login-message")).getText()).isEqualTo("Logged out.");
            open("");
            waiting(Duration.ofSeconds(20)).until(driver -> driver.getCurrentUrl().endsWith("/login"));

            // a wrong password
            browser.findElement(By.id("username")).sendKeys("admin");
            browser.findElement(By.id("password")).sendKeys("not the password");
            browser.findElement(By.cssSelector("button[type=submit]")).click();
            assertThat(waitForText(By.id("login-message"))).isEqualTo("Wrong account or password.");

            tokenOf("viewer"); // makes the account test-viewer
            logIn("test-viewer", "password-of-viewer");
            open("");
            assertThat(waitFor(By.id("who")).getText()).isEqualTo("test-viewer (viewer)");
            waitFor(By.id("experiment-" + id));
            assertThat(browser.findElements(By.cssSelector("#experiment-" + id + " button.cancel")))
                    .as("a viewer sees no Cancel").allSatisfy(b -> assertThat(b.isDisplayed()).isFalse());
            assertThat(browser.findElements(By.id("submit-matrix"))).as("nor the submit form")
                    .allSatisfy(f -> assertThat(f.isDisplayed()).isFalse());
            // the page's own request, with the session and CSRF token: the controller refuses it
            @SuppressWarnings("unchecked")
            Map<String, Object> answer = (Map<String, Object>) browser.executeAsyncScript("""
                    const done = arguments[arguments.length - 1];
                    const csrf = decodeURIComponent(document.cookie.split('; ').find(c => c.startsWith('XSRF-TOKEN=')).slice(11));
                    fetch('api/experiments/' + arguments[0] + '/cancel', {method: 'POST', headers: {'X-XSRF-TOKEN': csrf}})
                      .then(async r => done({status: r.status, body: await r.text()}));""", id);
            assertThat(((Number) answer.get("status")).intValue()).isEqualTo(403);
            assertThat((String) answer.get("body")).contains("your role (viewer) may not POST");
            assertThat(jdbc.sql("SELECT status FROM experiment WHERE id = ?").param(id).query(String.class).single())
                    .isEqualTo("QUEUED");
        } finally {
            http().post().uri("/api/experiments/{id}/cancel", id).exchange();
        }
    }

    @Test
    void aTokenMadeOnTheAccountPageIsShownOnlyUntilCopiedOrLeftWorksUntilRevokedAfterAConfirmationAndIsAudited()
            throws Exception {
        open("#/account");
        String token = makeToken("from the browser");
        assertThat(browser.findElement(By.cssSelector("#new-token .token-countdown")).getText())
                .as("it hides itself").matches("hidden in \\d+ s");
        var script = anonymous().mutate().defaultHeader("Authorization", "Bearer " + token).build();
        script.get().uri("/api/me").exchange().expectStatus().isOk().expectBody().jsonPath("$.name").isEqualTo("admin");

        // copied (as the browser's own copy of the selected value would be): hidden, in no element of the page
        browser.executeScript("document.getElementById('token-value').dispatchEvent(new Event('copy', {bubbles: true}))");
        assertThat(waitFor(By.id("token-hidden")).getText())
                .isEqualTo("Token \"from the browser\" copied and hidden: it is not shown again.");
        assertThat(browser.getPageSource()).doesNotContain(token);
        // one left on screen is gone once the page is left, and not shown again on coming back
        String left = makeToken("left on screen");
        open("#/hosts");
        waitFor(By.id("hosts-page"));
        assertThat(browser.getPageSource()).doesNotContain(left);
        open("#/account");
        waitFor(By.id("tokens"));
        assertThat(browser.getPageSource()).doesNotContain(left).doesNotContain(token);
        assertThat(waitFor(By.id("audit")).getText()).contains("POST /api/tokens");

        // Revoke asks first: "no" keeps the token working
        By revoke = By.xpath("//table[@id='tokens']//tr[td[1]='from the browser']//button");
        click(revoke);
        Alert confirm = waiting(Duration.ofSeconds(10)).until(ExpectedConditions.alertIsPresent());
        assertThat(confirm.getText()).startsWith("Revoke the API token \"from the browser\"?");
        confirm.dismiss();
        script.get().uri("/api/me").exchange().expectStatus().isOk();
        click(revoke);
        waiting(Duration.ofSeconds(10)).until(ExpectedConditions.alertIsPresent()).accept();
        waiting(Duration.ofSeconds(20)).until(driver -> driver.findElements(revoke).isEmpty());
        script.get().uri("/api/me").exchange().expectStatus().isUnauthorized();
        screenshot("account");
    }

    /** Makes a token on the account page; its value, as the page shows it. */
    private String makeToken(String name) {
        waitFor(By.id("token-name")).sendKeys(name);
        click(By.cssSelector("#create-token button"));
        String value = waiting(Duration.ofSeconds(20)).until(driver -> {
            String shown = driver.findElement(By.cssSelector("#new-token")).getText();
            return shown.contains("Token \"" + name + "\"") ? driver.findElement(By.id("token-value")).getText() : null;
        });
        assertThat(value).startsWith("qplab_");
        return value;
    }

    @Test
    void theDashboardRunsUnderItsContentSecurityPolicyWhichRefusesAnInjectedInlineScriptAndStyle() {
        open("");
        waitFor(By.id("who"));
        assertThat(refusedByThePolicy()).as("the dashboard needs nothing its policy refuses").isEmpty();
        // what an injection would add: an inline script and a style attribute
        browser.executeScript("""
                const script = document.createElement('script');
                script.textContent = 'window.injected = true';
                document.head.append(script);
                const styled = document.createElement('p');
                styled.id = 'styled';
                styled.setAttribute('style', 'color: rgb(255, 0, 0)');
                styled.textContent = 'styled';
                document.body.append(styled);""");
        assertThat(browser.executeScript("return window.injected === true")).as("the inline script did not run")
                .isEqualTo(false);
        assertThat(browser.findElement(By.id("styled")).getCssValue("color")).as("nor did the inline style apply")
                .isNotEqualTo("rgba(255, 0, 0, 1)");
        assertThat(refusedByThePolicy()).as("the browser logged the refusals")
                .anySatisfy(m -> assertThat(m).contains("script-src"))
                .anySatisfy(m -> assertThat(m).contains("style-src"));
    }

    private String waitForText(By locator) {
        return waiting(Duration.ofSeconds(20)).until(driver -> {
            String text = driver.findElement(locator).getText();
            return text.isEmpty() ? null : text;
        });
    }
}
