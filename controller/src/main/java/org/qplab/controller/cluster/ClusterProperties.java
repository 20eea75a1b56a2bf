package org.qplab.controller.cluster;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * qplab.cluster.*: several controllers on one PostgreSQL (README "Scaling out").
 *
 * @param name      how this controller is named in the controller list and logs; unset: host:port
 * @param heartbeat how often this controller marks itself alive in the database (and looks for controllers that are
 *                  gone)
 * @param deadAfter how long a controller may go without a heartbeat before the others take it for gone: its agents
 *                  are marked disconnected (their runs are recovered where they reconnect, or failed after
 *                  qplab.agents.lost-after), and GET /api/controllers lists it as not alive (its lease on the
 *                  background jobs passes on by qplab.cluster.lease, not by this)
 * @param lease     how long the leader's lease on the background jobs that run once across controllers (recurring
 *                  schedules, alert webhook posts, trace retention, orphaned runs of controllers that are gone) lasts
 *                  without a renewal; it renews every third of it. A leader that dies is replaced within about this
 *                  long (plus a third); a clean stop hands the lease over at once
 */
@ConfigurationProperties("qplab.cluster")
public record ClusterProperties(String name, @DefaultValue("2s") Duration heartbeat,
                                @DefaultValue("10s") Duration deadAfter, @DefaultValue("10s") Duration lease) {

    public ClusterProperties {
        if (heartbeat.isNegative() || heartbeat.isZero()) {
            throw new IllegalArgumentException("qplab.cluster.heartbeat must be positive, got " + heartbeat);
        }
        if (deadAfter.compareTo(heartbeat.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("qplab.cluster.dead-after must be at least twice qplab.cluster.heartbeat ("
                    + heartbeat + "), got " + deadAfter);
        }
        if (lease.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("qplab.cluster.lease must be at least 1s (it is renewed every third of it, "
                    + "a round trip to PostgreSQL each), got " + lease);
        }
    }
}
