package org.qplab.controller.history;

/**
 * Where a fingerprint's run-level series moved: the points before {@code index} and those from it on differ.
 *
 * @param index         the first point after the change (0-based in the series); the last one before it is index - 1
 * @param meanBefore    the geometric mean of the points before, back to the previous change point or the window's start
 * @param meanAfter     the geometric mean of the points from index on, up to the next change point or the window's end
 * @param changePercent meanAfter / meanBefore - 1, in %
 * @param pValue        Welch's t-test on the logs of the two sides, times the places the split could have taken
 *                      between its neighbours unless {@link EDivisive.Settings#selectionCorrected()} is off
 * @param pointsBefore  how many points meanBefore is over
 * @param pointsAfter   how many points meanAfter is over
 */
public record ChangePoint(int index, double meanBefore, double meanAfter, double changePercent, double pValue,
                          int pointsBefore, int pointsAfter) {}
