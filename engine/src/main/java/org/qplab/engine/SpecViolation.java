package org.qplab.engine;

/**
 * One rule a spec breaks, as the engine says it (qpb_spec_check in qpb.h).
 *
 * @param field   the spec key the rule is about ("post_list"; "spec" when the text is not a spec at all)
 * @param message the engine's own words, the same qpb_session_create would refuse the spec with
 */
public record SpecViolation(String field, String message) {}
