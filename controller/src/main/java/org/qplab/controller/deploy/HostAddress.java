package org.qplab.controller.deploy;

import org.qplab.controller.api.ValidText;

/**
 * Whether a host's address is one SSH can be pointed at: an IPv4 address (four numbers 0-255), an IPv6 address
 * (optionally in brackets, with a %zone), or a DNS name (RFC 1123: at most 253 characters, dot-separated labels of 1-63
 * letters, digits and hyphens, none starting or ending with a hyphen, an optional final dot). A name whose last label
 * is all digits is taken as an IPv4 address (RFC 3696: no top-level domain is all numeric), so 999.1.1.1 and 10.1.1
 * are refused rather than looked up. Nothing is resolved: this is the address's form only.
 */
final class HostAddress {

    static final int MAX_NAME = 253;
    private static final int MAX_LABEL = 63;

    private HostAddress() {
    }

    /** Why the address is neither an IP address nor a DNS name, or null when it is one. */
    static String problem(String address) {
        if (address == null || address.isEmpty()) {
            return "the address is missing";
        }
        if (address.length() > MAX_NAME + 1) {
            return "it is " + address.length() + " characters long; a DNS name has at most " + MAX_NAME;
        }
        String shown = "'" + ValidText.printable(address) + "'";
        if (address.startsWith("[") || address.endsWith("]")) {
            if (!address.startsWith("[") || !address.endsWith("]")) {
                return shown + " has an unmatched bracket (an IPv6 address may be written as [2001:db8::1])";
            }
            String inner = address.substring(1, address.length() - 1);
            String problem = ipv6(inner);
            return problem == null ? null : shown + " is not an IPv6 address: " + problem;
        }
        if (address.indexOf(':') >= 0) {
            String problem = ipv6(address);
            return problem == null ? null : shown + " is not an IPv6 address: " + problem;
        }
        String name = address.endsWith(".") ? address.substring(0, address.length() - 1) : address;
        String last = name.substring(name.lastIndexOf('.') + 1);
        if (!last.isEmpty() && last.chars().allMatch(c -> c >= '0' && c <= '9')) {
            String problem = ipv4(address);
            return problem == null ? null : shown + " is not an IPv4 address: " + problem;
        }
        return dnsName(name, shown);
    }

    private static String dnsName(String name, String shown) {
        if (name.length() > MAX_NAME) {
            return "it is " + name.length() + " characters long; a DNS name has at most " + MAX_NAME;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.')) {
                return shown + " has " + describe(c) + " at character " + (i + 1) + "; a DNS name has only letters, "
                        + "digits, hyphens and dots";
            }
        }
        for (String label : name.split("\\.", -1)) {
            if (label.isEmpty()) {
                return shown + " has an empty label (a dot at the start or two dots in a row)";
            }
            if (label.length() > MAX_LABEL) {
                return shown + " has a label of " + label.length() + " characters; a label has at most " + MAX_LABEL;
            }
            if (label.startsWith("-") || label.endsWith("-")) {
                return shown + " has the label '" + label + "', which starts or ends with a hyphen";
            }
        }
        return null;
    }

    /** Why text is not a dotted-quad IPv4 address, or null. */
    private static String ipv4(String text) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            return "it has " + parts.length + " part" + (parts.length == 1 ? "" : "s") + ", not 4";
        }
        for (String part : parts) {
            if (part.isEmpty()) {
                return "a part is empty";
            }
            if (part.length() > 3 || !part.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return "'" + ValidText.printable(part) + "' is not a number from 0 to 255";
            }
            if (Integer.parseInt(part) > 255) {
                return part + " is over 255";
            }
        }
        return null;
    }

    /** Why text is not an IPv6 address (8 groups of 1-4 hex digits, one '::', an IPv4 tail, a %zone), or null. */
    private static String ipv6(String text) {
        String address = text;
        int percent = text.indexOf('%');
        if (percent >= 0) {
            String zone = text.substring(percent + 1);
            if (!zone.matches("[A-Za-z0-9_.-]{1,64}")) {
                return "its zone after '%' must be an interface name or number";
            }
            address = text.substring(0, percent);
        }
        int gap = address.indexOf("::");
        if (gap >= 0 && address.indexOf("::", gap + 1) >= 0) {
            return "'::' may appear once only";
        }
        String[] halves = gap < 0 ? new String[] {address} : new String[] {address.substring(0, gap), address.substring(gap + 2)};
        int groups = 0;
        for (int h = 0; h < halves.length; h++) {
            if (halves[h].isEmpty()) {
                if (gap < 0) {
                    return "it is empty";
                }
                continue;
            }
            String[] parts = halves[h].split(":", -1);
            for (int i = 0; i < parts.length; i++) {
                String part = parts[i];
                if (part.indexOf('.') >= 0) {
                    if (h != halves.length - 1 || i != parts.length - 1) {
                        return "an IPv4 part may only end it";
                    }
                    String v4 = ipv4(part);
                    if (v4 != null) {
                        return "its IPv4 part " + v4;
                    }
                    groups += 2;
                } else if (part.matches("[0-9A-Fa-f]{1,4}")) {
                    groups++;
                } else {
                    return "'" + ValidText.printable(part) + "' is not a group of 1 to 4 hex digits";
                }
            }
        }
        if (gap < 0 ? groups != 8 : groups > 7) {
            return "it has " + groups + " groups of 16 bits; an IPv6 address has 8 (fewer with '::')";
        }
        return null;
    }

    private static String describe(char c) {
        return c == ' ' ? "a space" : c == '_' ? "an underscore" : "'" + ValidText.printable(String.valueOf(c)) + "'";
    }
}
