package org.qplab.lab;

/** How a command ended: its exit code and everything it wrote. */
public record CommandResult(int exitCode, String stdout, String stderr) {

    public boolean succeeded() {
        return exitCode == 0;
    }

    /** For assertion messages: the exit code and both streams. */
    public String describe() {
        return "exit " + exitCode + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
    }
}
