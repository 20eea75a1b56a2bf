package org.qplab.controller.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A host's address is an IP address or a DNS name, and a refusal says what is wrong with it. */
class HostAddressTests {

    @ParameterizedTest
    @ValueSource(strings = {"198.18.0.11", "0.0.0.0", "255.255.255.255", "node1", "node-1.lab.example.com",
        "node1.lab.", "xn--bcher-kva.example", "a1", "1node", "2001:db8::1", "::1", "::", "fe80::1%eth0",
        "[2001:db8::1]", "::ffff:198.18.0.11", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:1.2.3.4"})
    void acceptsIpAddressesAndDnsNames(String address) {
        assertThat(HostAddress.problem(address)).as(address).isNull();
    }

    @Test
    void refusesWhatIsNeitherSayingWhy() {
        assertThat(HostAddress.problem("999.1.1.1")).isEqualTo("'999.1.1.1' is not an IPv4 address: 999 is over 255");
        assertThat(HostAddress.problem("10.1.1")).isEqualTo("'10.1.1' is not an IPv4 address: it has 3 parts, not 4");
        assertThat(HostAddress.problem("1.2.3.4.5")).contains("it has 5 parts, not 4");
        assertThat(HostAddress.problem("a b")).isEqualTo("'a b' has a space at character 2; a DNS name has only "
                + "letters, digits, hyphens and dots");
        assertThat(HostAddress.problem("lab_host")).contains("an underscore at character 4");
        assertThat(HostAddress.problem("a..b")).isEqualTo("'a..b' has an empty label (a dot at the start or two dots in "
                + "a row)");
        assertThat(HostAddress.problem(".a")).contains("an empty label");
        assertThat(HostAddress.problem("-a.lab")).contains("the label '-a', which starts or ends with a hyphen");
        assertThat(HostAddress.problem("a".repeat(64) + ".lab")).contains("a label of 64 characters; a label has at most 63");
        String long254 = ("a".repeat(49) + ".").repeat(5) + "abcd"; // 254 characters, labels of 49
        assertThat(long254).hasSize(254);
        assertThat(HostAddress.problem(long254)).isEqualTo("it is 254 characters long; a DNS name has at most 253");
        assertThat(HostAddress.problem("x".repeat(400))).isEqualTo("it is 400 characters long; a DNS name has at most 253");
        assertThat(HostAddress.problem("")).isEqualTo("the address is missing");
        assertThat(HostAddress.problem(null)).isEqualTo("the address is missing");
        assertThat(HostAddress.problem("2001:db8::1::2")).contains("'::' may appear once only");
        assertThat(HostAddress.problem("1:2:3:4:5:6:7")).contains("it has 7 groups of 16 bits");
        assertThat(HostAddress.problem("2001:db8::g")).contains("'g' is not a group of 1 to 4 hex digits");
        assertThat(HostAddress.problem("[::1")).contains("unmatched bracket");
        assertThat(HostAddress.problem("lab\u0000host")).contains("'labU+0000host' has 'U+0000' at character 4");
    }
}
