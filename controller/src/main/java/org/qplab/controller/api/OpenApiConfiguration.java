package org.qplab.controller.api;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.info.License;
import java.util.ArrayList;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The OpenAPI document (/v3/api-docs) describes the same REST API the dashboard uses. Its servers entry is the URL
 * the document was fetched from (springdoc builds it from the request). Security schemes: security/OpenApiSecurity;
 * the errors every operation can answer: {@link ErrorResponses}. api/redocly.yaml lints it
 * (OpenApiLintIntegrationTests).
 */
@Configuration(proxyBeanMethods = false)
class OpenApiConfiguration {

    @Bean
    OpenAPI qplabOpenApi() {
        return new OpenAPI().info(new Info().title("qplab").version("v1")
                        .description("Submit experiment matrices, follow runs, read traces, summaries, curves "
                                + "and comparisons. Times are in nanoseconds (fields ending in Ns), bandwidths in "
                                + "bytes per second (Bps), message rates in messages per second; timestamps are ISO "
                                + "8601 with their offset. Errors are JSON: {\"error\": \"...\"}, and on 400 the "
                                + "list of violations, each naming its field.")
                        // qplab has not chosen a license: say so rather than leave the field out or invent one
                        .license(new License().name("No license granted: all rights reserved")
                                .identifier("LicenseRef-qplab-all-rights-reserved")))
                .tags(new ArrayList<>(ApiTags.ALL));
    }
}
