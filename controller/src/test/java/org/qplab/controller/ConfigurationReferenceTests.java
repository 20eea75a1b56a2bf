package org.qplab.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/configuration.md is what the metadata, application.yaml and the agent's table say now. */
class ConfigurationReferenceTests {

    private final ConfigurationReference reference = ConfigurationReference.ofBuild();

    @Test
    void theCommittedReferenceIsWhatTheCodeSays() throws Exception {
        String now = reference.render();
        Path document = reference.document();
        if (Boolean.getBoolean("qplab.reference.write")) {
            Files.createDirectories(document.getParent());
            Files.writeString(document, now);
        }
        assertThat(Files.exists(document) ? Files.readString(document) : "")
                .as("docs/configuration.md is out of date: run %s", ConfigurationReference.REGENERATE)
                .isEqualTo(now);
    }

    @Test
    void everyQplabKeySaysWhatItDoes() {
        assertThat(reference.qplabKeys()).isNotEmpty().allSatisfy((name, key) ->
                assertThat(key.path("description").asString("")).as("the @param text of %s", name).isNotBlank());
    }

    @Test
    void applicationYamlWritesNoQplabDefaultASecondTime() {
        assertThat(reference.yamlEnvironment()).filteredOn(e -> e.key().startsWith("qplab."))
                .isNotEmpty()
                .allSatisfy(e -> {
                    assertThat(reference.qplabKeys()).as("a key of a record").containsKey(e.key());
                    assertThat(e.fallback()).as("%s: its default is the record's, ${%s:} leaves it", e.key(), e.env())
                            .isEmpty();
                });
    }
}
