package org.qplab.controller.experiment;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.OffsetDateTime;
import java.util.Map;

/** An experiment as the API shows it: its status and how far its runs have got. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Experiment(long id, String name, String status, OffsetDateTime createdAt, OffsetDateTime finishedAt,
                         int runsTotal, int runsDone, int runsFailed, Map<String, Object> matrix) {}
