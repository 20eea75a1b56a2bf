package org.qplab.controller;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/** The qplab controller: REST API, scheduler, agent gateway, ingest, and the dashboard. */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
public class QplabApplication {

    public static void main(String[] args) {
        SpringApplication application = new SpringApplication(QplabApplication.class);
        application.addListeners(new QuietFailedRefresh());
        application.run(args);
    }
}
