package io.jenkins.plugins.gpusanitizer.results;

import hudson.FilePath;
import hudson.Functions;
import hudson.model.DirectoryBrowserSupport;
import hudson.model.Run;
import io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jenkins.model.RunAction2;

/**
 * The result of one {@code gpuSanitize} on its build: small fields in build.xml, the full report
 * read lazily from its {@link BuildFolder} ({@code gpu-sanitizer/ID/report.json}). Several calls per
 * build live side by side, one URL each. The job page's trend comes from {@link
 * GpuSanitizeJobAction.Factory}, whatever the build's result. Builds recorded before 0.2 name it
 * {@code io.jenkins.plugins.gpusanitizer.GpuSanitizeAction} in build.xml: {@link CompatibilityAliases}.
 */
public class GpuSanitizeBuildAction implements RunAction2 {
    private final String id;
    private final String name;
    /** The verdict's name (PASS, UNSTABLE, FAIL, ERROR): what build.xml, the pages and the script's summary read. */
    private final String verdict;

    private final int defects;
    private final int suppressed;
    private final Long errorsTotal;
    private final String firstReason;
    private final String diagnosis;
    private final String reportedAt;
    private final String faultAt;
    private final Map<String, Integer> defectsByTool;
    /** The probe's evidence lines (failing operator, out-of-memory, growing allocation site); null in old builds. */
    private final List<String> evidence;

    private transient Run<?, ?> owner;
    private transient BuildFolder folder;

    public GpuSanitizeBuildAction(String id, String name, AgentSummary summary) {
        this.id = id;
        this.name = name;
        this.verdict = summary.verdict().name();
        this.defects = summary.defects();
        this.suppressed = summary.suppressed();
        this.errorsTotal = summary.errorsTotal();
        this.firstReason = summary.firstReason();
        this.diagnosis = summary.diagnosis();
        this.reportedAt = summary.reportedAt();
        this.faultAt = summary.faultAt();
        // TreeMap and ArrayList: XStream writes the runtime class into build.xml, and core's class filter
        // (JEP-200) reads back no JDK immutable map (PersistedClassesTest)
        this.defectsByTool = summary.defectsByTool() == null ? new TreeMap<>() : new TreeMap<>(summary.defectsByTool());
        this.evidence = summary.evidence() == null ? new ArrayList<>() : new ArrayList<>(summary.evidence());
    }

    /** The probe's evidence for the build page: "failing operator: aten::embedding at train.py:23: ...". */
    public List<String> getEvidence() {
        return evidence == null ? List.of() : evidence;
    }

    /** Open defects per tool (empty for builds recorded before it was kept). */
    public Map<String, Integer> getDefectsByTool() {
        return defectsByTool == null ? Map.of() : defectsByTool;
    }

    @Override
    public void onAttached(Run<?, ?> build) {
        owner = build;
        folder = BuildFolder.of(build, id);
    }

    @Override
    public void onLoad(Run<?, ?> build) {
        owner = build;
        folder = BuildFolder.of(build, id);
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

    /** This result's folder in its build. */
    public BuildFolder getFolder() {
        return folder;
    }

    /** The full report, or null when its file is gone (e.g. a build folder cleaned by hand) or cut short. */
    public Report getReport() {
        return folder.report();
    }

    /** Whether the raw-log retention ({@code keepRawLogs}) dropped this build's raw outputs (report.json is kept). */
    public boolean isRawLogsDropped() {
        return folder.rawLogsDropped();
    }

    /**
     * The engine's HTML fragment: every tool/log string in it is already escaped. Its links to the raw outputs are
     * there only for a reader who may open them ({@link #isRawAllowed}, as core's build page lists artifacts only with
     * Run/Artifacts) and only while they are kept ({@link #isRawLogsDropped}): else every one of them would answer 403
     * or 404.
     */
    public String getReportHtml() {
        Report report = getReport();
        if (report == null) {
            return null;
        }
        HtmlReport html = isRawAllowed() && !isRawLogsDropped() ? new HtmlReport("raw/") : HtmlReport.withoutRawLinks();
        return html.fragment(report);
    }

    /**
     * Whether the current user may open the raw outputs: core's rule for a build's artifacts ({@code
     * Run#doArtifact}, {@code artifacts-index.jelly}), which these are (the job's stdout and stderr, the tools'
     * logs, command lines, agent paths): {@link Run#ARTIFACTS} where the controller enables it ({@code
     * -Dhudson.security.ArtifactsPermission=true}), else whoever may read the build. The report page needs only
     * Job/Read.
     */
    public boolean isRawAllowed() {
        return !Functions.isArtifactsPermissionEnabled() || owner.hasPermission(Run.ARTIFACTS);
    }

    private void checkRawPermission() {
        if (Functions.isArtifactsPermissionEnabled()) {
            owner.checkPermission(Run.ARTIFACTS);
        }
    }

    /**
     * Raw outputs (logs, XML, CSV, the standalone report.html with its report.css) served by core's
     * directory browser, with its strict CSP. Its owner is the build, as core does for file parameters:
     * the browser's {@code dir.jelly} includes the owner's {@code sidepanel.jelly}, which a build has and
     * this action has not (an HTTP 500 otherwise).
     */
    public DirectoryBrowserSupport doRaw() {
        checkRawPermission();
        return new DirectoryBrowserSupport(
                owner, new FilePath(folder.directory()), name + ": raw outputs", "folder.png", true);
    }
}
