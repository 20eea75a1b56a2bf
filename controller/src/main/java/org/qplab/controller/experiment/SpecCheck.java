package org.qplab.controller.experiment;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import org.qplab.controller.api.Violation;
import org.qplab.engine.Engine;
import org.qplab.engine.EngineSpec;
import org.qplab.engine.SpecViolation;
import org.qplab.engine.provider.Providers;

/**
 * The providers' verdict on the expanded points of a matrix: each distinct point goes, as the spec an agent would be
 * given, through its provider's own check ({@link Providers}: the engine's qpb_spec_check, libqpbench.so from the
 * engine jar; nvmeof's NvmeofSpec, the check its agent makes at prepare). They are the one definition of what a run
 * may be; this class only says where in the matrix each refused key was set. Native calls: run it off the event loop.
 */
final class SpecCheck {

    /** A point's verdict: its provider's ({@link #verdict}). */
    private final Function<Map<String, Object>, List<SpecViolation>> verdict;

    SpecCheck() {
        this(SpecCheck::verdict);
    }

    /** Tests: the verdicts through another function (one that counts the points it is asked about, say). */
    SpecCheck(Function<Map<String, Object>, List<SpecViolation>> verdict) {
        this.verdict = verdict;
    }

    /**
     * What the point's provider says of it, as the spec an agent would be given; a provider the matrix names wrongly
     * (refused already) goes to the engine, whose check names the choices.
     */
    static List<SpecViolation> verdict(Map<String, Object> point) {
        return Providers.of(point).check(point);
    }

    /**
     * Adds every violation the engine finds in the points, each named where the matrix sets its key
     * (base.post_list, dimensions.srq[1], zips.variant.srq[0]) and in the engine's words, once. A key a
     * point lacks because the matrix's value for it was invalid (alreadyRefused) is not reported again.
     */
    void check(List<Map<String, Object>> points, Map<String, Object> base, Map<String, List<Object>> dimensions,
               Map<String, List<Map<String, Object>>> zips, Predicate<String> alreadyRefused,
               List<Violation> violations) {
        if (!Engine.isAvailable() && points.stream().anyMatch(p -> Providers.of(p) == EngineSpec.ENGINE)) {
            throw new IllegalStateException("the native engine that checks run parameters is unavailable: "
                    + Engine.unavailabilityCause(), Engine.unavailabilityCause());
        }
        Map<Map<String, Object>, List<SpecViolation>> verdicts = new HashMap<>();
        Set<Violation> found = new LinkedHashSet<>();
        for (Map<String, Object> point : points) {
            List<SpecViolation> refused = verdicts.computeIfAbsent(point, verdict);
            for (SpecViolation v : refused) {
                if (!point.containsKey(v.field()) && alreadyRefused.test(v.field())) {
                    continue;
                }
                found.add(new Violation(where(v.field(), point, base, dimensions, zips), v.message()));
            }
        }
        violations.addAll(found);
    }

    /** Where the matrix sets key for this point: the path a user edits to change it. */
    static String where(String key, Map<String, Object> point, Map<String, Object> base,
                        Map<String, List<Object>> dimensions, Map<String, List<Map<String, Object>>> zips) {
        if (ProviderKeys.byKey(key).isEmpty()) {
            return key; // not a parameter a matrix sets ("spec": the text itself)
        }
        if (base.containsKey(key)) {
            return "base." + key;
        }
        List<Object> values = dimensions.get(key);
        if (values != null) {
            return "dimensions." + key + "[" + values.indexOf(point.get(key)) + "]";
        }
        for (var zip : zips.entrySet()) {
            List<Map<String, Object>> positions = zip.getValue();
            for (int i = 0; i < positions.size(); i++) {
                Map<String, Object> position = positions.get(i);
                if (position.containsKey(key) && position.entrySet().stream()
                        .allMatch(e -> e.getValue().equals(point.get(e.getKey())))) {
                    return "zips." + zip.getKey() + "." + key + "[" + i + "]";
                }
            }
        }
        return "base." + key; // unset: the default applies, and base is where to change it
    }
}
