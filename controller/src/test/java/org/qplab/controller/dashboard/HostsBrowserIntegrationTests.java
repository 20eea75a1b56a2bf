package org.qplab.controller.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.springframework.http.MediaType;

/**
 * The hosts page: Remove asks first, then the host is gone; what an agent lacks for NVMe-oF is shown; this controller
 * is listed among the controllers, alive and leading.
 */
class HostsBrowserIntegrationTests extends BrowserTest {

    /** Stored data: the nvmeof facts an agent's hello carries (the agent's Capabilities) on a host without nvmet-rdma. */
    private static final String NVMEOF_FIXTURE = """
            {"hostname": "fixture-node3", "kernel": "6.1.0-fixture",
             "nvmeof": {"root": true, "configfs": "mounted", "fio": "fio-3.33", "nvme_cli": null,
               "modules": {"nvmet": "loaded", "nvmet-rdma": "missing", "nvmet-tcp": "loadable", "nvme-rdma": "missing",
                           "nvme-tcp": "loaded", "null_blk": "loaded"},
               "missing": {"target": {"rdma": ["module nvmet-rdma"], "tcp": [], "local": []},
                           "initiator": {"rdma": ["module nvme-rdma", "nvme-cli"], "tcp": ["nvme-cli"]}}}}""";

    @Test
    void aHostIsRemovedAfterAConfirmationAndAnAgentsMissingNvmeofModulesAreShown() throws Exception {
        jdbc.sql("""
                INSERT INTO agent (id, hostname, facts, connected, last_heartbeat)
                VALUES ('fixture-nvmeof-host', 'fixture-node3', CAST(? AS jsonb), false, now())
                ON CONFLICT (id) DO UPDATE SET facts = excluded.facts""").param(NVMEOF_FIXTURE).update();
        http().post().uri("/api/hosts").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", "remove-me", "address", "node-9.lab.example")).exchange().expectStatus().isCreated();

        open("#/hosts");
        WebElement self = waitFor(By.cssSelector("#controllers tr[data-self='true'][data-leader='true']"));
        assertThat(self.findElement(By.cssSelector(".controller-leader")).getText()).isEqualTo("leader");
        assertThat(self.getText()).contains("(this one)", "alive", "http://");
        WebElement nvmeof = waitFor(By.cssSelector("#agent-fixture-nvmeof-host .nvmeof"));
        assertThat(nvmeof.getDomAttribute("data-missing-modules")).isEqualTo("nvme-rdma nvmet-rdma");
        assertThat(nvmeof.findElement(By.tagName("h4")).getText()).isEqualTo("NVMe-oF · modules missing: nvme-rdma, nvmet-rdma");
        assertThat(nvmeof.findElement(By.cssSelector("tr[data-side='target'] td[data-transport='rdma']")).getText())
                .isEqualTo("missing module nvmet-rdma");
        assertThat(nvmeof.findElement(By.cssSelector("tr[data-side='target'] td[data-transport='tcp']")).getText())
                .isEqualTo("ready");
        assertThat(nvmeof.findElement(By.cssSelector("tr[data-side='initiator'] td[data-transport='rdma']")).getText())
                .isEqualTo("missing module nvme-rdma, nvme-cli");

        By remove = By.cssSelector("#host-remove-me button.host-remove");
        click(remove);
        Alert confirm = waiting(Duration.ofSeconds(10)).until(ExpectedConditions.alertIsPresent());
        assertThat(confirm.getText()).startsWith("Remove host remove-me from the inventory?");
        confirm.dismiss();
        http().get().uri("/api/hosts/remove-me").exchange().expectStatus().isOk();
        click(remove);
        waiting(Duration.ofSeconds(10)).until(ExpectedConditions.alertIsPresent()).accept();
        waiting(Duration.ofSeconds(20)).until(driver -> driver.findElements(By.id("host-remove-me")).isEmpty());
        http().get().uri("/api/hosts/remove-me").exchange().expectStatus().isNotFound();
        screenshot("hosts-nvmeof");
    }
}
