package org.qplab.controller.experiment;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.Map;

/**
 * A matrix as the OpenAPI document describes it (POST /api/experiments and /validate): its keys and their types.
 * The controller reads the body as a tree ({@link MatrixReader}, {@link MatrixExpander}), which checks much more than
 * types can say: parameter names and ranges, equal zip lengths, what the hosts exist as.
 */
@Schema(name = "Matrix", description = "An experiment's matrix: every run gets base, the dimensions' cross product "
        + "(and each zip's positions) varies the rest, exclude leaves points out, repeats runs each point again; "
        + "msg_size is required, in base or dimensions. "
        + "Parameters are the engine's (engine/src/main/c/qpb.h): provider, op, transport, msg_size (bytes, or like "
        + "\"4K\", \"1MiB\"), threads, qps_per_thread, iterations, duration_ms, tx_depth, interval_ms, ...")
record MatrixBody(
        @Schema(description = "Shown in the dashboard (default \"experiment\").", maxLength = 200,
                example = "quickstart")
        String name,
        @Schema(description = "Free text: what the experiment is for.")
        String description,
        @Schema(description = "Parameters every run gets, e.g. {\"provider\": \"tcp\", \"iterations\": 1000}.")
        Map<String, Object> base,
        @Schema(description = "Parameter to its values; one run per combination (the cross product), e.g. "
                + "{\"msg_size\": [64, \"4K\", \"1MiB\"], \"threads\": [1, 2, 4]}.")
        Map<String, List<Object>> dimensions,
        @Schema(description = "Label to parameters whose equally long lists are read position by position: one "
                + "dimension that sets several parameters at once.")
        Map<String, Map<String, List<Object>>> zips,
        @Schema(description = "Points left out: a point matching every condition of an entry (a value, a list of "
                + "values, or a comparison {eq, ne, gt, ge, lt, le}) does not run.")
        List<Map<String, Object>> exclude,
        @Schema(description = "More parameters for the points that match a rule: each entry is {\"when\": {parameter: "
                + "condition, ...}, \"set\": {parameter: value, ...}}, when written as an exclude entry; a matching "
                + "point takes set on top of its values (entries in order), in the grid and in a search.",
                example = "[{\"when\": {\"msg_size\": {\"le\": 256}}, \"set\": {\"inline_size\": 256}}]")
        List<Map<String, Object>> overrides,
        @Schema(description = "Each point runs this many times (1 to 1000; default 1).", minimum = "1",
                maximum = "1000")
        Integer repeats,
        @Schema(description = "The run order: \"sequential\" (the default), or {\"random\": true, \"seed\": 7} "
                + "to shuffle it reproducibly; without a seed one is picked and stored with the experiment.")
        Object order,
        @Schema(description = "Where runs go: \"loopback\" (any agent, the default), \"all_pairs\" (every pair of the "
                + "agents connected at submit, as a group of them), {\"loopback\": [host, ...]}, {\"pairs\": [[client, "
                + "server], ...]} or {\"group\": [host, ...]} (every pair of the group, in n−1 rounds of n/2 pairs that "
                + "share no host, an odd group's hosts each idle one round).")
        Object hosts,
        @Schema(description = "Runs on host pairs: how many times a pair judged bad is tested again when the last run "
                + "ended (0 to 5; default 2 for all_pairs and group, 0 for pairs); a pair is bad only if it is bad in every "
                + "round.", example = "2")
        Integer retests,
        @Schema(description = "Runs on host pairs: a pair is bad below this fraction of the best pair's bandwidth or "
                + "rate (0 < bad_below <= 1, default 0.93, ClusterKit's).", example = "0.93")
        Double bad_below,
        @Schema(description = "Runs on host pairs: a pair is bad above this multiple of the best pair's time "
                + "(bad_above >= 1, default 2.1, ClusterKit's).", example = "2.1")
        Double bad_above,
        @Schema(description = "Instead of dimensions: search one numeric dimension (threads, qps_per_thread, msg_size, "
                + "tx_depth) for the knee of its curve (where the gain per doubling falls below knee_gain, default 0.5, "
                + "of the best step's) or a cliff (where the metric falls), between low and high, until bracketed "
                + "within resolution (default 0.10) or max_runs (default 40); each next point is planned from the "
                + "runs so far (GET /api/experiments/{id}/search). Or {\"anomalies\": [dimension, ...], \"seed\", "
                + "\"max_runs\" (default 60), \"max_minutes\" (default 60), \"below\" (default 0.7)}: a seeded walk "
                + "over the dimensions' values (their dimensions lists, else default ladders; base holds the reset "
                + "values) that flags points below their neighbours or whose NIC counters warned, and reduces each to "
                + "its minimal feature set.",
                example = "{\"knee\": \"threads\", \"low\": 1, \"high\": 64}")
        Map<String, Object> search,
        @Schema(description = "What each run must measure, checked when it finishes: a run-level metric (as runs and "
                + "curves name them: bw_avg_bps in B/s, latency_p99_us in µs, msg_rate, ...; a bandwidth also in "
                + "Gbit/s, bw_avg_gbps) to a comparison, or a list of them: absolute (\">= 90\", \"<= 5\") or "
                + "relative to the run's fingerprint's baseline (\">= 0.95 * baseline\"; the unit may then be left "
                + "out: bw_avg). Each run gets PASS, FAIL or NOT_JUDGED (its expectation); the experiment passes when "
                + "all its runs do.", example = "{\"bw_avg_gbps\": \">= 90\", \"bw_avg\": \">= 0.95 * baseline\"}")
        Map<String, Object> expect) {}
