package org.qplab.controller.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The back-off of failed logins and unknown tokens, on a clock the test turns. */
class LoginThrottleTests {

    private final AtomicLong now = new AtomicLong(1_000_000_000_000L);
    private final SecurityProperties.Throttle settings = new SecurityProperties.Throttle(5, Duration.ofSeconds(1),
            Duration.ofSeconds(60), Duration.ofMinutes(30));
    private final LoginThrottle throttle = new LoginThrottle(settings, now::get);

    private void pass(Duration time) {
        now.addAndGet(time.toNanos());
    }

    private long refusedFor(String account, String address) {
        try {
            throttle.begin(account, address);
            return 0;
        } catch (Throttled e) {
            return e.retryAfterSeconds();
        }
    }

    @Test
    void fiveFreeTriesThenWaitsThatDoubleUpToTheMaximum() {
        for (int i = 0; i < 5; i++) {
            assertThat(refusedFor("alice", "10.0.0." + i)).as("free try %d", i + 1).isZero();
        }
        assertThat(refusedFor("alice", "10.0.1.1")).as("the 6th is checked, and counted").isZero();
        assertThat(refusedFor("alice", "10.0.1.2")).as("then 1 s to wait, whatever the address").isEqualTo(1);
        pass(Duration.ofMillis(1_001));
        assertThat(refusedFor("alice", "10.0.1.3")).isZero();
        assertThat(refusedFor("alice", "10.0.1.3")).isEqualTo(2);
        long[] expected = {4, 8, 16, 32, 60, 60};
        for (long wait : expected) {
            pass(Duration.ofSeconds(61));
            assertThat(refusedFor("alice", "10.0.1.3")).isZero();
            assertThat(refusedFor("alice", "10.0.1.3")).isEqualTo(wait);
        }
        assertThat(refusedFor("bob", "10.0.2.1")).as("another account from another address").isZero();
    }

    @Test
    void anAddressWaitsForTheFailuresOfAllItsAccounts() {
        for (int i = 0; i < 6; i++) {
            assertThat(refusedFor("name" + i, "10.0.0.9")).isZero();
        }
        assertThat(refusedFor("someone-else", "10.0.0.9")).isEqualTo(1);
        assertThat(refusedFor("someone-else", "10.0.0.10")).isZero();
    }

    @Test
    void aRightPasswordForgetsTheAccountsFailuresAndTakesBackItsOwnCountOnly() {
        for (int i = 0; i < 4; i++) {
            refusedFor("carol", "10.0.0.1");
        }
        throttle.begin("carol", "10.0.0.1").succeeded();
        // carol's count is gone; the address keeps its 4 failures (the success took back only its own try)
        refusedFor("dave", "10.0.0.1");
        refusedFor("dave", "10.0.0.1");
        assertThat(refusedFor("erin", "10.0.0.1")).as("4 + 2 failures: the address waits").isEqualTo(1);
        assertThat(refusedFor("carol", "10.0.0.2")).isZero();
    }

    @Test
    void triesAtOnceAreCountedBeforeTheyAreChecked() {
        for (int i = 0; i < 6; i++) {
            throttle.begin("frank", "10.0.0." + i); // six in flight, none answered yet
        }
        assertThatThrownBy(() -> throttle.begin("frank", "10.0.0.99")).isInstanceOf(Throttled.class)
                .hasMessageContaining("too many failed logins");
    }

    @Test
    void aQuietKeyIsForgottenAfterItsWait() {
        for (int i = 0; i < 7; i++) {
            refusedFor("grace", "10.0.0." + i);
        }
        pass(Duration.ofMinutes(31));
        for (int i = 0; i < 6; i++) {
            assertThat(refusedFor("grace", "10.0.1." + i)).as("five free tries again").isZero();
        }
    }

    @Test
    void unknownTokensBackOffPerAddressApartFromLogins() {
        for (int i = 0; i < 5; i++) {
            throttle.tokenFailed("10.0.0.1");
        }
        throttle.tokenFailed("10.0.0.1");
        assertThatThrownBy(() -> throttle.tokenFailed("10.0.0.1")).isInstanceOf(Throttled.class)
                .hasMessageContaining("unknown API tokens");
        assertThat(refusedFor("heidi", "10.0.0.1")).as("logins from there keep their own count").isZero();
        throttle.tokenFailed("10.0.0.2");
    }

    @Test
    void ipv6AddressesCountPerSlash64() throws Exception {
        assertThat(ClientAddress.of(java.net.InetAddress.getByName("2001:db8:1:2:aaaa::1")))
                .isEqualTo(ClientAddress.of(java.net.InetAddress.getByName("2001:db8:1:2:bbbb::2")))
                .isEqualTo("2001:db8:1:2:0:0:0:0/64");
        assertThat(ClientAddress.of(java.net.InetAddress.getByName("192.0.2.7"))).isEqualTo("192.0.2.7");
    }
}
