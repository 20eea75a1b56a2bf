package org.qplab.controller.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;

/**
 * The lease on the background jobs in the real database: controllers with ids of their own on one JdbcClient, each a
 * {@link Leadership} on a lease of the test's own (the context's controller keeps its own lease meanwhile). One leads
 * and the others do not, however they race; a holder that stops renewing loses it by its own clock at the lease's
 * end, and another takes it then (not before); a clean release or a schema the controller does not know hands it over
 * at once. And GET /api/controllers shows this controller, alone on its database, alive and leading.
 */
class LeadershipIntegrationTests extends ControllerIntegrationTest {

    private static final Duration TTL = Duration.ofSeconds(2);

    private Leadership controller(String lease, String id) {
        return new Leadership(jdbc, lease, id, TTL, () -> true);
    }

    private static String lease() {
        return "test-" + UUID.randomUUID();
    }

    private String holder(String lease) {
        return jdbc.sql("SELECT holder FROM leader_lease WHERE name = ?").param(lease).query(String.class).optional()
                .orElse(null);
    }

    @Test
    void oneLeadsAndWhenItStopsRenewingAnotherTakesOverOnceItsLeaseHasExpired() throws Exception {
        String lease = lease();
        Leadership a = controller(lease, "ctl-a");
        Leadership b = controller(lease, "ctl-b");

        assertThat(a.renew()).as("a takes the free lease").isTrue();
        assertThat(b.renew()).as("b finds it held").isFalse();
        assertThat(a.leads()).isTrue();
        assertThat(b.leads()).isFalse();
        assertThat(holder(lease)).isEqualTo("ctl-a");

        assertThat(a.renew()).as("a keeps it").isTrue(); // and then renews no more, as a dead controller
        long renewed = System.nanoTime(); // the lease runs from some time before this, by either clock
        Thread.sleep(TTL.toMillis() / 2);
        assertThat(b.renew()).as("half the lease later, b still finds it held").isFalse();
        assertThat(a.leads()).as("a's lease runs for a while yet").isTrue();

        long expired = renewed + TTL.toNanos() + Duration.ofMillis(300).toNanos();
        Thread.sleep(Math.max(0, (expired - System.nanoTime()) / 1_000_000));
        assertThat(a.leads()).as("by a's own clock its lease may have expired: it stops, whatever the database says")
                .isFalse();
        assertThat(b.renew()).as("past a's lease, b takes it").isTrue();
        assertThat(b.leads()).isTrue();
        assertThat(holder(lease)).isEqualTo("ctl-b");
        assertThat(a.renew()).as("a, back, finds b holding it").isFalse();
        assertThat(a.leads()).isFalse();
        assertThat(b.renew()).as("b keeps it").isTrue();
    }

    @Test
    void aCleanReleaseHandsTheLeaseOverAtOnce() {
        String lease = lease();
        Leadership a = controller(lease, "ctl-a");
        Leadership b = controller(lease, "ctl-b");
        assertThat(a.renew()).isTrue();
        assertThat(b.renew()).isFalse();

        a.release();

        assertThat(a.leads()).isFalse();
        assertThat(holder(lease)).as("released").isNull();
        assertThat(b.renew()).as("b takes it at its next try, long before a's lease would have ended").isTrue();
        assertThat(a.renew()).isFalse();
    }

    @Test
    void aControllerWhoseSchemaIsOlderThanTheDatabaseGivesUpTheLease() {
        String lease = lease();
        AtomicBoolean schemaKnown = new AtomicBoolean(true);
        Leadership a = new Leadership(jdbc, lease, "ctl-a", TTL, schemaKnown::get);
        Leadership b = controller(lease, "ctl-b");
        assertThat(a.renew()).isTrue();

        schemaKnown.set(false); // a newer controller migrated the database

        assertThat(a.renew()).as("a fires nothing now: it does not lead").isFalse();
        assertThat(a.leads()).isFalse();
        assertThat(b.renew()).as("b takes the lease a released").isTrue();
        schemaKnown.set(true);
        assertThat(a.renew()).isFalse();
    }

    @Test
    void ofControllersRacingForAFreeLeaseExactlyOneWins() throws Exception {
        String lease = lease();
        int racers = 8;
        CyclicBarrier start = new CyclicBarrier(racers);
        ExecutorService threads = Executors.newFixedThreadPool(racers);
        try {
            List<Future<Boolean>> won = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                Leadership racer = controller(lease, "ctl-" + i);
                Callable<Boolean> race = () -> {
                    start.await();
                    return racer.renew();
                };
                won.add(threads.submit(race));
            }
            List<Boolean> results = new ArrayList<>();
            for (Future<Boolean> f : won) {
                results.add(f.get());
            }
            assertThat(results).as("who leads").containsOnlyOnce(true);
            assertThat(holder(lease)).isEqualTo("ctl-" + results.indexOf(true));
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theControllerListShowsThisControllerAliveAndLeading() throws Exception {
        Await.until("this controller, alone on its database, leads", Duration.ofSeconds(15), () -> {
            List<Map<String, Object>> listed = http().get().uri("/api/controllers").exchange().expectStatus().isOk()
                    .expectBody(JSON_ARRAY).returnResult().getResponseBody();
            return listed.stream().anyMatch(c -> Boolean.TRUE.equals(c.get("self")) && Boolean.TRUE.equals(c.get("leader")));
        }, () -> "");

        List<Map<String, Object>> listed = http().get().uri("/api/controllers").exchange().expectStatus().isOk()
                .expectBody(JSON_ARRAY).returnResult().getResponseBody();
        assertThat(listed).filteredOn(c -> Boolean.TRUE.equals(c.get("self"))).singleElement().satisfies(self -> {
            assertThat(self).containsEntry("alive", true).containsEntry("leader", true)
                    .containsEntry("url", jdbc.sql("SELECT url FROM controller WHERE id = ?").param(self.get("id"))
                            .query(String.class).single())
                    .containsKeys("name", "startedAt", "lastSeen", "agents");
            assertThat((String) self.get("url")).endsWith(":" + port);
        });
        assertThat(listed).filteredOn(c -> Boolean.TRUE.equals(c.get("leader"))).hasSize(1);
        anonymous().get().uri("/api/controllers").exchange().expectStatus().isUnauthorized();
    }
}
