package io.jenkins.plugins.gpusanitizer.results;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import hudson.model.Run;
import io.jenkins.plugins.gpusanitizer.engine.report.Html;
import io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's picture of the build page section (docs/screenshots/jenkins-build-page.png with
 * -Dgs.screenshotDir=docs/screenshots): the summary row summary.jelly writes (its texts from
 * summary.properties, its values from the action over the real H200 "far" report) above the report
 * page's content (the engine's fragment, report.css), rendered in headless Chromium. No controller
 * runs here: Jenkins' own page chrome and stylesheet are not in the picture.
 */
class BuildPageScreenshotTest {
    static final Path ROOT = Path.of(System.getProperty("gs.projectRoot", "."));

    @TempDir
    Path dir;

    private static String summary(GpuSanitizeBuildAction a) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(
                ROOT.resolve(
                        "src/main/resources/io/jenkins/plugins/gpusanitizer/results/GpuSanitizeBuildAction/summary.properties"))) {
            p.load(in);
        }
        StringBuilder b = new StringBuilder();
        b.append("<b>")
                .append(Html.esc(a.getDisplayName() + ": " + a.getVerdict()))
                .append("</b> — ")
                .append(Html.esc(MessageFormat.format(p.getProperty("defects"), a.getDefects(), a.getSuppressed())));
        if (a.getErrorsTotal() != null) {
            b.append(" — ").append(Html.esc(MessageFormat.format(p.getProperty("errors"), a.getErrorsTotal())));
        }
        if (a.getWhereLine() != null) {
            b.append("<br>").append(Html.esc(a.getWhereLine()));
        }
        if (a.getFirstReason() != null && !a.getVerdict().equals("PASS")) {
            b.append("<br><span class=\"gs-first-reason\">")
                    .append(Html.esc(a.getFirstReason()))
                    .append("</span>");
        }
        return b.toString();
    }

    @Test
    void theBuildPageSection() throws Exception {
        Path chromium = Path.of("/usr/bin/chromium");
        if (!Files.isExecutable(chromium)) {
            if ("1".equals(System.getenv("GS_REQUIRE_BROWSER"))) {
                throw new AssertionError("Chromium not found (apt-get install chromium)");
            }
            Assumptions.abort("Chromium not installed");
        }
        Path far = Records.unpacked("h200-2026-12-02/far/report.json");
        Path build = dir.resolve("build");
        Path results =
                BuildFolder.of(build.toFile(), "gpu-sanitizer").directory().toPath();
        Files.createDirectories(results);
        Files.copy(far, results.resolve("report.json"));
        Run<?, ?> run = mock(Run.class);
        when(run.getRootDir()).thenReturn(build.toFile());
        GpuSanitizeBuildAction a =
                new GpuSanitizeBuildAction("gpu-sanitizer", "GPU Sanitizer", Summaries.of(ReportJson.read(far), "/r"));
        a.onAttached(run);
        String page = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'self'\">"
                + "<link rel=\"stylesheet\" href=\"report.css\"><link rel=\"stylesheet\" href=\"page.css\"></head><body>"
                + "<h2>Build #12 (train-lstm)</h2><table class=\"app-summary\"><tr><td><span class=\"icon\">GS</span></td><td>"
                + summary(a) + "</td></tr></table>"
                + "<h2>GPU Sanitizer</h2><p><a href=\"raw/\">Raw outputs</a></p>" + a.getReportHtml()
                + "</body></html>";
        Files.writeString(dir.resolve("page.html"), page, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(HtmlReport.CSS_FILE), HtmlReport.css(), StandardCharsets.UTF_8);
        Files.writeString(
                dir.resolve("page.css"),
                "body { font-family: system-ui, sans-serif; margin: 16px; }"
                        + " .app-summary td { padding: 4px 8px; vertical-align: top; font-size: 14px; }"
                        + " .app-summary .icon { display: inline-block; font-size: 11px; font-weight: 700; color: #fff;"
                        + " background: #c5221f; border-radius: 4px; padding: 4px; } h2 { font-size: 18px; }",
                StandardCharsets.UTF_8);
        Path shots = Path.of(System.getProperty("gs.screenshotDir", "target/screenshots"));
        Files.createDirectories(shots);
        Path png = shots.toAbsolutePath().resolve("jenkins-build-page.png");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(List.of(
                        chromium.toString(),
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--no-first-run",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--user-data-dir=" + dir.resolve("profile"),
                        "--enable-logging=stderr",
                        "--v=0",
                        "--window-size=1280,1000",
                        "--screenshot=" + png,
                        dir.resolve("page.html").toUri().toString()))
                .redirectErrorStream(true)
                .redirectOutput(err.toFile())
                .start();
        // a bound, not a measure: a loaded 2-core machine took over 90 s for a page
        boolean finished = p.waitFor(300, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly();
        }
        assertThat(finished).as("chromium finished").isTrue();
        List<String> console = new ArrayList<>();
        for (String line : Files.readAllLines(err, StandardCharsets.UTF_8)) {
            if (line.contains(":CONSOLE") || line.contains("Refused to")) {
                console.add(line);
            }
        }
        assertThat(console).isEmpty();
        assertThat(png).isNotEmptyFile();
        assertThat(summary(a)).contains("GPU Sanitizer: FAIL", "1 defect(s)", "really at lstm_job.py:43");
    }
}
