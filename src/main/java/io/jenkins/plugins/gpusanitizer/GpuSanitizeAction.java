package io.jenkins.plugins.gpusanitizer;

import hudson.FilePath;
import hudson.model.DirectoryBrowserSupport;
import hudson.model.Run;
import io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.engine.run.RunDirectory;
import java.io.File;
import java.lang.ref.SoftReference;
import jenkins.model.RunAction2;

/**
 * The result of one {@code gpuSanitize} on its build: small fields in build.xml, the full report
 * read lazily from the build folder ({@code gpu-sanitizer/ID/report.json}) and cached softly.
 * Several calls per build live side by side, one URL each. The job page's trend comes from {@link
 * GpuSanitizeJobAction.Factory}, whatever the build's result.
 */
public class GpuSanitizeAction implements RunAction2 {
    private final String id;
    private final String name;
    private final String verdict;
    private final int defects;
    private final int suppressed;
    private final Long errorsTotal;
    private final String firstReason;
    private final String diagnosis;
    private final String reportedAt;
    private final String faultAt;
    private final java.util.Map<String, Integer> defectsByTool;
    /** The probe's evidence lines (failing operator, out-of-memory, growing allocation site); null in old builds. */
    private final java.util.List<String> evidence;

    private transient Run<?, ?> owner;
    private transient SoftReference<Report> report;

    public GpuSanitizeAction(String id, String name, AgentSummary s) {
        this.id = id;
        this.name = name;
        this.verdict = s.verdict();
        this.defects = s.defects();
        this.suppressed = s.suppressed();
        this.errorsTotal = s.errorsTotal();
        this.firstReason = s.firstReason();
        this.diagnosis = s.diagnosis();
        this.reportedAt = s.reportedAt();
        this.faultAt = s.faultAt();
        this.defectsByTool =
                s.defectsByTool() == null ? java.util.Map.of() : new java.util.TreeMap<>(s.defectsByTool());
        this.evidence = s.evidence() == null ? java.util.List.of() : new java.util.ArrayList<>(s.evidence());
    }

    /** The probe's evidence for the build page: "failing operator: aten::embedding at train.py:23: ...". */
    public java.util.List<String> getEvidence() {
        return evidence == null ? java.util.List.of() : evidence;
    }

    /** Open defects per tool (empty for builds recorded before it was kept). */
    public java.util.Map<String, Integer> getDefectsByTool() {
        return defectsByTool == null ? java.util.Map.of() : defectsByTool;
    }

    @Override
    public void onAttached(Run<?, ?> r) {
        owner = r;
    }

    @Override
    public void onLoad(Run<?, ?> r) {
        owner = r;
    }

    public Run<?, ?> getOwner() {
        return owner;
    }

    @Override
    public String getIconFileName() {
        return "symbol-search";
    }

    @Override
    public String getDisplayName() {
        return name;
    }

    @Override
    public String getUrlName() {
        return "gpu-sanitizer-" + id;
    }

    public String getId() {
        return id;
    }

    public String getVerdict() {
        return verdict;
    }

    public int getDefects() {
        return defects;
    }

    public int getSuppressed() {
        return suppressed;
    }

    public Long getErrorsTotal() {
        return errorsTotal;
    }

    public String getFirstReason() {
        return firstReason;
    }

    public String getDiagnosis() {
        return diagnosis;
    }

    public String getReportedAt() {
        return reportedAt;
    }

    public String getFaultAt() {
        return faultAt;
    }

    /** The "reported at / really at" line for the build page, or null when there is nothing to contrast. */
    public String getWhereLine() {
        if (faultAt == null) {
            return null;
        }
        return reportedAt == null || reportedAt.equals(faultAt)
                ? "at " + faultAt
                : "reported at " + reportedAt + ", really at " + faultAt;
    }

    File resultDir() {
        return GpuSanitizePublisher.resultDir(owner.getRootDir(), id);
    }

    /** The full report, or null when its file is gone (e.g. a build folder cleaned by hand). */
    public synchronized Report getReport() {
        Report r = report == null ? null : report.get();
        if (r == null) {
            File f = new File(resultDir(), RunDirectory.REPORT_JSON);
            if (!f.isFile()) {
                return null;
            }
            try {
                r = ReportJson.read(f.toPath());
            } catch (RuntimeException e) { // a report cut short (an abort at the wrong moment): no page, no 500
                return null;
            }
            report = new SoftReference<>(r);
        }
        return r;
    }

    /** The engine's HTML fragment: every tool/log string in it is already escaped. */
    public String getReportHtml() {
        Report r = getReport();
        return r == null ? null : new HtmlReport("raw/").fragment(r);
    }

    /**
     * Raw outputs (logs, XML, CSV, the standalone report.html with its report.css) served by core's
     * directory browser, with its strict CSP. Its owner is the build, as core does for file parameters:
     * the browser's {@code dir.jelly} includes the owner's {@code sidepanel.jelly}, which a build has and
     * this action has not (an HTTP 500 otherwise).
     */
    public DirectoryBrowserSupport doRaw() {
        return new DirectoryBrowserSupport(
                owner, new FilePath(resultDir()), name + ": raw outputs", "folder.png", true);
    }
}
