package org.qplab.controller.database;

import java.io.IOException;

/**
 * The database cannot be used as configured, for a reason the operator fixes (a password file others may
 * read, another controller on the data directory). Its message is one line naming the file or setting and
 * the fix; {@link DatabaseRefusalReporter} prints that line instead of a stack trace.
 */
public class DatabaseRefusal extends IOException {

    public DatabaseRefusal(String message) {
        super(message.replace('\n', ' '));
    }
}
