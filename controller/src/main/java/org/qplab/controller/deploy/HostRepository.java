package org.qplab.controller.deploy;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import org.qplab.controller.agent.AgentToken;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The hosts inventory in PostgreSQL. Blocking: call through {@link org.qplab.controller.database.Jdbc}. */
@Repository
public class HostRepository {

    /** A host as the API shows it; the agent on it registers under its name. */
    public record Host(String name, String address, int sshPort, String sshUser, String remoteDir, String state,
                       String detail, String agentSha256, OffsetDateTime deployedAt, OffsetDateTime createdAt) {}

    private static final String COLUMNS =
            "name, address, ssh_port, ssh_user, remote_dir, state, detail, agent_sha256, deployed_at, created_at";

    private final JdbcClient jdbc;

    public HostRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** False when a host of that name exists already. */
    public boolean add(String name, String address, int sshPort, String sshUser, String remoteDir) {
        return jdbc.sql("""
                INSERT INTO host (name, address, ssh_port, ssh_user, remote_dir) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (name) DO NOTHING""")
                .params(name, address, sshPort, sshUser, remoteDir).update() == 1;
    }

    public boolean remove(String name) {
        return jdbc.sql("DELETE FROM host WHERE name = ?").param(name).update() == 1;
    }

    public List<Host> list() {
        return jdbc.sql("SELECT " + COLUMNS + " FROM host ORDER BY name").query(HostRepository::row).list();
    }

    public Optional<Host> get(String name) {
        return jdbc.sql("SELECT " + COLUMNS + " FROM host WHERE name = ?").param(name).query(HostRepository::row).optional();
    }

    /** Marks a host DEPLOYING; false when another deploy, upgrade or stop of it is under way. */
    public boolean claimForDeploy(String name) {
        return jdbc.sql("UPDATE host SET state = 'DEPLOYING', detail = 'connecting over SSH' "
                        + "WHERE name = ? AND state <> 'DEPLOYING'").param(name).update() == 1;
    }

    public void state(String name, String state, String detail) {
        jdbc.sql("UPDATE host SET state = ?, detail = ? WHERE name = ?").params(state, detail, name).update();
    }

    /** The host's agent has a token of its own now: its name is closed to the enrolment secret for good. */
    public void deployed(String name, String token, String agentSha256) {
        jdbc.sql("""
                WITH bound AS (INSERT INTO agent_identity (agent_id, bound_by) VALUES (?, 'deploy')
                               ON CONFLICT (agent_id) DO NOTHING)
                UPDATE host SET token_sha256 = ?, agent_sha256 = ?, deployed_at = now() WHERE name = ?""")
                .params(name, AgentToken.sha256(token), agentSha256, name).update();
    }

    private static Host row(java.sql.ResultSet rs, int i) throws java.sql.SQLException {
        return new Host(rs.getString(1), rs.getString(2), rs.getInt(3), rs.getString(4), rs.getString(5),
                rs.getString(6), rs.getString(7), rs.getString(8), rs.getObject(9, OffsetDateTime.class),
                rs.getObject(10, OffsetDateTime.class));
    }
}
