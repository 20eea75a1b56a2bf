package org.qplab.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.container;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.EventConditions.skippedWithReason;
import static org.junit.platform.testkit.engine.EventConditions.test;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * What a lab test class reports where the lab cannot run: the class skipped with the reason (surefire and failsafe
 * count each of its tests as skipped; an aborted class counted none) and one console line, and under CI=true a
 * failure where no prerequisite is missing. The sample classes below run through the JUnit engine with a given
 * answer of `lab check`; nothing here boots a VM.
 */
class SoftRoceLabExtensionTests {

    private static final LabAvailability NOT_ROOT = LabAvailability.of(new CommandResult(1,
            "not root: the lab needs root\nno vde_switch (Debian: vde2)\n", ""));
    private static final LabAvailability NO_SCRIPT = new LabAvailability(LabAvailability.Kind.BROKEN,
            "the lab script lab/lab was not found (set -Dqplab.lab.script)");
    private static final LabAvailability UP = LabAvailability.of(new CommandResult(0, "ok\n", ""));

    /** What the sample classes get outside these tests (e.g. picked by -Dtest=SoftRoce*): they skip. */
    private static final SoftRoceLabExtension SAMPLE_ONLY = new SoftRoceLabExtension(() -> new LabAvailability(
            LabAvailability.Kind.MISSING_PREREQUISITES, "a sample class of SoftRoceLabExtensionTests, which runs it"),
            Map.of(), new PrintStream(OutputStream.nullOutputStream()));

    private final ByteArrayOutputStream console = new ByteArrayOutputStream();

    @BeforeEach
    void clearSamples() {
        LabClass.ran.clear();
    }

    @AfterEach
    void resetSamples() {
        LabClass.extension = SAMPLE_ONLY;
        SelfSkippingClass.extension = SAMPLE_ONLY;
    }

    @Test
    void theClassIsSkippedWithTheMissingPrerequisitesAndItsTestsCountedOnTheConsole() {
        EngineExecutionResults results = run(LabClass.class, NOT_ROOT, Map.of());

        results.containerEvents().assertThatEvents().haveExactly(1, event(container(LabClass.class), skippedWithReason(
                "Soft-RoCE lab unavailable: not root: the lab needs root; no vde_switch (Debian: vde2)")));
        results.testEvents().assertStatistics(stats -> stats.started(0));
        assertThat(LabClass.ran).as("the class's own @BeforeAll/@AfterAll and tests").isEmpty();
        assertThat(console()).isEqualTo(
                "Soft-RoCE lab: SKIPPED 3 tests: not root: the lab needs root; no vde_switch (Debian: vde2)\n");
    }

    @Test
    void underCiAMissingPrerequisiteStillSkips() {
        EngineExecutionResults results = run(LabClass.class, NOT_ROOT, Map.of("CI", "true"));

        results.containerEvents().assertStatistics(stats -> stats.skipped(1).failed(0));
        assertThat(console()).startsWith("Soft-RoCE lab: SKIPPED 3 tests: not root");
    }

    @Test
    void withoutCiALabThatCannotBeCheckedSkips() {
        run(LabClass.class, NO_SCRIPT, Map.of("CI", "false")).containerEvents()
                .assertStatistics(stats -> stats.skipped(1).failed(0));
        assertThat(console()).isEqualTo("Soft-RoCE lab: SKIPPED 3 tests: " + NO_SCRIPT.reason() + "\n");
    }

    @Test
    void underCiALabThatCannotRunThoughNothingIsMissingFailsNamingWhy() {
        Events all = run(LabClass.class, NO_SCRIPT, Map.of("CI", "true")).allEvents();

        all.assertThatEvents().haveExactly(1, event(container(LabClass.class), finishedWithFailure(
                instanceOf(IllegalStateException.class),
                message("CI=true and the Soft-RoCE lab cannot run, though no prerequisite is missing: "
                        + NO_SCRIPT.reason()))));
        all.assertStatistics(stats -> stats.skipped(0));
        assertThat(LabClass.ran).isEmpty();
        assertThat(console()).isEmpty();
    }

    @Test
    void underCiALabTestThatSkipsItselfWhileTheLabIsUpFails() {
        run(SelfSkippingClass.class, UP, Map.of("CI", "true")).testEvents().assertThatEvents()
                .haveExactly(1, event(test("skipsItself"), finishedWithFailure(instanceOf(AssertionError.class),
                        message(m -> m.startsWith("CI=true and the Soft-RoCE lab is up, but this lab test skipped itself: "
                                + "Assumption failed: no XRC here")))));
    }

    @Test
    void withoutCiALabTestMaySkipItselfWhileTheLabIsUp() {
        run(SelfSkippingClass.class, UP, Map.of()).testEvents()
                .assertStatistics(stats -> stats.aborted(1).failed(0));
    }

    @Test
    void lab_checkExitingOtherwiseThanWithAListIsNotAMissingPrerequisite() {
        assertThat(LabAvailability.of(new CommandResult(1, "\n", "lab: something broke\n")))
                .extracting(LabAvailability::kind, LabAvailability::reason)
                .containsExactly(LabAvailability.Kind.BROKEN,
                        "lab check ended with exit 1 without listing what is missing: lab: something broke");
        assertThat(LabAvailability.of(new CommandResult(143, "no qemu-system-x86_64\n", "")).kind())
                .as("killed after its timeout").isEqualTo(LabAvailability.Kind.BROKEN);
        assertThat(NOT_ROOT.kind()).isEqualTo(LabAvailability.Kind.MISSING_PREREQUISITES);
        assertThat(UP.available()).isTrue();
    }

    private EngineExecutionResults run(Class<?> sample, LabAvailability lab, Map<String, String> environment) {
        LabClass.extension = new SoftRoceLabExtension(() -> lab, environment,
                new PrintStream(console, true, StandardCharsets.UTF_8));
        SelfSkippingClass.extension = LabClass.extension;
        return EngineTestKit.engine("junit-jupiter").selectors(selectClass(sample)).execute();
    }

    private String console() {
        return console.toString(StandardCharsets.UTF_8);
    }

    /** A lab test class as the lab's are: a @BeforeAll that uses the lab, tests that take it. */
    static class LabClass {
        @RegisterExtension
        static SoftRoceLabExtension extension = SAMPLE_ONLY;
        static final List<String> ran = new CopyOnWriteArrayList<>();

        @BeforeAll
        static void forwardAPort(SoftRoceLab lab) {
            ran.add("beforeAll " + lab);
        }

        @AfterAll
        static void cleanUp(SoftRoceLab lab) {
            ran.add("afterAll " + lab);
        }

        @Test
        void one(SoftRoceLab lab) {
            ran.add("one");
        }

        @Test
        void two(SoftRoceLab lab) {
            ran.add("two");
        }

        @Test
        void three() {
            ran.add("three");
        }
    }

    /** A lab test that finds something missing inside the lab (it does not ask for the lab: nothing boots). */
    static class SelfSkippingClass {
        @RegisterExtension
        static SoftRoceLabExtension extension = SAMPLE_ONLY;

        @Test
        void skipsItself() {
            Assumptions.assumeTrue(false, "no XRC here");
        }
    }
}
