package org.qplab.controller.experiment;

import java.util.List;
import org.qplab.controller.api.Violation;
import tools.jackson.databind.JsonNode;

/**
 * The check of a matrix's expect rules (its top-level {@code expect}), a port: the run-level metrics the rules name
 * are known above this package (history implements it), and a submit refuses a bad rule with the matrix's other
 * violations, before anything is stored.
 */
public interface ExpectCheck {

    /** For expanders that judge no rules (tests): a matrix with expect rules is refused (an empty expect is none). */
    ExpectCheck NONE = (expect, violations) -> {
        if (!expect.isNull() && !(expect.isObject() && expect.isEmpty())) {
            violations.add(new Violation("expect", "expect rules are not checked by this expander"));
        }
    };

    /** Adds a violation for each bad rule of expect (the matrix's expect node; never null), each at expect.METRIC. */
    void check(JsonNode expect, List<Violation> violations);
}
