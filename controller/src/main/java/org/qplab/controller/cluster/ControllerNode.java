package org.qplab.controller.cluster;

import jakarta.annotation.PreDestroy;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.SchedulingConfigurer;
import org.springframework.scheduling.config.ScheduledTaskRegistrar;
import org.springframework.stereotype.Component;

/**
 * This controller as one of several on one PostgreSQL: a row of the controller table with a new id at every start,
 * marked alive every qplab.cluster.heartbeat. With each beat it also looks for controllers that are gone (no beat for
 * qplab.cluster.dead-after, or stopped): their agents are marked disconnected, so that their runs are recovered where
 * the agents reconnect, or failed after qplab.agents.lost-after, as after a restart. Any controller may do that (the
 * update is the same whoever runs it). Blocking: the id is read at once, the rest runs on the scheduler's thread.
 */
@Component
public class ControllerNode implements SmartInitializingSingleton, SchedulingConfigurer {

    private static final Logger log = LoggerFactory.getLogger(ControllerNode.class);

    /** The live controllers' ids (this one's included), as SQL to put in an IN (...). */
    public static final String ALIVE = "SELECT id FROM controller WHERE stopped_at IS NULL "
            + "AND last_seen > now() - make_interval(secs => %s)";

    private final JdbcClient jdbc;
    private final ClusterProperties properties;
    private final String id;
    private volatile String name;
    private volatile boolean stopped;

    public ControllerNode(JdbcClient jdbc, ClusterProperties properties) {
        this.jdbc = jdbc;
        this.properties = properties;
        byte[] random = new byte[6];
        new SecureRandom().nextBytes(random);
        this.id = HexFormat.of().formatHex(random);
        this.name = properties.name() != null && !properties.name().isBlank() ? properties.name() : hostname();
    }

    /** This controller process: a new id at every start. */
    public String id() {
        return id;
    }

    /** How it is named: qplab.cluster.name, else host:port. */
    public String name() {
        return name;
    }

    /** The SQL of the live controllers' ids, to put in an IN (...). */
    public String aliveSql() {
        return ALIVE.formatted(properties.deadAfter().toMillis() / 1000.0);
    }

    @Override
    public void afterSingletonsInstantiated() {
        jdbc.sql("INSERT INTO controller (id, name) VALUES (?, ?)").params(id, name).update();
        log.info("controller {} ({}) started; controllers alive on this database: {}", id, name, alive());
    }

    /** Names it host:port, and says where its API is, once the web server listens. */
    @EventListener
    public void listening(WebServerInitializedEvent event) {
        int port = event.getWebServer().getPort();
        if (properties.name() == null || properties.name().isBlank()) {
            name = hostname() + ":" + port;
        }
        String url = "http://" + hostname() + ":" + port;
        jdbc.sql("UPDATE controller SET name = ?, url = ? WHERE id = ?").params(name, url, id).update();
        // a controller on this host and port before this one is gone (this one holds the port): a killed one that is
        // restarted need not wait for dead-after before its runs are recovered here
        int before = jdbc.sql("UPDATE controller SET stopped_at = now() WHERE url = ? AND id <> ? AND stopped_at IS NULL")
                .params(url, id).update();
        if (before > 0) {
            log.info("the controller that ran at {} before this one is gone: its runs are recovered here as its agents "
                    + "come back", url);
        }
    }

    /** The ids of the controllers alive now, this one included. */
    public List<String> alive() {
        return jdbc.sql(aliveSql() + " ORDER BY started_at").query(String.class).list();
    }

    /** Whether controllerId is alive now (this one always is until it stops). */
    public boolean alive(String controllerId) {
        return id.equals(controllerId) || jdbc.sql("SELECT count(*) FROM (" + aliveSql() + ") c WHERE c.id = ?")
                .param(controllerId).query(Long.class).single() > 0;
    }

    @Override
    public void configureTasks(ScheduledTaskRegistrar tasks) {
        tasks.addFixedDelayTask(this::beat, properties.heartbeat());
    }

    /** Marks this controller alive; marks the agents of controllers that are gone disconnected. */
    void beat() {
        if (stopped) {
            return;
        }
        try {
            jdbc.sql("UPDATE controller SET last_seen = now() WHERE id = ?").param(id).update();
            int orphaned = jdbc.sql("UPDATE agent SET connected = false WHERE connected AND controller_id <> ? "
                    + "AND controller_id NOT IN (" + aliveSql() + ")").param(id).update();
            if (orphaned > 0) {
                log.warn("{} agent(s) were connected to a controller that is gone (no heartbeat for {} s): marked "
                        + "disconnected; their runs are recovered where they reconnect", orphaned,
                        properties.deadAfter().toSeconds());
            }
        } catch (RuntimeException e) {
            log.warn("could not mark controller {} alive: {}", id, e.toString());
        }
    }

    /** A clean stop: the others see at once that this controller is gone. */
    @PreDestroy
    void stop() {
        stopped = true;
        try {
            jdbc.sql("UPDATE controller SET stopped_at = now() WHERE id = ?").param(id).update();
        } catch (RuntimeException e) {
            log.debug("could not mark controller {} stopped: {}", id, e.toString());
        }
    }

    private static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
