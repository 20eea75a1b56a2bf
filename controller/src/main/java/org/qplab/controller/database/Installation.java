package org.qplab.controller.database;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * The id of this controller's database (V11): agents tag what they keep of a run with it, and deliver it
 * only to the same installation. Read once; blocking the first time.
 */
@Component
public class Installation {

    private final JdbcClient jdbc;
    private volatile String id;

    public Installation(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public String id() {
        String known = id;
        if (known == null) {
            known = jdbc.sql("SELECT id::text FROM installation").query(String.class).single();
            id = known;
        }
        return known;
    }
}
