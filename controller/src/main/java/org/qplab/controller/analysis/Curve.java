package org.qplab.controller.analysis;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

/**
 * One metric of an experiment's finished runs, y against parameter x (or against metric x: one point per
 * matrix point), one series per value of another parameter; y is the mean over the runs at a point (repeats and
 * any parameter not on an axis).
 */
@Schema(description = "Metric y against parameter x, one series per value of parameter series.")
public record Curve(@Schema(description = "The parameter on the x axis, or a metric.", example = "msg_size") String x,
                    @Schema(description = "The metric on the y axis.", example = "bw_avg_bps") String y,
                    @Schema(description = "The parameter whose values make the series.", example = "threads")
                    String series,
                    @Schema(description = "The points, by series and x.") List<Point> points) {

    /** n runs at (series, x): mean y, and the spread min..max. */
    @Schema(name = "CurvePoint", description = "The runs at one x of one series: the mean of their y and its spread.")
    public record Point(@Schema(description = "The series' value of its parameter (a number or a string).")
                        Object series,
                        @Schema(description = "The x parameter's value; for a metric x, its mean over the runs of "
                                + "the matrix point, in its unit.") double x,
                        @Schema(description = "The mean of y over the n runs, in y's unit (B/s, msg/s, I/O/s, ns or µs).")
                        double y,
                        @Schema(description = "How many runs.") int n,
                        @Schema(description = "The smallest y of the n runs.") double min,
                        @Schema(description = "The largest y of the n runs.") double max) {}
}
