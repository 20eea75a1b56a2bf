package org.qplab.controller.security;

import java.util.List;
import java.util.Locale;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.authority.SimpleGrantedAuthority;

/**
 * What an account may do. Each role includes the ones before it: a viewer reads everything; an operator also
 * submits, cancels, imports and sets baselines; an admin also manages hosts, deploys, agents, users and deletes.
 */
public enum Role {
    VIEWER, OPERATOR, ADMIN;

    /** The name stored and shown: viewer, operator, admin. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Role of(String id) {
        for (Role role : values()) {
            if (role.id().equals(id)) {
                return role;
            }
        }
        throw new IllegalArgumentException("role must be viewer, operator or admin, got '" + id + "'");
    }

    /** Spring Security's authorities: ROLE_VIEWER for everyone, ROLE_OPERATOR for operators and admins, ... */
    public List<GrantedAuthority> authorities() {
        return java.util.Arrays.stream(values()).filter(r -> r.ordinal() <= ordinal())
                .<GrantedAuthority>map(r -> new SimpleGrantedAuthority("ROLE_" + r.name())).toList();
    }

    /** The highest role among authorities (null: none). */
    public static Role of(java.util.Collection<? extends GrantedAuthority> authorities) {
        Role best = null;
        for (GrantedAuthority a : authorities) {
            for (Role r : values()) {
                if (a.getAuthority().equals("ROLE_" + r.name()) && (best == null || r.ordinal() > best.ordinal())) {
                    best = r;
                }
            }
        }
        return best;
    }
}
