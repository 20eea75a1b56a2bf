package org.qplab.controller;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

/**
 * A {@link ControllerIntegrationTest} that counts rows or metrics exactly: it gets a controller, and so an
 * embedded PostgreSQL, of its own instead of the one its neighbours share (a property of its own makes another
 * context), and that controller is stopped after the class, so no later class finds it in Spring's context cache.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@TestPropertySource(properties = "qplab.test.own-database=true")
@DirtiesContext
public @interface OwnDatabase {
}
