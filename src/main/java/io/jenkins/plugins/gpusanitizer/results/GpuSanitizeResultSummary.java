package io.jenkins.plugins.gpusanitizer.results;

import edu.umd.cs.findbugs.annotations.CheckForNull;
import hudson.model.Run;
import java.io.Serializable;
import org.jenkinsci.plugins.scriptsecurity.sandbox.whitelists.Whitelisted;

/**
 * What {@code def result = gpuSanitize(...)} gives the Pipeline script (like junit's {@code
 * TestResultSummary}): the verdict and counts of this call, and where its report is. Serializable (it
 * lives in the script's program state) and whitelisted for the Groovy sandbox. A FAIL or ERROR verdict
 * fails the step, so a script sees PASS or UNSTABLE here unless it catches the error.
 */
public final class GpuSanitizeResultSummary implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String id;
    private final String name;
    private final String verdict;
    private final int defects;
    private final int suppressed;
    private final Long errorsTotal;
    private final String firstReason;
    private final String faultAt;
    private final String reportUrl;

    GpuSanitizeResultSummary(
            String id,
            String name,
            String verdict,
            int defects,
            int suppressed,
            Long errorsTotal,
            String firstReason,
            String faultAt,
            String reportUrl) {
        this.id = id;
        this.name = name;
        this.verdict = verdict;
        this.defects = defects;
        this.suppressed = suppressed;
        this.errorsTotal = errorsTotal;
        this.firstReason = firstReason;
        this.faultAt = faultAt;
        this.reportUrl = reportUrl;
    }

    /** The summary of a result attached to its build. */
    public static GpuSanitizeResultSummary of(GpuSanitizeBuildAction action) {
        Run<?, ?> build = action.getOwner();
        String buildUrl = build == null ? null : build.getUrl();
        return new GpuSanitizeResultSummary(
                action.getId(),
                action.getDisplayName(),
                action.getVerdict(),
                action.getDefects(),
                action.getSuppressed(),
                action.getErrorsTotal(),
                action.getFirstReason(),
                action.getFaultAt(),
                buildUrl == null ? null : buildUrl + action.getUrlName() + "/");
    }

    /** The step's id (the report's URL and folder). */
    @Whitelisted
    public String getId() {
        return id;
    }

    @Whitelisted
    public String getName() {
        return name;
    }

    /** PASS, UNSTABLE, FAIL or ERROR. */
    @Whitelisted
    public String getVerdict() {
        return verdict;
    }

    /** Open (not suppressed) defects. */
    @Whitelisted
    public int getDefects() {
        return defects;
    }

    @Whitelisted
    public int getSuppressed() {
        return suppressed;
    }

    /** The errors compute-sanitizer counted, or null when no sanitizer phase ran. */
    @CheckForNull
    @Whitelisted
    public Long getErrorsTotal() {
        return errorsTotal;
    }

    /** The first reason for a verdict other than PASS, as on the build page. */
    @CheckForNull
    @Whitelisted
    public String getFirstReason() {
        return firstReason;
    }

    /** Where the first defect really is ("train.py:43 (fused_scale)"), or null. */
    @CheckForNull
    @Whitelisted
    public String getFaultAt() {
        return faultAt;
    }

    /** The report page, relative to Jenkins' root URL ("job/train/12/gpu-sanitizer-gpu-sanitizer/"). */
    @CheckForNull
    @Whitelisted
    public String getReportUrl() {
        return reportUrl;
    }

    @Override
    public String toString() {
        return name + ": " + verdict + " (" + defects + " defect(s), " + suppressed + " suppressed)";
    }
}
