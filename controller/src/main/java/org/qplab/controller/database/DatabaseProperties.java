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
     * @param dataDir  data directory; default ~/.local/share/qplab/postgres (/var/lib/qplab/postgres for root)
     * @param port     TCP port on 127.0.0.1; 0 picks a free one (default 54329)
     * @param database database name, created on first start (default qplab)
     * @param fsync    keep PostgreSQL's durability settings (default true; tests turn it off for speed)
     */
    public record Embedded(String dataDir, @DefaultValue("54329") int port, @DefaultValue("qplab") String database,
                           @DefaultValue("true") boolean fsync) {}
}
