package org.qplab.controller.api;

/** One problem in a submitted matrix: where it is (a path like dimensions.msg_size[2]) and what is wrong. */
public record Violation(String field, String message) {}
