package org.qplab.controller.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.MappingIterator;
import tools.jackson.dataformat.csv.CsvMapper;
import tools.jackson.dataformat.csv.CsvReadFeature;

class CsvTests {

    /** One cell as it is written in a row (without the row's line feed). */
    private static String cell(Object value) {
        String line = new Csv().row(java.util.Collections.singletonList(value)).toString();
        assertThat(line).endsWith("\n");
        return line.substring(0, line.length() - 1);
    }

    @Test
    void neutralisesTextThatASpreadsheetWouldRunAsAFormula() {
        assertThat(cell("=HYPERLINK(\"http://x\",\"y\")")).isEqualTo("\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
        assertThat(cell("+1")).isEqualTo("'+1");
        assertThat(cell("-2+3")).isEqualTo("'-2+3");
        assertThat(cell("@SUM(A1)")).isEqualTo("'@SUM(A1)");
        assertThat(cell("\tcmd")).isEqualTo("'\tcmd");
        assertThat(cell("\rcmd")).isEqualTo("\"'\rcmd\"");
        assertThat(cell("a=b")).as("only a leading character counts").isEqualTo("a=b");
    }

    @Test
    void writesNumbersAsNumbersNegativeOnesIncluded() {
        assertThat(cell(-5L)).isEqualTo("-5");
        assertThat(cell(-0.25)).isEqualTo("-0.25");
        assertThat(cell(new BigDecimal("-12.5"))).isEqualTo("-12.5");
        assertThat(cell("-5")).as("the same characters as text are text").isEqualTo("'-5");
        assertThat(cell(null)).isEmpty();
    }

    @Test
    void quotesCommasQuotesAndLineBreaks() {
        assertThat(cell("a,b")).isEqualTo("\"a,b\"");
        assertThat(cell("say \"hi\"")).isEqualTo("\"say \"\"hi\"\"\"");
        assertThat(cell("two\nlines")).isEqualTo("\"two\nlines\"");
        assertThat(cell("cr\rinside")).isEqualTo("\"cr\rinside\"");
        assertThat(cell("plain")).isEqualTo("plain");
        assertThat(new Csv().row("id", "name").row(7L, "x,y").toString()).isEqualTo("id,name\n7,\"x,y\"\n");
        assertThat(new Csv().row(1L, null, null).row(null, "x").row((Object) null).toString())
                .as("an empty cell keeps its column, first or last").isEqualTo("1,,\n,x\n\n");
    }

    @Test
    void aCellWithEverythingAtOnceIsOneNeutralisedCellThatReadsBackWhole() {
        String nasty = "=cmd|' /C calc'!A0,\"quoted\"\r\nnext line\rafter a lone CR";
        String csv = new Csv().row("name", "cycles").row(nasty, -3L).row("plain", 4.5).toString();

        assertThat(csv).isEqualTo("name,cycles\n"
                + "\"'=cmd|' /C calc'!A0,\"\"quoted\"\"\r\nnext line\rafter a lone CR\",-3\n"
                + "plain,4.5\n");
        CsvMapper reader = CsvMapper.builder().enable(CsvReadFeature.WRAP_AS_ARRAY).build();
        try (MappingIterator<List<String>> rows = reader.readerFor(List.class).readValues(csv)) {
            assertThat(rows.readAll()).containsExactly(List.of("name", "cycles"), List.of("'" + nasty, "-3"),
                    List.of("plain", "4.5"));
        }
    }
}
