package org.qplab.engine;

import java.util.List;

/**
 * One key a provider's run may set, typed as the engine's schema (qpb_spec_schema) types its own.
 *
 * @param name         the key
 * @param type         integer, string or boolean
 * @param bytes        an integer that counts bytes (a matrix may write "4K")
 * @param choices      the values a string must be one of (empty: any)
 * @param defaultValue what a run takes when the key is unset: a Long, Boolean or String; null for none
 * @param providers    the provider names that take it (the engine's verbs-only keys: verbs)
 */
public record SpecKey(String name, String type, boolean bytes, List<String> choices, Object defaultValue,
                      List<String> providers) {
}
