package org.qplab.controller.security;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import org.qplab.controller.api.Conflict;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * The first start: with no account yet, an admin named "admin" is made, its password taken from
 * QPLAB_ADMIN_PASSWORD (qplab.security.admin-password) or generated and written once to a 0600 file whose path
 * (never the password) is logged. With qplab.security.cli-token-file set, every start also gives the admin a fresh
 * API token named "qplab-cli" and a tag of host and file (the one of the start before is revoked; another controller's
 * on the same database is not) in that 0600 file: ./qplab's own CLI.
 * Controllers sharing one database may have their first start at the same moment: one makes the admin, the others
 * find it made and start as well.
 */
@Component
public class FirstAdmin implements ApplicationRunner {

    public static final String NAME = "admin";
    static final String CLI_TOKEN = "qplab-cli";

    /**
     * The CLI token's name: qplab-cli and a tag of this host and token file, so that a restart revokes its own earlier
     * token but not the one another controller sharing the database wrote for its own CLI.
     */
    static String cliTokenName(java.nio.file.Path file) {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            host = "localhost";
        }
        String where = host + ":" + file.toAbsolutePath().normalize();
        try {
            byte[] sha = java.security.MessageDigest.getInstance("SHA-256").digest(
                    where.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return CLI_TOKEN + " " + java.util.HexFormat.of().formatHex(sha, 0, 4);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
    private static final Logger log = LoggerFactory.getLogger(FirstAdmin.class);

    private final Accounts accounts;
    private final ApiTokens tokens;
    private final SecurityProperties properties;

    public FirstAdmin(Accounts accounts, ApiTokens tokens, SecurityProperties properties) {
        this.accounts = accounts;
        this.tokens = tokens;
        this.properties = properties;
    }

    @Override
    public void run(ApplicationArguments args) throws IOException {
        if (accounts.count() == 0) {
            try {
                if (properties.adminPassword() != null) {
                    accounts.create(NAME, properties.adminPassword(), Role.ADMIN.id());
                    log.info("First start: made the account '{}' (role admin) with the password QPLAB_ADMIN_PASSWORD gave",
                            NAME);
                } else {
                    byte[] random = new byte[18];
                    new SecureRandom().nextBytes(random);
                    String password = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
                    writeSecret(properties.adminPasswordFile(), password);
                    try {
                        accounts.create(NAME, password, Role.ADMIN.id());
                    } catch (Conflict e) {
                        Path file = properties.adminPasswordFile();
                        if (Files.readString(file).strip().equals(password)) { // ours: not the admin's password
                            Files.delete(file);
                        }
                        throw e;
                    }
                    log.info("First start: made the account '{}' (role admin); its password is in {} (readable by this "
                            + "user only). Log in on the dashboard and change it, or set QPLAB_ADMIN_PASSWORD before the "
                            + "first start.", NAME, properties.adminPasswordFile());
                }
            } catch (Conflict e) {
                // several controllers on one database started at once (issue 38): another made the admin first
                log.info("First start: another controller on this database made the account '{}' meanwhile", NAME);
            }
        }
        if (properties.cliTokenFile() != null) {
            String owner = accounts.list().stream().filter(a -> a.role().equals(Role.ADMIN.id())).map(Accounts.Account::name)
                    .filter(NAME::equals).findFirst()
                    .orElseGet(() -> accounts.list().stream().filter(a -> a.role().equals(Role.ADMIN.id()))
                            .map(Accounts.Account::name).findFirst().orElseThrow());
            String name = cliTokenName(properties.cliTokenFile());
            tokens.revokeNamed(owner, name);
            writeSecret(properties.cliTokenFile(), tokens.issue(owner, name).token());
            log.info("The CLI's API token (account '{}') is in {}", owner, properties.cliTokenFile());
        }
    }

    /** Writes a secret to a file only this user can read (made 0600 before anything is written to it). */
    static void writeSecret(Path file, String secret) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, secret + "\n", StandardOpenOption.TRUNCATE_EXISTING);
    }
}
