package org.qplab.controller.experiment;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.qplab.controller.api.Violation;
import tools.jackson.databind.JsonNode;

/**
 * One run parameter a matrix may set, as its provider's schema says ({@link ProviderKeys}), with the type a matrix
 * writes it in: sizes also as "4K", choices by name, so that a typo in an exclude is caught. Its limits and the
 * rules between keys are its provider's ({@link SpecCheck}).
 *
 * @param choices   a CHOICE's names (for transport: verbs' and nvmeof's)
 * @param providers the providers that take it (a verbs-only key: verbs; fio's: nvmeof)
 */
public record ProviderKey(String key, Kind kind, List<String> choices, List<String> providers) {

    enum Kind { INT, SIZE, BOOL, CHOICE, TEXT }

    private static final Pattern SIZE_TEXT = Pattern.compile("(\\d+)\\s*(|B|K|KB|KIB|M|MB|MIB|G|GB|GIB)");

    /** True for parameters whose values are numbers (usable as a curve axis). */
    public boolean numeric() {
        return kind == Kind.INT || kind == Kind.SIZE;
    }

    /**
     * Converts one matrix value to the provider's type, or explains why it is not one. Sizes also accept binary
     * suffixes: "4K", "64KiB", "1M". Whether the provider takes the value is its check's to say.
     */
    public Object parse(JsonNode value, String field, List<Violation> violations) {
        switch (kind) {
            case BOOL -> {
                if (value.isBoolean()) {
                    return value.booleanValue();
                }
                violations.add(new Violation(field, "must be true or false, got " + value));
                return null;
            }
            case CHOICE -> {
                if (value.isString() && choices.contains(value.stringValue())) {
                    return value.stringValue();
                }
                String near = value.isString() ? Suggestions.didYouMean(value.stringValue(), choices) : null;
                violations.add(new Violation(field, "must be one of " + choices + ", got " + value
                        + (near != null ? "; " + near : "")));
                return null;
            }
            case TEXT -> {
                if (value.isString()) {
                    return value.stringValue();
                }
                violations.add(new Violation(field, "must be a string, got " + value));
                return null;
            }
            default -> {
                Long number = number(value);
                if (number == null) {
                    violations.add(new Violation(field, kind == Kind.SIZE
                            ? "must be a size in bytes (an integer, or like \"4K\", \"1MiB\"), got " + value
                            : "must be an integer, got " + value));
                }
                return number;
            }
        }
    }

    private Long number(JsonNode value) {
        if (value.isIntegralNumber() && value.canConvertToLong()) {
            return value.longValue();
        }
        if (kind == Kind.SIZE && value.isString()) {
            Matcher m = SIZE_TEXT.matcher(value.stringValue().trim().toUpperCase(Locale.ROOT));
            if (m.matches()) {
                long unit = switch (m.group(2)) {
                    case "K", "KB", "KIB" -> 1L << 10;
                    case "M", "MB", "MIB" -> 1L << 20;
                    case "G", "GB", "GIB" -> 1L << 30;
                    default -> 1;
                };
                try {
                    return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
                } catch (ArithmeticException | NumberFormatException e) {
                    return null;
                }
            }
        }
        return null;
    }
}
