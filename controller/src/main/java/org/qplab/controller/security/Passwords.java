package org.qplab.controller.security;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Password checks (bcrypt: ~0.1 s of CPU each) on a scheduler of their own, one thread per core, so that a flood of
 * logins queues there instead of taking the event loop or the database's threads. A name that is no account is
 * checked against a dummy hash of the same cost: a missing account takes as long as a wrong password.
 */
@Component
public class Passwords implements DisposableBean {

    private final PasswordEncoder encoder;
    private final String dummyHash;
    private final Scheduler scheduler = Schedulers.newBoundedElastic(Runtime.getRuntime().availableProcessors(), 1_000,
            "password-check");

    public Passwords(PasswordEncoder encoder) {
        this.encoder = encoder;
        byte[] random = new byte[18];
        new SecureRandom().nextBytes(random);
        this.dummyHash = encoder.encode(Base64.getEncoder().encodeToString(random));
    }

    /** Whether the password is the one hashed (null hash: no such account, checked against the dummy anyway). */
    public Mono<Boolean> matches(String hash, String password) {
        return Mono.fromCallable(() -> matchesNow(hash, password)).subscribeOn(scheduler);
    }

    private boolean matchesNow(String hash, String password) {
        boolean right;
        try {
            right = encoder.matches(password == null ? "" : password, hash == null ? dummyHash : hash);
        } catch (IllegalArgumentException e) { // e.g. more than bcrypt's 72 bytes: no password of ours
            right = false;
        }
        return right && hash != null;
    }

    /**
     * What a session remembers of the password it logged in with: a digest of its hash (never the hash). A new
     * password, or an account deleted and made again, has another, and ends the sessions of the old one.
     */
    static String stamp(String hash) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(hash.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e); // every JDK has SHA-256
        }
    }

    @Override
    public void destroy() {
        scheduler.dispose();
    }
}
