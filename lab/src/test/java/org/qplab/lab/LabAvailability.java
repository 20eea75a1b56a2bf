package org.qplab.lab;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * Whether the Soft-RoCE lab can run on this machine, and what a lab test does when it cannot. `lab check` exiting 1
 * with a list names missing prerequisites (root, qemu, vde2, busybox-static, a kernel with rdma_rxe …): the lab's
 * tests skip, in CI too, naming them. Anything else that keeps the lab from running — no lab script, a check that
 * could not run, timed out or ended otherwise — is a skip on a developer's machine but a failure under
 * {@code CI=true}: there a skipped lab would hide that the real-verbs tests did not run.
 *
 * @param kind   what the check found
 * @param reason why the lab cannot run (empty when it can)
 */
public record LabAvailability(Kind kind, String reason) {

    /** What `lab check` found. */
    public enum Kind {
        /** `lab check` said ok. */
        AVAILABLE,
        /** `lab check` listed what this machine lacks. */
        MISSING_PREREQUISITES,
        /** The lab could not even be checked, or its check ended in a way that lists nothing. */
        BROKEN
    }

    private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(60);

    /** This machine's answer, checked once per JVM. */
    public static LabAvailability here() {
        return Here.ANSWER;
    }

    /** Runs `lab check` (the script {@link LabScript#locate()} finds) and classifies its answer. */
    public static LabAvailability check() {
        Optional<Path> script = LabScript.locate();
        if (script.isEmpty()) {
            return new LabAvailability(Kind.BROKEN, "the lab script lab/lab was not found (set -Dqplab.lab.script)");
        }
        try {
            return of(new LabScript(script.get(), SoftRoceLab.defaultStateDir()).run(CHECK_TIMEOUT, "check"));
        } catch (IOException e) {
            return new LabAvailability(Kind.BROKEN, "cannot run " + script.get() + " check: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new LabAvailability(Kind.BROKEN, "interrupted while running lab check");
        }
    }

    /** Classifies what `lab check` answered: exit 0 is ok, exit 1 with lines on stdout lists what is missing. */
    static LabAvailability of(CommandResult check) {
        if (check.succeeded()) {
            return new LabAvailability(Kind.AVAILABLE, "");
        }
        String listed = lines(check.stdout());
        if (check.exitCode() == 1 && !listed.isEmpty()) {
            String errors = lines(check.stderr());
            return new LabAvailability(Kind.MISSING_PREREQUISITES, errors.isEmpty() ? listed : listed + "; " + errors);
        }
        return new LabAvailability(Kind.BROKEN, "lab check ended with exit " + check.exitCode()
                + " without listing what is missing: " + lines(check.stdout() + "\n" + check.stderr()));
    }

    public boolean available() {
        return kind == Kind.AVAILABLE;
    }

    /** True when a lab test must fail rather than skip: the lab cannot run for a reason other than a missing prerequisite, under CI=true. */
    public boolean failsUnder(Map<String, String> environment) {
        return kind == Kind.BROKEN && isCi(environment);
    }

    /** The message of a skipped lab test. */
    public String skipMessage() {
        return "Soft-RoCE lab unavailable: " + reason;
    }

    /** The message of a lab test failed because it could not run under CI. */
    public String ciFailureMessage() {
        return "CI=true and the Soft-RoCE lab cannot run, though no prerequisite is missing: " + reason;
    }

    /** Where the lab cannot run: skips the calling test, or fails it under CI when no prerequisite is missing. */
    public void assume(Map<String, String> environment) {
        if (failsUnder(environment)) {
            throw new IllegalStateException(ciFailureMessage());
        }
        Assumptions.assumeTrue(available(), this::skipMessage);
    }

    /** CI=true, as CI services and .ci/run set it. */
    public static boolean isCi(Map<String, String> environment) {
        return "true".equalsIgnoreCase(environment.getOrDefault("CI", "").strip());
    }

    private static String lines(String text) {
        return String.join("; ", text.strip().split("\\s*\n\\s*")).strip();
    }

    private static final class Here {
        static final LabAvailability ANSWER = check();
    }
}
