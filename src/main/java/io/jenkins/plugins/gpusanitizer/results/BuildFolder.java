package io.jenkins.plugins.gpusanitizer.results;

import edu.umd.cs.findbugs.annotations.CheckForNull;
import hudson.model.Run;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import java.io.File;
import java.io.IOException;
import java.lang.ref.SoftReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The folder of one {@code gpuSanitize} in its build ({@code BUILD/gpu-sanitizer/ID/}): the copy of
 * the agent's run directory. It owns the file names, loads report.json lazily behind one lock (cached
 * softly: build.xml keeps only the small summary), and applies the raw-log retention: {@link
 * #dropRawLogs} deletes the raw outputs and keeps the report, leaving a note the build page shows.
 */
public final class BuildFolder {
    /** The folder under the build's root directory that holds one folder per step id. */
    public static final String ROOT = "gpu-sanitizer";

    /** Written by {@link #dropRawLogs}: its content says when and why, for the build page. */
    public static final String RAW_LOGS_DROPPED = "raw-logs-dropped.txt";

    /** What the retention keeps: the report (JSON, its HTML page and style) and the run's small description. */
    static final Set<String> KEPT = Set.of(
            RunLayout.REPORT_JSON, RunLayout.REPORT_HTML, HtmlReport.CSS_FILE, RunLayout.RUN_JSON, RAW_LOGS_DROPPED);

    private final File directory;
    private final Object lock = new Object();
    private SoftReference<Report> cachedReport;

    private BuildFolder(File directory) {
        this.directory = directory;
    }

    /** The folder of the step id {@code id} in a build whose root directory is {@code buildRoot}. */
    public static BuildFolder of(File buildRoot, String id) {
        return new BuildFolder(new File(new File(buildRoot, ROOT), id));
    }

    public static BuildFolder of(Run<?, ?> build, String id) {
        return of(build.getRootDir(), id);
    }

    public File directory() {
        return directory;
    }

    public File reportJson() {
        return new File(directory, RunLayout.REPORT_JSON);
    }

    public File reportHtml() {
        return new File(directory, RunLayout.REPORT_HTML);
    }

    public boolean hasReport() {
        return reportJson().isFile();
    }

    /** The full report, or null when its file is gone (a build folder cleaned by hand) or cut short (an abort at the wrong moment). */
    @CheckForNull
    public Report report() {
        synchronized (lock) {
            Report report = cachedReport == null ? null : cachedReport.get();
            if (report == null) {
                File json = reportJson();
                if (!json.isFile()) {
                    return null;
                }
                try {
                    report = ReportJson.read(json.toPath());
                } catch (RuntimeException e) { // a report cut short: no page, no 500
                    return null;
                }
                cachedReport = new SoftReference<>(report);
            }
            return report;
        }
    }

    /** Rewrites report.json and report.html (the comparison with a reference build) and forgets the cached copy. */
    public void replaceReport(Report report) throws IOException {
        synchronized (lock) {
            ReportJson.write(report, reportJson().toPath());
            new HtmlReport().writePage(report, reportHtml().toPath());
            cachedReport = new SoftReference<>(report);
        }
    }

    /** Whether the retention dropped this folder's raw logs. */
    public boolean rawLogsDropped() {
        return new File(directory, RAW_LOGS_DROPPED).isFile();
    }

    /**
     * Deletes the raw outputs (logs, XML, CSV, probe lines, one folder per phase) and keeps {@link
     * #KEPT}; a no-op for a folder without report.json (nothing is dropped that the page still needs)
     * or already dropped.
     *
     * @return whether anything was dropped
     */
    public boolean dropRawLogs(String why) throws IOException {
        synchronized (lock) {
            if (!hasReport() || rawLogsDropped()) {
                return false;
            }
            Path root = directory.toPath();
            List<Path> doomed;
            try (Stream<Path> walk = Files.walk(root)) {
                // below root, so every path has a parent and a name; the null-safe forms only say so
                doomed = walk.filter(path -> !path.equals(root))
                        .filter(path ->
                                !(root.equals(path.getParent()) && KEPT.contains(String.valueOf(path.getFileName()))))
                        .sorted(Comparator.reverseOrder()) // children before their folders
                        .toList();
            }
            for (Path path : doomed) {
                Files.deleteIfExists(path);
            }
            Files.writeString(root.resolve(RAW_LOGS_DROPPED), why + "\n", StandardCharsets.UTF_8);
            return true;
        }
    }
}
