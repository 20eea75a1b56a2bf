package org.qplab.controller.imports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

class LooseJsonTests {

    @Test
    void readsStrictJsonWithEscapesArraysAndPositions() {
        LooseJson.Value root = LooseJson.read("""
                {"name": "a \\"quoted\\" \\u00e9",
                  "sizes": [1, 2.5e3, true, null],
                  "nested": {"x": -1}}
                """);

        assertThat(root.members().get("name").text()).isEqualTo("a \"quoted\" é");
        assertThat(root.members().get("sizes").content()).asInstanceOf(InstanceOfAssertFactories.LIST)
                .extracting(v -> ((LooseJson.Value) v).text()).containsExactly("1", "2.5e3", "true", "null");
        LooseJson.Value x = root.members().get("nested").members().get("x");
        assertThat(x.text()).isEqualTo("-1");
        assertThat(List.of(x.line(), x.column())).containsExactly(3, 19);
        assertThat(root.endLine()).isEqualTo(3);
    }

    @Test
    void readsPerftestsBareWordsAndTrailingCommas() {
        LooseJson.Value root = LooseJson.read("{\ntest: RDMA_Read_Latency_Test,\nTX_depth : 1,\npercentile_99.9: 918.06,\n}\n");

        assertThat(root.members()).containsOnlyKeys("test", "TX_depth", "percentile_99.9");
        assertThat(root.members().get("test").text()).isEqualTo("RDMA_Read_Latency_Test");
        assertThat(root.members().get("percentile_99.9").text()).isEqualTo("918.06");
    }

    @Test
    void namesTheLineAndColumnOfASyntaxError() {
        assertThatThrownBy(() -> LooseJson.read("{\na: 1\nb: 2\n}")).isInstanceOfSatisfying(LooseJson.Malformed.class, e -> {
            assertThat(List.of(e.line(), e.column())).containsExactly(3, 1);
            assertThat(e.getMessage()).isEqualTo("expected ',' or '}' in the object opened on line 1, found 'b'");
        });
        assertThatThrownBy(() -> LooseJson.read("{\"a\": 1, \"a\": 2}")).hasMessageContaining("\"a\" appears twice");
        assertThatThrownBy(() -> LooseJson.read("{\"a\": 1} x")).hasMessageContaining("unexpected 'x' after the value");
        assertThatThrownBy(() -> LooseJson.read("[".repeat(100))).hasMessageContaining("nested deeper than 32 levels");
    }

    @Test
    void leavesOutClosingBracesAfterTheValueOnlyWhenAskedCountingThemFromTheLineOfTheFirst() {
        String text = "{\n\"a\": {\"b\": 1}\n}\n}  }\n\n}\n";
        assertThatThrownBy(() -> LooseJson.read(text)).isInstanceOfSatisfying(LooseJson.Malformed.class, e -> {
            assertThat(List.of(e.line(), e.column())).containsExactly(4, 1);
            assertThat(e.getMessage()).isEqualTo("unexpected '}' after the value that ended on line 3");
        });

        LooseJson.Read read = LooseJson.readRepairing(text);
        assertThat(read.value().members().get("a").members().get("b").text()).isEqualTo("1");
        assertThat(List.of(read.extraBraces(), read.extraLine())).containsExactly(3, 4);
        assertThat(LooseJson.readRepairing("{\"a\": 1}\n")).isEqualTo(new LooseJson.Read(LooseJson.read("{\"a\": 1}\n"), 0, 0));

        assertThatThrownBy(() -> LooseJson.readRepairing("{\"a\": 1}}\n] }")).isInstanceOfSatisfying(LooseJson.Malformed.class, e -> {
            assertThat(List.of(e.line(), e.column())).containsExactly(2, 1);
            assertThat(e.getMessage()).isEqualTo("unexpected ']' after the value that ended on line 1");
        });
    }
}
