package io.jenkins.plugins.gpusanitizer.results;

import hudson.AbortException;
import hudson.EnvVars;
import hudson.model.Result;
import hudson.model.Run;
import hudson.model.TaskListener;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.ReferenceComparison;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import java.io.IOException;
import java.util.Iterator;

/**
 * The publishing half of one {@code gpuSanitize} (the recorder runs it): what earlier builds say
 * (reference report, failure time), the comparison with the reference build, the build action, the
 * check, the verdict's effect on the build, and the raw-log retention over older builds.
 */
public final class GpuSanitizeReporter {
    private final String id;
    private final String name;
    private final Run<?, ?> build;
    private final TaskListener listener;
    private final ByIdResultSelector selector;

    public GpuSanitizeReporter(String id, String name, Run<?, ?> build, TaskListener listener) {
        this.id = id;
        this.name = name;
        this.build = build;
        this.listener = listener;
        this.selector = new ByIdResultSelector(id);
    }

    /** This step's folder in the build: where the recorder copies the run directory. */
    public BuildFolder folder() {
        return BuildFolder.of(build, id);
    }

    /** Each call in a build has its own id: its URL and folder. */
    public void checkIdIsFree() throws AbortException {
        if (selector.select(build).isPresent()) {
            throw new AbortException(
                    name + ": a gpuSanitize with id '" + id + "' already ran in this build: give each call its own id");
        }
    }

    /** What earlier builds tell this one; why a comparison is skipped goes to the build log. */
    public References findReferences(EnvVars env) {
        References references = References.find(build, id, env);
        if (references.note() != null) {
            log(references.note());
        }
        return references;
    }

    /**
     * Marks the defects new or outstanding against the reference build and lists the fixed ones,
     * rewriting report.json; the summary of the compared report (or the one given, without a reference).
     *
     * @param summary the agent's summary, masked
     */
    public AgentSummary compareWithReference(AgentSummary summary, References references, boolean failOnNewOnly) {
        return references.report() == null ? summary : compare(references, failOnNewOnly, summary);
    }

    /**
     * Attaches the build action of this result, in place of this id's earlier one: a collection that a
     * controller restart cut short runs again after the restart.
     */
    public GpuSanitizeBuildAction attach(AgentSummary summary) {
        selector.select(build).ifPresent(build::removeAction);
        GpuSanitizeBuildAction action = new GpuSanitizeBuildAction(id, name, summary);
        build.addAction(action);
        return action;
    }

    /** The check and the verdict of a run that was not aborted: how it lands on the build (the caller applies it). */
    public VerdictResult publish(GpuSanitizeBuildAction action, AgentSummary summary, String agent) {
        Report report = action.getReport();
        if (report != null) {
            ChecksPublishing.publish(build, listener, report, name);
        }
        VerdictResult verdict = VerdictResult.of(summary, name);
        log(verdict.message());
        if (summary.verdict() == Verdict.ERROR) {
            return new VerdictResult(verdict.result(), true, verdict.message() + " (on " + agent + ")");
        }
        return verdict;
    }

    /** An aborted run's verdict: the build ends ABORTED whatever was found. */
    public VerdictResult aborted() {
        return new VerdictResult(Result.ABORTED, true, name + ": aborted");
    }

    /**
     * The raw-log retention: keeps the raw outputs of the newest {@code keepRawLogs} builds with a
     * result of this id (this one included) and drops those of older completed builds, keeping their
     * report. 0 keeps everything. Bounded like every history walk ({@link
     * ByIdResultSelector#HISTORY_LIMIT} builds back): each build applies it to those before it.
     */
    public void applyRetention(int keepRawLogs) {
        if (keepRawLogs <= 0) {
            return;
        }
        Iterator<ByIdResultSelector.Found> older = selector.history(
                        build.getPreviousCompletedBuild(),
                        ByIdResultSelector.HISTORY_LIMIT,
                        ByIdResultSelector::previousCompletedBuild)
                .skip(keepRawLogs - 1L)
                .iterator();
        while (older.hasNext()) {
            ByIdResultSelector.Found found = older.next();
            try {
                if (found.action()
                        .getFolder()
                        .dropRawLogs("Raw outputs dropped by build #" + build.getNumber() + " (keepRawLogs: "
                                + keepRawLogs + "); the report is kept.")) {
                    log("raw outputs of build #" + found.build().getNumber() + " dropped (keepRawLogs: " + keepRawLogs
                            + "), its report kept");
                }
            } catch (IOException e) {
                listener.error("[gpu-sanitize] could not drop the raw outputs of build #"
                        + found.build().getNumber() + ": " + e.getMessage());
            }
        }
    }

    private AgentSummary compare(References references, boolean failOnNewOnly, AgentSummary summary) {
        BuildFolder folder = folder();
        if (!folder.hasReport()) {
            return summary;
        }
        try {
            Report compared = ReferenceComparison.apply(
                    ReportJson.read(folder.reportJson().toPath()),
                    references.report(),
                    references.reportBuild(),
                    failOnNewOnly);
            folder.replaceReport(compared);
            log("compared with " + references.reportBuild() + ": "
                    + compared.reasons().get(compared.reasons().size() - 1).message());
            // report.json came through the masked copy-back: what the summary takes from it is masked too
            return Summaries.of(compared, summary.runDirectory(), summary.aborted());
        } catch (IOException | RuntimeException e) {
            listener.error("[gpu-sanitize] could not compare with " + references.reportBuild() + ": " + e.getMessage());
            return summary;
        }
    }

    private void log(String message) {
        listener.getLogger().println("[gpu-sanitize] " + message);
    }
}
