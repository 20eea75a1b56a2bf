package org.qplab.controller.cluster;

import jakarta.annotation.PreDestroy;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.qplab.controller.database.SchemaVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Which of the controllers on one database runs the background jobs that must run once across them (the recurring
 * schedules, the alert webhook's posts, trace retention, the orphaned runs of controllers that are gone): the one that
 * holds the lease, a row of leader_lease named {@value #BACKGROUND}. One lease for all of them, not one per job: they
 * are light, and one leader is what an operator can find in the logs and in GET /api/controllers.
 *
 * <p>Every controller tries to take or keep it every third of qplab.cluster.lease, with one conditional upsert: the
 * row is written (holder = this controller, expiring a lease from now) only where this controller holds it already or
 * its holder's lease has expired, both judged by PostgreSQL's clock, so two controllers whose clocks disagree still
 * agree on the holder. {@link #leads()} is answered from memory, and turns false once this controller's own clock says
 * the lease may have expired since its last successful renewal (counted from before that renewal was sent), whatever
 * the database answers later: a leader cut off from PostgreSQL stops its jobs before another can take over. A
 * controller whose schema is older than the database's does not lead (it fires nothing: {@link SchemaVersion}). A
 * clean stop releases the lease, so another controller takes it at its next try. Renewals run on a thread of their
 * own, so that a busy scheduler never loses the lease; blocking.
 */
@Component
public class Leadership implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(Leadership.class);

    /** The lease of the background jobs. */
    static final String BACKGROUND = "background";

    /**
     * Takes or keeps the lease; a row only where it did, with the holder before (null: there was no row) and whether
     * its lease had expired. A holder that stopped is as good as expired: a controller restarted on the same host and
     * port marks the one before it stopped (ControllerNode), and takes the lease at once instead of waiting it out.
     */
    private static final String TAKE = """
            WITH before AS (SELECT holder, expires_at < now()
                                    OR holder IN (SELECT id FROM controller WHERE stopped_at IS NOT NULL) AS expired
                            FROM leader_lease WHERE name = :lease)
            INSERT INTO leader_lease AS l (name, holder, expires_at, since)
            VALUES (:lease, :me, now() + make_interval(secs => :ttl), now())
            ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at,
                since = CASE WHEN l.holder = EXCLUDED.holder AND l.expires_at >= now() THEN l.since ELSE now() END
            WHERE l.holder = EXCLUDED.holder OR l.expires_at < now()
                OR l.holder IN (SELECT id FROM controller WHERE stopped_at IS NOT NULL)
            RETURNING (SELECT holder FROM before), (SELECT expired FROM before)""";

    private final JdbcClient jdbc;
    private final String lease;
    private final String id;
    private final Duration ttl;
    private final BooleanSupplier mayLead;
    private volatile boolean leading;
    /** System.nanoTime() by which the lease may have expired, counted from before its last successful renewal. */
    private volatile long validUntil;
    private volatile boolean stopped;
    private ScheduledExecutorService renewals;

    @Autowired
    public Leadership(JdbcClient jdbc, ControllerNode node, ClusterProperties properties, SchemaVersion schema) {
        this(jdbc, BACKGROUND, node.id(), properties.lease(), schema::allowsScheduling);
    }

    /** The lease named lease, taken as controller id for ttl at a time, tried only while mayLead says so. */
    Leadership(JdbcClient jdbc, String lease, String id, Duration ttl, BooleanSupplier mayLead) {
        this.jdbc = jdbc;
        this.lease = lease;
        this.id = id;
        this.ttl = ttl;
        this.mayLead = mayLead;
    }

    /**
     * Whether this controller leads now: it holds the lease, and by its own clock the lease has not expired since it
     * was last renewed. Cheap, from memory: background jobs ask it at each pass.
     */
    public boolean leads() {
        return leading && System.nanoTime() - validUntil < 0;
    }

    /** Starts the renewals: the first try at once, then every third of the lease. */
    @Override
    public void afterSingletonsInstantiated() {
        renewals = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "qplab-leadership");
            thread.setDaemon(true);
            return thread;
        });
        renewals.scheduleWithFixedDelay(this::renew, 0, Math.max(1, ttl.toMillis() / 3), TimeUnit.MILLISECONDS);
    }

    /** One try at taking or keeping the lease; whether this controller leads after it. Logs a change either way. */
    synchronized boolean renew() {
        if (stopped) {
            return false;
        }
        try {
            if (!mayLead.getAsBoolean()) {
                if (leading) {
                    leading = false;
                    log.warn("controller {} stops leading the background jobs: the database's schema is newer than "
                            + "this controller (see the warning above); it releases the lease", describe(id));
                    release();
                }
                return false;
            }
            long asked = System.nanoTime();
            Optional<Before> taken = jdbc.sql(TAKE).param("lease", lease).param("me", id)
                    .param("ttl", ttl.toMillis() / 1000.0)
                    .query((rs, i) -> new Before(rs.getString(1), (Boolean) rs.getObject(2))).optional();
            if (taken.isPresent()) {
                validUntil = asked + ttl.toNanos();
                if (!leading) {
                    leading = true;
                    Before before = taken.get();
                    log.info("controller {} leads the background jobs now (lease '{}', {} at a time){}", describe(id),
                            lease, ttl, before.holder() == null ? ": no controller held the lease"
                                    : before.holder().equals(id) ? ": it held it before"
                                    : ", taking over from controller " + describe(before.holder())
                                            + (Boolean.TRUE.equals(before.expired()) ? ", whose lease expired or which stopped" : ""));
                }
            } else if (leading) {
                leading = false;
                log.warn("controller {} stops leading the background jobs: controller {} holds the lease '{}' now",
                        describe(id), describe(holder()), lease);
            }
        } catch (RuntimeException e) {
            if (leading && !leads()) {
                leading = false;
                log.warn("controller {} stops leading the background jobs: its lease '{}' may have expired, it could "
                        + "not renew it: {}", id, lease, e.toString());
            } else {
                log.warn("controller {} could not take or renew the lease '{}': {}", id, lease, e.toString());
            }
        }
        return leads();
    }

    /** The holder before a successful take, and whether its lease had expired. */
    private record Before(String holder, Boolean expired) {}

    /** A clean stop: no more renewals, and the lease released so that another controller takes it at its next try. */
    @PreDestroy
    void stop() {
        stopped = true;
        leading = false;
        if (renewals != null) {
            renewals.shutdownNow();
            try {
                renewals.awaitTermination(5, TimeUnit.SECONDS); // no renewal in flight re-takes it after the release
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        release();
    }

    /** Gives the lease up if this controller holds it. */
    void release() {
        leading = false;
        try {
            if (jdbc.sql("DELETE FROM leader_lease WHERE name = ? AND holder = ?").params(lease, id).update() > 0) {
                log.info("controller {} released the lease '{}' on the background jobs: another controller takes it at "
                        + "its next try", id, lease);
            }
        } catch (RuntimeException e) {
            log.debug("could not release the lease '{}': {}", lease, e.toString());
        }
    }

    /** The lease's holder now, or null. */
    private String holder() {
        return jdbc.sql("SELECT holder FROM leader_lease WHERE name = ?").param(lease).query(String.class).optional()
                .orElse(null);
    }

    /** A controller as the logs name it: its id, and its name when the controller table has it. */
    private String describe(String controller) {
        if (controller == null) {
            return "(none)";
        }
        try {
            return jdbc.sql("SELECT name FROM controller WHERE id = ?").param(controller).query(String.class).optional()
                    .map(name -> controller + " (" + name + ")").orElse(controller);
        } catch (RuntimeException e) {
            return controller;
        }
    }
}
