package org.qplab.controller.analysis;

import java.util.List;

/**
 * One metric of an experiment's finished runs, y against parameter x, one series per value of
 * another parameter; y is the mean over the runs at a point (repeats and any parameter not on an axis).
 */
public record Curve(String x, String y, String series, List<Point> points) {

    /** n runs at (series, x): mean y, and the spread min..max. */
    public record Point(Object series, double x, double y, int n, double min, double max) {}
}
