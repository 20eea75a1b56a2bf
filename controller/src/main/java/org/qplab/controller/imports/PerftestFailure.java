package org.qplab.controller.imports;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What perftest printed instead of results: a run that failed prints its error lines (on stderr, which a
 * terminal or {@code 2>&1} mixes in), e.g.
 *
 * <pre>
 * Error opening XRC domain
 * Couldn't create XRC resources
 *  Couldn't create IB resources
 * </pre>
 *
 * while a server that no client connected to prints no error at all, only its banner, until it is killed:
 *
 * <pre>
 * ************************************
 * * Waiting for client to connect... *
 * ************************************
 * </pre>
 *
 * Output that failed to read as results is explained by these lines when it has them, so the user sees
 * perftest's own words rather than "no result header".
 */
final class PerftestFailure {

    /** A failed run's lines quoted at most: the first is the cause, the rest its consequences. */
    static final int MAX_QUOTED = 10;

    /**
     * perftest's error messages (perftest 4.5's binaries hold about 300): they start with one of these
     * words, or say that what was asked for is not supported, possible or available.
     */
    private static final Pattern ERROR_LINE = Pattern.compile("^\\s*(Couldn't|Could not|Can't|Cannot|Unable|Failed|Fail to|"
            + "Error|Invalid|Did not|Completion with error|Poll send CQ error|Internal error|Test exited with Error|"
            + "Parser function exited with Error)\\b.*"
            + "|.*\\b(only possible|not possible|not supported|isn't supported|doesn't support|only available|"
            + "not available|must be)\\b.*");
    /** The banner of a perftest server, printed before it accepts a client and its title. */
    private static final Pattern WAITING = Pattern.compile("^\\* Waiting for client to connect\\.\\.\\. \\*$");
    private static final Pattern DECORATION = Pattern.compile("^[-*\\s]*$");

    /** A failed run: perftest's error lines, quoted as it printed them (leading and trailing blanks dropped). */
    static final class Failed extends PerftestOutput.Invalid {
        private final List<Line> errors;

        Failed(List<Line> errors) {
            super(errors.get(0).number(), quote(errors.get(0)));
            this.errors = List.copyOf(errors);
        }

        List<Line> errors() {
            return errors;
        }
    }

    /** One line of the file, numbered from 1, without its leading and trailing blanks. */
    record Line(int number, String text) {}

    private PerftestFailure() {
    }

    static String quote(Line error) {
        return "perftest failed: \"" + error.text() + "\"";
    }

    /**
     * Why lines did not read as a perftest report: perftest's error lines when it printed any; that it
     * printed no result, quoting its last line, when a server waited for a client and never printed its
     * title; otherwise the reader's own complaint.
     */
    static PerftestOutput.Invalid explain(String[] lines, PerftestOutput.Invalid complaint) {
        List<Line> errors = errorLines(lines);
        if (!errors.isEmpty()) {
            return new Failed(errors);
        }
        List<Line> text = textLines(lines);
        boolean waited = text.stream().anyMatch(l -> WAITING.matcher(l.text()).matches());
        boolean titled = text.stream().anyMatch(l -> PerftestOutput.TITLE.matcher(l.text()).matches());
        if (waited && !titled) {
            Line last = text.get(text.size() - 1);
            return new PerftestOutput.Invalid(last.number(), "perftest printed no result; its last line: \"" + last.text()
                    + "\": a server that no client connected to");
        }
        return complaint;
    }

    static List<Line> errorLines(String[] lines) {
        List<Line> errors = new ArrayList<>();
        for (Line line : textLines(lines)) {
            if (ERROR_LINE.matcher(line.text()).matches()) {
                errors.add(line);
                if (errors.size() == MAX_QUOTED) {
                    break;
                }
            }
        }
        return errors;
    }

    /** The lines with something other than blanks, dashes and stars in them. */
    private static List<Line> textLines(String[] lines) {
        List<Line> text = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            if (!DECORATION.matcher(lines[i]).matches()) {
                text.add(new Line(i + 1, lines[i].strip()));
            }
        }
        return text;
    }
}
