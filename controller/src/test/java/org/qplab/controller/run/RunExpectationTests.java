package org.qplab.controller.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A run's verdict from its rules' results: never a pass that a rule did not earn. */
class RunExpectationTests {

    @Test
    void aRunFailsOnAnyFailedRuleIsNotJudgedWithoutABaselineAndPassesOnlyOnRulesThatApplied() {
        assertThat(RunExpectation.verdictOf(List.of(rule("PASS"), rule("FAIL"), rule("NO_BASELINE")))).isEqualTo("FAIL");
        assertThat(RunExpectation.verdictOf(List.of(rule("PASS"), rule("NO_BASELINE")))).isEqualTo("NOT_JUDGED");
        assertThat(RunExpectation.verdictOf(List.of(rule("PASS"), rule("NOT_MEASURED")))).isEqualTo("PASS");
        assertThat(RunExpectation.verdictOf(List.of(rule("NOT_MEASURED")))).as("no rule applied").isEqualTo("NOT_JUDGED");
        assertThat(RunExpectation.verdictOf(List.of(rule("PASS"), rule("UNREADABLE")))).isEqualTo("NOT_JUDGED");
    }

    private static RunExpectation.Rule rule(String result) {
        return new RunExpectation.Rule("r", "m", "u", result, null, null, null, null, "");
    }
}
