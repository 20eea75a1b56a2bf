package org.qplab.controller.api;

import io.swagger.v3.oas.models.tags.Tag;
import java.util.List;

/** The groups of the OpenAPI document: controllers name theirs with {@code @Tag(name = ApiTags.RUNS)}. */
public final class ApiTags {

    public static final String EXPERIMENTS = "Experiments";
    public static final String SCHEDULES = "Schedules";
    public static final String RUNS = "Runs";
    public static final String ANALYSIS = "Analysis";
    public static final String HISTORY = "History";
    public static final String EXPORTS = "Exports";
    public static final String IMPORTS = "Imports";
    public static final String STORAGE = "Storage";
    public static final String HOSTS = "Hosts";
    public static final String AGENTS = "Agents";
    public static final String CONTROLLERS = "Controllers";
    public static final String ACCOUNTS = "Accounts";

    static final List<Tag> ALL = List.of(
            tag(EXPERIMENTS, "Submit a matrix (JSON or YAML) and follow, cancel or delete the experiment it makes; "
                    + "its runs."),
            tag(SCHEDULES, "Recurring experiments: a matrix submitted on a cron expression or every so many hours, "
                    + "one occurrence at a time; what each occurrence produced."),
            tag(RUNS, "One run: its parameters and state, its summary, its intervals and per-cycle trace, its "
                    + "progress live and over time."),
            tag(ANALYSIS, "An experiment's curves and a run's cycle-time histogram."),
            tag(HISTORY, "Fingerprints, baselines and comparisons of experiments and runs (Mann-Whitney on "
                    + "cycle times)."),
            tag(EXPORTS, "CSV for scripts and spreadsheets, units in the header."),
            tag(IMPORTS, "perftest results stored as finished experiments."),
            tag(STORAGE, "What a run keeps in PostgreSQL, and deleting per-cycle traces."),
            tag(HOSTS, "The hosts inventory and deploying the agent over SSH; changes need an admin."),
            tag(AGENTS, "The agents that registered, and their own tokens."),
            tag(CONTROLLERS, "The controllers on this database: which are alive, which one leads the background jobs, "
                    + "how many agents each has."),
            tag(ACCOUNTS, "Who is logged in, passwords, API tokens; accounts and the audit log (admins)."));

    private ApiTags() {}

    private static Tag tag(String name, String description) {
        return new Tag().name(name).description(description);
    }
}
