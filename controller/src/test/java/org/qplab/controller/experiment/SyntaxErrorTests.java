package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.qplab.controller.api.Violation;
import org.springframework.http.MediaType;
import tools.jackson.databind.json.JsonMapper;

/** A body that does not parse keeps the parser's line, column and a caret under the spot in its 400. */
class SyntaxErrorTests {

    private final MatrixReader reader = new MatrixReader(JsonMapper.builder().build());

    private String refusal(String text, String type) {
        try {
            reader.read(text.getBytes(), MediaType.parseMediaType(type));
        } catch (InvalidMatrixException e) {
            List<Violation> violations = e.violations();
            assertThat(violations).singleElement().extracting(Violation::field).isEqualTo("");
            return violations.get(0).message();
        }
        throw new AssertionError("parsed: " + text);
    }

    @Test
    void aTabIndentIsShownWithItsLineTheOneBeforeAndACaret() {
        String message = refusal("name: x\nbase:\n\tmsg_size: 64\n", "application/yaml");
        assertThat(message).startsWith("malformed YAML at line 3, column 1: ");
        assertThat(message.lines().toList()).endsWith("2 | base:", "3 | \tmsg_size: 64", "  | ^");
    }

    @Test
    void anUnclosedListPointsWhereTheParserGaveUpAndNamesWhatItWasReading() {
        String message = refusal("name: x\ndimensions: {msg_size: [64, 128\n", "application/yaml");
        assertThat(message).startsWith("malformed YAML at line ").contains("flow");
        List<String> lines = message.lines().toList();
        assertThat(lines.get(lines.size() - 1)).matches(" *\\| *\\^");
        assertThat(lines).anySatisfy(l -> assertThat(l).endsWith("| dimensions: {msg_size: [64, 128"));
    }

    @Test
    void jsonToo() {
        String message = refusal("{\"base\": {\"msg_size\": 64,,}}", "application/json");
        assertThat(message).startsWith("malformed JSON at line 1, column 26: ");
        assertThat(message.lines().toList()).endsWith("1 | {\"base\": {\"msg_size\": 64,,}}",
                "  | " + " ".repeat(25) + "^");
    }

    @Test
    void aLongLineIsShownAroundTheColumn() {
        String line = "x".repeat(300);
        String caret = SyntaxError.caret(line, 1, 250);
        List<String> lines = caret.lines().toList();
        assertThat(lines.get(0)).startsWith("1 | …x").endsWith("x…");
        assertThat(lines.get(1).indexOf('^')).as("under column 250: 50 shown before it, after the ellipsis")
                .isEqualTo("1 | …".length() + 50);
    }
}
