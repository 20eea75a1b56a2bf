package org.qplab.controller.database;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * qplab.database.*: the embedded PostgreSQL used when spring.datasource.url is not set.
 *
 * @param embedded settings of the embedded server
 */
@ConfigurationProperties("qplab.database")
public record DatabaseProperties(@DefaultValue Embedded embedded) {

    /**
     * @param dataDir  data directory; unset: ~/.local/share/qplab/postgres (/var/lib/qplab/postgres for root)
     * @param port     TCP port on 127.0.0.1, used only by this controller's connection pool; 0: a free one at each
     *                 start, so controllers with data directories of their own run side by side. A port set here
     *                 that another process listens on stops the controller with one line naming it
     * @param database database name, created on first start
     * @param fsync    keep PostgreSQL's durability settings (tests turn it off for speed)
     * @param passwordFile the password of the role qplab, the only one the server lets in: one line, mode 0600,
     *                 owned by the controller's user; unset: next to the data directory, named after it
     *                 (~/.local/share/qplab/postgres-password); generated when missing, and set on the server at
     *                 each start (so writing a new one there and restarting changes it)
     */
    public record Embedded(String dataDir, @DefaultValue("0") int port, @DefaultValue("qplab") String database,
                           @DefaultValue("true") boolean fsync, String passwordFile) {}
}
