package org.qplab.controller;

import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.boot.context.event.SpringApplicationEvent;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.web.server.reactive.context.AnnotationConfigReactiveWebServerApplicationContext;
import org.springframework.context.ApplicationListener;

/**
 * A start that fails makes Spring's context log one WARN line chaining every bean's message ("Exception
 * encountered during context initialization - cancelling refresh attempt: ... Error creating bean ...")
 * before the reporters say what failed: {@code DatabaseRefusalReporter} in one line, or Spring Boot's
 * "Application run failed" with the stack trace, which holds the same messages. That line is switched off until
 * the controller has started, so a refusal is the one line the operator reads; the context's warnings at
 * shutdown stay.
 */
final class QuietFailedRefresh implements ApplicationListener<SpringApplicationEvent> {

    private static final String CONTEXT_LOG = AnnotationConfigReactiveWebServerApplicationContext.class.getName();

    @Override
    public void onApplicationEvent(SpringApplicationEvent event) {
        // after Spring Boot's LoggingApplicationListener (ordered first) has set the logging system up
        if (event instanceof ApplicationEnvironmentPreparedEvent) {
            LoggingSystem.get(getClass().getClassLoader()).setLogLevel(CONTEXT_LOG, LogLevel.ERROR);
        } else if (event instanceof ApplicationStartedEvent) {
            LoggingSystem.get(getClass().getClassLoader()).setLogLevel(CONTEXT_LOG, null);
        }
    }
}
