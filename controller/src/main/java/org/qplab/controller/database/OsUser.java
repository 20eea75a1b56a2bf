package org.qplab.controller.database;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The OS user the controller runs as, and where that user keeps data and caches (XDG). */
final class OsUser {

    private OsUser() {
    }

    /** The effective uid of this process (the owner of /proc/self), or -1 where that cannot be read. */
    static int uid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException e) {
            return "root".equals(System.getProperty("user.name")) ? 0 : -1;
        }
    }

    static boolean isRoot() {
        return uid() == 0;
    }

    static Path dataHome() {
        String xdg = System.getenv("XDG_DATA_HOME");
        return xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".local", "share");
    }

    static Path cacheHome() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        return xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
    }
}
