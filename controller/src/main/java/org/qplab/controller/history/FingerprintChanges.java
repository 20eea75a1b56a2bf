package org.qplab.controller.history;

import java.util.ArrayList;
import java.util.List;

/** The change points of a fingerprint's runs by one metric ({@link EDivisive}), named by the runs either side. */
final class FingerprintChanges {

    private FingerprintChanges() {
    }

    /**
     * @param runs the fingerprint's runs, oldest first; a value that is not positive (no rate measured) is left out of
     *             the series, and the indexes count the runs judged
     */
    static List<FingerprintHistory.Change> of(List<FingerprintHistory.RunValue> runs, EDivisive detector) {
        List<FingerprintHistory.RunValue> judged = runs.stream()
                .filter(r -> r.value() > 0 && !Double.isInfinite(r.value())).toList();
        EDivisive.Scan scan = detector.scan(judged.stream().mapToDouble(FingerprintHistory.RunValue::value).toArray());
        List<FingerprintHistory.Change> changes = new ArrayList<>();
        scan.settled().forEach(c -> changes.add(change(judged, c, true)));
        scan.tail().forEach(c -> changes.add(change(judged, c, false)));
        return changes;
    }

    private static FingerprintHistory.Change change(List<FingerprintHistory.RunValue> runs, ChangePoint c, boolean settled) {
        return new FingerprintHistory.Change(c.index(), runs.get(c.index() - 1).runId(), runs.get(c.index()).runId(),
                c.meanBefore(), c.meanAfter(), c.changePercent(), c.pValue(), c.pointsBefore(), c.pointsAfter(), settled);
    }
}
