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
import org.qplab.engine.SpecViolation;
import org.qplab.engine.nvmeof.NvmeofSpec;
import tools.jackson.databind.ObjectMapper;

/**
 * The engine's verdict on the expanded points of a matrix: each distinct point goes, as the spec an agent
 * would hand to qpb_session_create, through the engine's own spec check (qpb_spec_check, libqpbench.so from
 * the agent jar); an nvmeof point through NvmeofSpec's, the check its agent makes at prepare. They are the one
 * definition of what a run may be; this class only says where in the matrix each refused key was set. Native
 * calls: run it off the event loop.
 */
final class SpecCheck {

    /** A point's verdict: the engine's, or NvmeofSpec's for an nvmeof point ({@link #verdict}). */
    private final Function<Map<String, Object>, List<SpecViolation>> verdict;

    SpecCheck(ObjectMapper json) {
        this(point -> verdict(json, point));
    }

    /** Tests: the verdicts through another function (one that counts the points it is asked about, say). */
    SpecCheck(Function<Map<String, Object>, List<SpecViolation>> verdict) {
        this.verdict = verdict;
    }

    /** What the engine (NvmeofSpec for an nvmeof point) says of the point, as the spec an agent would be given. */
    static List<SpecViolation> verdict(ObjectMapper json, Map<String, Object> point) {
        return ProviderKeys.nvmeof(point) ? nvmeofCheck(point) : Engine.checkSpec(json.writeValueAsString(point));
    }

    /**
     * Adds every violation the engine finds in the points, each named where the matrix sets its key
     * (base.post_list, dimensions.srq[1], zips.variant.srq[0]) and in the engine's words, once. A key a
     * point lacks because the matrix's value for it was invalid (alreadyRefused) is not reported again.
     */
    void check(List<Map<String, Object>> points, Map<String, Object> base, Map<String, List<Object>> dimensions,
               Map<String, List<Map<String, Object>>> zips, Predicate<String> alreadyRefused,
               List<Violation> violations) {
        if (!Engine.isAvailable() && !points.stream().allMatch(ProviderKeys::nvmeof)) {
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

    /** An nvmeof point's verdict: fio's parameters are not the engine's; NvmeofSpec is their one definition. */
    static List<SpecViolation> nvmeofCheck(Map<String, Object> point) {
        return NvmeofSpec.check(point);
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
