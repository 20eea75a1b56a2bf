package org.qplab.controller.api;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The OpenAPI document (/v3/api-docs) describes the same REST API the dashboard uses. */
@Configuration(proxyBeanMethods = false)
class OpenApiConfiguration {

    @Bean
    OpenAPI qplabOpenApi() {
        return new OpenAPI().info(new Info().title("qplab").version("v1").description(
                "Submit experiment matrices, follow runs, read samples, summaries, curves and comparisons."));
    }
}
