package org.qplab.controller.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.qplab.controller.api.Violation;
import org.qplab.controller.experiment.InvalidMatrixException;
import org.qplab.controller.experiment.Matrix;
import org.qplab.controller.experiment.MatrixExpander;
import org.qplab.controller.experiment.MatrixReader;
import org.springframework.http.MediaType;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/** A matrix's expect rules as a submit reads them: their metrics, units and limits, and every bad rule named. */
class ExpectRulesTests {

    private final ObjectMapper json = JsonMapper.builder().build();
    private final MatrixReader reader = new MatrixReader(json);
    private final MatrixExpander expander = new MatrixExpander(json, 10_000, new ExpectRules());

    private List<ExpectRule> rules(String yaml) {
        List<Violation> violations = new ArrayList<>();
        List<ExpectRule> rules = ExpectRules.read(reader.read(yaml.getBytes(), MediaType.parseMediaType(
                "application/yaml")).get("expect"), violations);
        assertThat(violations).isEmpty();
        return rules;
    }

    private List<String> violationsOf(String yaml) {
        try {
            expander.expand(reader.read(yaml.getBytes(), MediaType.parseMediaType("application/yaml")));
        } catch (InvalidMatrixException e) {
            return e.violations().stream().map(v -> v.field() + ": " + v.message()).toList();
        }
        throw new AssertionError("the matrix was accepted");
    }

    @Test
    void readsAbsoluteLimitsInTheUnitTheirNameSaysAndRelativeOnesAsAFactorOfTheBaseline() {
        List<ExpectRule> rules = rules("""
                expect:
                  bw_avg_gbps: ">= 90"
                  latency_p99_us: ["> 0", "<= 5"]
                  bw_avg: ">= 0.95 * baseline"
                  msg_rate: "> baseline"
                  cycle_p99_ns: "< 1.5e3"
                """);

        assertThat(rules).extracting(ExpectRule::text).containsExactly("bw_avg_gbps >= 90", "latency_p99_us > 0",
                "latency_p99_us <= 5", "bw_avg >= 0.95 * baseline", "msg_rate > baseline", "cycle_p99_ns < 1500");
        assertThat(rules).extracting(r -> r.metric().name()).containsExactly("bw_avg_bps", "latency_p99_us",
                "latency_p99_us", "bw_avg_bps", "msg_rate", "cycle_p99_ns");
        ExpectRule gbps = rules.get(0);
        assertThat(gbps.unit()).isEqualTo("Gbit/s");
        assertThat(12.5e9 * gbps.scale()).as("12.5 GB/s in Gbit/s").isCloseTo(100, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(gbps.holds(90, gbps.limit(0))).isTrue();
        assertThat(gbps.holds(89.99, gbps.limit(0))).isFalse();
        ExpectRule relative = rules.get(3);
        assertThat(relative.relative()).isTrue();
        assertThat(relative.limit(200)).isEqualTo(190);
        assertThat(relative.holds(189, relative.limit(200))).isFalse();
        assertThat(rules.get(5).holds(1500, rules.get(5).limit(0))).as("< is strict").isFalse();
    }

    @Test
    void aMatrixWithExpectRulesExpandsAndKeepsThemInItsSource() {
        Matrix matrix = expander.expand(reader.read("""
                base: {msg_size: 64}
                expect: {bw_avg_gbps: ">= 90"}
                """.getBytes(), MediaType.parseMediaType("application/yaml")));
        assertThat(matrix.runs()).hasSize(1);
        assertThat(matrix.source()).containsEntry("expect", java.util.Map.of("bw_avg_gbps", ">= 90"));
    }

    @Test
    void refusesEveryBadRuleAtOnceNamingItWithTheMatrixsOtherViolations() {
        List<String> violations = violationsOf("""
                base: {msg_size: 64, threads: 0}
                expect:
                  bw_avg_gpbs: ">= 90"
                  colour: "= red"
                  latency_p99_us: "<= five"
                  cycle_p99_ns: 5
                  msg_rate: [">= 1", "=> 2"]
                  bw_avg: ">= 90"
                  bw_peak: ">= 0 * baseline"
                """);

        assertThat(violations).contains(
                "expect.bw_avg_gpbs: unknown metric; did you mean bw_avg_gbps? (the metrics: " + String.join(", ",
                        ExpectRules.metricNames()) + ")",
                "expect.latency_p99_us: must be a comparison like \">= 90\", \"<= 5\" or \">= 0.95 * baseline\" (>=, "
                        + "<=, > or <; quoted in YAML), got \"<= five\"",
                "expect.cycle_p99_ns: must be a comparison like \">= 90\", \"<= 5\" or \">= 0.95 * baseline\" (>=, "
                        + "<=, > or <; quoted in YAML), got 5",
                "expect.msg_rate[1]: must be a comparison like \">= 90\", \"<= 5\" or \">= 0.95 * baseline\" (>=, "
                        + "<=, > or <; quoted in YAML), got \"=> 2\"",
                "expect.bw_avg: an absolute limit needs the unit in the metric's name: bw_avg_bps (B/s) or bw_avg_gbps "
                        + "(Gbit/s); without one, compare with the baseline (\">= 0.95 * baseline\")",
                "expect.bw_peak: the factor of the baseline must be a positive number, got \">= 0 * baseline\"");
        assertThat(violations).anyMatch(v -> v.startsWith("expect.colour: unknown metric; (the metrics: "));
        assertThat(violations).anyMatch(v -> v.startsWith("base.threads"));
        assertThat(violations).hasSize(8);
    }

    @Test
    void anEmptyOrNullExpectHasNoRules() { // a generated client sends a map it was not given as {}
        assertThat(rules("expect: {}\n")).isEmpty();
        assertThat(rules("expect: null\n")).isEmpty();
        assertThat(expander.expand(reader.read("{\"base\": {\"msg_size\": 64}, \"expect\": {}}".getBytes(),
                MediaType.APPLICATION_JSON)).runs()).hasSize(1);
    }

    @Test
    void refusesAnExpectThatIsNoMapOfRules() {
        assertThat(violationsOf("base: {msg_size: 64}\nexpect: [\">= 90\"]\n")).containsExactly("expect: must map "
                + "metrics to limits, like {bw_avg_gbps: \">= 90\", latency_p99_us: \"<= 5\", bw_avg: \">= 0.95 * "
                + "baseline\"}");
        assertThatThrownBy(() -> new MatrixExpander(json, 10).expand(reader.read(
                "base: {msg_size: 64}\nexpect: {msg_rate: \">= 1\"}\n".getBytes(), MediaType.parseMediaType("application/yaml"))))
                .as("an expander that cannot check rules refuses them rather than ignoring them")
                .isInstanceOf(InvalidMatrixException.class);
    }

    @Test
    void formatsValuesToFourSignificantDigits() {
        assertThat(ExpectRule.format(93.12345)).isEqualTo("93.12");
        assertThat(ExpectRule.format(4210)).isEqualTo("4210");
        assertThat(ExpectRule.format(0.0012345)).isEqualTo("0.001235");
        assertThat(ExpectRule.format(12345.678)).isEqualTo("12350");
    }
}
