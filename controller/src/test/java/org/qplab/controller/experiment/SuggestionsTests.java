package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.qplab.controller.api.Violation;

/** A misspelt key or choice is answered with the nearest known one, not with the list of every key. */
class SuggestionsTests {

    private final YamlMatrices matrices = YamlMatrices.withoutHosts();

    @Test
    void countsASwapOfNeighboursAsOneEdit() {
        assertThat(Suggestions.distance("msg_szie", "msg_size")).isEqualTo(1);
        assertThat(Suggestions.distance("thread", "threads")).isEqualTo(1);
        assertThat(Suggestions.distance("itrations", "iterations")).isEqualTo(1);
        assertThat(Suggestions.distance("abc", "xyz")).isEqualTo(3);
        assertThat(Suggestions.distance("", "op")).isEqualTo(2);
    }

    @Test
    void suggestsOnlyWhatIsNear() {
        List<String> known = List.of("msg_size", "threads", "tx_depth", "rx_depth", "op");
        assertThat(Suggestions.nearest("MSG_SIZE", known)).containsExactly("msg_size");
        assertThat(Suggestions.nearest("tx_dpeth", known)).containsExactly("tx_depth");
        assertThat(Suggestions.nearest("x_depth", known)).as("equally near: both").containsExactly("tx_depth", "rx_depth");
        assertThat(Suggestions.nearest("ox", known)).as("short names: one edit at most").containsExactly("op");
        assertThat(Suggestions.nearest("bandwidth", known)).isEmpty();
        assertThat(Suggestions.didYouMean("bandwidth", known)).isNull();
    }

    @Test
    void aMisspeltParameterNamesTheNearestKeyAndANameNearNothingListsThemAll() {
        assertThat(matrices.violationsOf("base: {msg_size: 64, msg_szie: 64}\n")).containsExactly(
                new Violation("base.msg_szie", "unknown parameter 'msg_szie'; did you mean msg_size?"));
        assertThat(matrices.violationsOf("base: {msg_size: 64}\ndimensions: {treads: [1, 2]}\n")).extracting(Violation::message)
                .containsExactly("unknown parameter 'treads'; did you mean threads?");
        assertThat(matrices.violationsOf("base: {msg_size: 64, bandwidth: 1}\n")).extracting(Violation::message).singleElement()
                .asString().startsWith("unknown parameter 'bandwidth'; known: provider, op, mode, threads");
        assertThat(matrices.violationsOf("base: {msg_size: 64}\nexclude: [{msg_szie: 64}]\n"))
                .extracting(Violation::message).containsExactly("unknown parameter 'msg_szie'; did you mean msg_size?");
    }

    @Test
    void aMisspeltChoiceOrTopLevelKeyNamesTheNearestToo() {
        assertThat(matrices.violationsOf("base: {provider: verb, msg_size: 64}\n")).extracting(Violation::message).singleElement()
                .asString().endsWith("got \"verb\"; did you mean verbs?");
        assertThat(matrices.violationsOf("base: {msg_size: 64}\ndimension: {threads: [1]}\n"))
                .extracting(Violation::message).singleElement().asString()
                .startsWith("unknown key; did you mean dimensions? (a matrix has name, description, base");
    }
}
