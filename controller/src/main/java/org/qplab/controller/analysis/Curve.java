package org.qplab.controller.analysis;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.Map;

/**
 * One metric of an experiment's finished runs, y against parameter x (or against metric x), one line per value
 * of the series parameters. Every point is one configuration: each parameter that varies among the curve's runs
 * and is on neither axis is pinned by the request or split into further lines, so a point's n runs are repeats
 * of one configuration and its min..max is their spread, never that of unlike configurations.
 */
@Schema(description = "Metric y against parameter x, one line per value of the series parameters; each point one "
        + "configuration (its repeats: median, min, max, n).")
public record Curve(@Schema(description = "The parameter on the x axis, or a metric.", example = "msg_size") String x,
                    @Schema(description = "The metric on the y axis.", example = "bw_avg_bps") String y,
                    @Schema(description = "The parameter whose values make the series (several: separated by commas).",
                            example = "threads") String series,
                    @Schema(description = "The dimensions the request pinned, at their values.") Map<String, Object> pinned,
                    @Schema(description = "The varied dimensions that were neither on an axis nor pinned: each value "
                            + "of theirs makes lines of its own (the point's split).") List<String> split,
                    @Schema(description = "With a metric on x: the dimension whose values move along each line.")
                    String along,
                    @Schema(description = "Every dimension (parameter, or hosts: where the matrix placed the run) whose "
                            + "value differs among the curve's runs, with its values.") List<Dimension> dimensions,
                    @Schema(description = "The points, by series, split and x.") List<Point> points) {

    /** A dimension that varies among the curve's runs, and its values in order (numbers numerically). */
    @Schema(name = "CurveDimension", description = "A parameter whose value differs among the curve's runs.")
    public record Dimension(@Schema(description = "The parameter, or hosts.") String name,
                            @Schema(description = "Its values, ascending.") List<Object> values) {}

    /** The n runs of one configuration: the median of their y and its spread min..max. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "CurvePoint", description = "The runs of one configuration at one x of one line: the median of "
            + "their y, its spread and their count.")
    public record Point(@Schema(description = "The series' value of its parameter (a number or a string; several "
                                + "parameters: their values joined by spaces).") Object series,
                        @Schema(description = "The values of the split dimensions that tell this point's line from the "
                                + "others of its series; absent when nothing is split.") Map<String, Object> split,
                        @Schema(description = "The x parameter's value; for a metric x, its median over the runs, in "
                                + "its unit.") double x,
                        @Schema(description = "The median of y over the n runs, in y's unit (B/s, msg/s, I/O/s, ns or µs).")
                        double y,
                        @Schema(description = "How many runs: the configuration's repeats.") int n,
                        @Schema(description = "The smallest y of the n runs.") double min,
                        @Schema(description = "The largest y of the n runs.") double max,
                        @Schema(description = "With a metric on x: the value of the along dimension at this point.")
                        Object along) {}
}
