package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class MatrixBodyTests {

    @Test
    void documentsEveryTopLevelKeyOfAMatrixAndNoOther() {
        assertThat(Arrays.stream(MatrixBody.class.getRecordComponents()).map(RecordComponent::getName))
                .containsExactlyInAnyOrderElementsOf(MatrixExpander.TOP_LEVEL);
    }
}
