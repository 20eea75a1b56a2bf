package org.qplab.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.InputFormat;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import org.junit.jupiter.api.Test;

/** The schema itself: JSON Schema 2020-12 by its meta-schema. The summaries it describes are checked where they are made. */
class RunSummarySchemaTests {

    @Test
    void isAValid2020_12Schema() {
        var meta = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
                .getSchema(SchemaLocation.of("https://json-schema.org/draft/2020-12/schema"));

        assertThat(meta.validate(RunSummarySchema.text(), InputFormat.JSON)).isEmpty();
        assertThat(meta.validate("{\"type\": 5}", InputFormat.JSON)).as("the meta-schema checks").isNotEmpty();
        assertThat(RunSummarySchema.text()).contains("\"$schema\": \"https://json-schema.org/draft/2020-12/schema\"");
    }

    @Test
    void anEmptyObjectNamesTheKeysEveryProviderWrites() {
        assertThat(RunSummaryValidator.problems("{}")).anySatisfy(p -> assertThat(p).startsWith("/provider: ")
                .contains("required property 'provider'"));
    }
}
