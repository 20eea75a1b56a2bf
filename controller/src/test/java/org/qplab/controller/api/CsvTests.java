package org.qplab.controller.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class CsvTests {

    @Test
    void neutralisesTextThatASpreadsheetWouldRunAsAFormula() {
        assertThat(Csv.cell("=HYPERLINK(\"http://x\",\"y\")")).isEqualTo("\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
        assertThat(Csv.cell("+1")).isEqualTo("'+1");
        assertThat(Csv.cell("-2+3")).isEqualTo("'-2+3");
        assertThat(Csv.cell("@SUM(A1)")).isEqualTo("'@SUM(A1)");
        assertThat(Csv.cell("\tcmd")).isEqualTo("'\tcmd");
        assertThat(Csv.cell("\rcmd")).isEqualTo("\"'\rcmd\"");
        assertThat(Csv.cell("a=b")).as("only a leading character counts").isEqualTo("a=b");
    }

    @Test
    void writesNumbersAsNumbersNegativeOnesIncluded() {
        assertThat(Csv.cell(-5L)).isEqualTo("-5");
        assertThat(Csv.cell(-0.25)).isEqualTo("-0.25");
        assertThat(Csv.cell(new BigDecimal("-12.5"))).isEqualTo("-12.5");
        assertThat(Csv.cell("-5")).as("the same characters as text are text").isEqualTo("'-5");
        assertThat(Csv.cell(null)).isEmpty();
    }

    @Test
    void quotesCommasQuotesAndLineBreaks() {
        assertThat(Csv.cell("a,b")).isEqualTo("\"a,b\"");
        assertThat(Csv.cell("say \"hi\"")).isEqualTo("\"say \"\"hi\"\"\"");
        assertThat(Csv.cell("two\nlines")).isEqualTo("\"two\nlines\"");
        assertThat(Csv.cell("cr\rinside")).isEqualTo("\"cr\rinside\"");
        assertThat(Csv.cell("plain")).isEqualTo("plain");
        assertThat(new Csv().row("id", "name").row(7L, "x,y").toString()).isEqualTo("id,name\n7,\"x,y\"\n");
    }
}
