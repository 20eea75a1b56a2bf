package org.qplab.controller.database;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.EnumSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded PostgreSQL's password for the role qplab: one line in a file only the controller's OS user
 * may read (0600 or 0400, owned by that user), generated when missing. Anything else is a
 * {@link DatabaseRefusal} that says which file and what to do.
 */
final class PasswordFile {

    private static final Logger log = LoggerFactory.getLogger(PasswordFile.class);
    static final int MIN_LENGTH = 16;
    private static final Set<PosixFilePermission> SHARED = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    private PasswordFile() {
    }

    /** The password in file, or a new one written there (0600) when there is no file. */
    static String readOrCreate(Path file) throws IOException {
        if (Files.notExists(file, LinkOption.NOFOLLOW_LINKS)) {
            return create(file);
        }
        PosixFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, PosixFileAttributes.class);
        } catch (IOException e) {
            throw new DatabaseRefusal("the embedded PostgreSQL's password file " + file + " cannot be read ("
                    + e.getMessage() + "): fix or delete it (a new password is then generated)");
        }
        if (!attributes.isRegularFile()) {
            throw new DatabaseRefusal("the embedded PostgreSQL's password file " + file
                    + " is not a regular file: remove it (a new password is then generated) or point "
                    + "qplab.database.embedded.password-file at a file");
        }
        int owner = (Integer) Files.getAttribute(file, "unix:uid");
        int self = OsUser.uid();
        if (owner != self) {
            throw new DatabaseRefusal("the embedded PostgreSQL's password file " + file + " belongs to uid " + owner
                    + ", not to uid " + self + " that runs the controller: chown " + self + " " + file
                    + " if it is yours, or delete it (a new password is then generated)");
        }
        Set<PosixFilePermission> shared = EnumSet.noneOf(PosixFilePermission.class);
        shared.addAll(attributes.permissions());
        shared.retainAll(SHARED);
        if (!shared.isEmpty()) {
            throw new DatabaseRefusal("the embedded PostgreSQL's password file " + file + " is open to other users (mode "
                    + octal(attributes.permissions()) + "): chmod 600 " + file
                    + ", and change the password if others may have read it (README, \"The database\")");
        }
        String password;
        try {
            password = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (AccessDeniedException e) {
            throw new DatabaseRefusal("the embedded PostgreSQL's password file " + file + " cannot be read by its owner"
                    + " (mode " + octal(attributes.permissions()) + "): chmod 600 " + file);
        } catch (IOException e) {
            throw new DatabaseRefusal("the embedded PostgreSQL's password file " + file + " cannot be read ("
                    + e.getMessage() + "): fix or delete it (a new password is then generated)");
        }
        if (!usable(password)) {
            throw new DatabaseRefusal("the embedded PostgreSQL's password file " + file + " does not hold a password of "
                    + MIN_LENGTH + " or more printable ASCII characters without spaces: write one (e.g. "
                    + "head -c 32 /dev/urandom | base64 > " + file + ") or delete the file (a new password is then generated)");
        }
        return password;
    }

    static boolean usable(String password) {
        return password.length() >= MIN_LENGTH && password.chars().allMatch(c -> c > 0x20 && c < 0x7f);
    }

    private static String create(Path file) throws IOException {
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        String password = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            // CREATE_NEW: born 0600 (the umask only takes bits away), and never through a planted link
            try (SeekableByteChannel out = Files.newByteChannel(file, EnumSet.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
                out.write(ByteBuffer.wrap((password + "\n").getBytes(StandardCharsets.US_ASCII)));
            }
        } catch (IOException e) {
            throw new DatabaseRefusal("cannot write the embedded PostgreSQL's password file " + file + " (" + e
                    + "): make its directory writable, or set qplab.database.embedded.password-file");
        }
        log.info("Generated a password for the embedded PostgreSQL's role qplab into {} (mode 0600)", file);
        return password;
    }

    private static String octal(Set<PosixFilePermission> permissions) {
        int mode = 0;
        for (PosixFilePermission p : permissions) {
            mode |= 1 << (8 - p.ordinal()); // OWNER_READ (ordinal 0) is 0400 ... OTHERS_EXECUTE (8) is 0001
        }
        return String.format("%04o", mode);
    }
}
