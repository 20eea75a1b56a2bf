package org.qplab.controller.security;

import java.time.Duration;
import java.util.function.LongSupplier;
import org.springframework.stereotype.Component;

/**
 * What guessing costs (qplab.security.throttle). A password try is counted against its account and its address
 * before the password is checked, so that many tries at once cannot all slip in before the first one fails; a
 * right password then forgets the account's failures and takes back the address's count. An unknown API token
 * is counted against its address after it was found unknown: a valid token is never held up, whatever else came
 * from its address. Tokens and passwords keep separate counts per address. Thread-safe (one lock: logins are
 * rare and each costs a bcrypt; only unknown tokens take it on the token path).
 */
@Component
public class LoginThrottle {

    /** A password try let through: say how it ended. */
    public interface Attempt {
        void succeeded();
    }

    private static final int MAX_KEYS = 100_000;

    private final Backoff accounts;
    private final Backoff passwordAddresses;
    private final Backoff tokenAddresses;

    @org.springframework.beans.factory.annotation.Autowired
    public LoginThrottle(SecurityProperties properties) {
        this(properties.throttle(), System::nanoTime);
    }

    LoginThrottle(SecurityProperties.Throttle settings, LongSupplier nanoTime) {
        accounts = new Backoff(settings, nanoTime, MAX_KEYS);
        passwordAddresses = new Backoff(settings, nanoTime, MAX_KEYS);
        tokenAddresses = new Backoff(settings, nanoTime, MAX_KEYS);
    }

    /**
     * A password try for this account from this address: refused with how long to wait while either waits, else
     * counted as a failure until {@link Attempt#succeeded} says otherwise.
     */
    public synchronized Attempt begin(String account, String address) {
        String name = accountKey(account);
        Duration wait = longer(accounts.wait(name), passwordAddresses.wait(address));
        if (!wait.isZero()) {
            throw new Throttled(wait, "too many failed logins for this account or from this address");
        }
        accounts.failed(name);
        passwordAddresses.failed(address);
        return () -> {
            synchronized (this) {
                accounts.reset(name);
                passwordAddresses.undo(address);
            }
        };
    }

    /** An unknown or revoked API token from this address: 429 while the address waits, else one failure more. */
    public synchronized void tokenFailed(String address) {
        Duration wait = tokenAddresses.wait(address);
        if (!wait.isZero()) {
            throw new Throttled(wait, "too many unknown API tokens from this address");
        }
        tokenAddresses.failed(address);
    }

    private static String accountKey(String account) {
        // names longer than an account's can be no account: one key for them all
        return account == null ? "" : account.length() > 64 ? "(too long)" : account;
    }

    private static Duration longer(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
