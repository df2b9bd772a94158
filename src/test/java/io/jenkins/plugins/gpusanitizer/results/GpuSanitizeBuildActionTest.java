package io.jenkins.plugins.gpusanitizer.results;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import hudson.model.DirectoryBrowserSupport;
import hudson.model.Run;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;
import org.springframework.security.access.AccessDeniedException;

/**
 * The build action over a real report written by `gpu-sanitize run` on the H200 (records/h200-2026-12-02.zip.xz). The
 * build is a Mockito mock: core's {@code Run} has no constructor a unit test can call (issue #12, 9).
 */
class GpuSanitizeBuildActionTest {
    static final Path FAR = Records.unpacked("h200-2026-12-02/far");

    static Run<?, ?> build(Path root) {
        Run<?, ?> run = mock(Run.class);
        when(run.getRootDir()).thenReturn(root.toFile());
        return run;
    }

    @Test
    void smallFieldsFromTheAgentAndTheFullReportFromTheBuildFolder(@TempDir Path build) throws IOException {
        var report = ReportJson.read(FAR.resolve("report.json"));
        AgentSummary s = Summaries.of(report, "/tmp/h200-runs/far");
        assertThat(s.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(s.defects()).isEqualTo(1);
        assertThat(s.errorsTotal()).isEqualTo(2050L);
        assertThat(s.faultAt()).isEqualTo("lstm_job.py:43 (fused_scale)");
        assertThat(s.reportedAt()).isEqualTo("lstm_job.py:88 (main)");
        assertThat(s.aborted()).isFalse();

        GpuSanitizeBuildAction a = new GpuSanitizeBuildAction("gpu-sanitizer", "GPU Sanitizer", s);
        a.onAttached(build(build));
        assertThat(a.getUrlName()).isEqualTo("gpu-sanitizer-gpu-sanitizer");
        assertThat(a.getWhereLine())
                .isEqualTo("reported at lstm_job.py:88 (main), really at lstm_job.py:43 (fused_scale)");
        assertThat(a.getReport()).as("no report file yet").isNull();

        Path dir = BuildFolder.of(build.toFile(), "gpu-sanitizer").directory().toPath();
        Files.createDirectories(dir);
        Files.copy(FAR.resolve("report.json"), dir.resolve("report.json"));
        assertThat(a.getReport().verdict()).isEqualTo(Verdict.FAIL);
        assertThat(a.getReportHtml()).contains("fused_scale", "lstm_job.py").doesNotContain("<script");
        assertThat(a.getEvidence()).as("no probe in that run").isEmpty();
    }

    @Test
    void theProbesEvidenceReachesTheBuildPage() throws Exception {
        var probe = new java.util.LinkedHashMap<String, Path>();
        probe.put(
                "blocking",
                Path.of(getClass()
                        .getResource("/probe/fixtures/embedding-blocking.jsonl")
                        .toURI()));
        probe.put(
                "regression",
                Path.of(getClass()
                        .getResource("/probe/fixtures/leak-regression.jsonl")
                        .toURI()));
        var p = io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy.defaults();
        var report = new io.jenkins.plugins.gpusanitizer.engine.report.ReportMapper(p.frameClassifier())
                .toReport(new io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer()
                        .analyze(new io.jenkins.plugins.gpusanitizer.engine.analysis.AnalysisInput(
                                java.util.List.of(),
                                java.util.Map.of(),
                                // the curve grows: the allocation site that grew is named (issue #25, 1)
                                io.jenkins.plugins.gpusanitizer.engine.Corpus.file("curves/leak.nvidia-smi.csv"),
                                null,
                                null,
                                p,
                                true,
                                probe)));
        AgentSummary s = Summaries.of(report, "/tmp/run");
        GpuSanitizeBuildAction a = new GpuSanitizeBuildAction("gpu-sanitizer", "GPU Sanitizer", s);
        assertThat(a.getEvidence())
                .containsExactly(
                        "failing operator: aten::embedding at embedding_oov.py:24: index max 5000, weight has 5000 rows",
                        "GPU memory grows because tensors allocated at logits_leak.py:23 (forward) pile up: "
                                + "1,180 live blocks, 23.0 MiB at the end against 3.5 MiB after warm-up (4.3 s).");
        // a build recorded before the probe existed (no evidence field in build.xml)
        AgentSummary old = AgentSummary.builder()
                .verdict(Verdict.PASS)
                .runDirectory("/tmp/run")
                .defectsByTool(null)
                .evidence(null)
                .build();
        assertThat(new GpuSanitizeBuildAction("x", "X", old).getEvidence()).isEmpty();
    }

    /**
     * Issue #12, 2: core's directory browser ({@code dir.jelly}) includes {@code sidepanel.jelly} of its
     * owner; the action has none (HTTP 500), the build has one, as for core's file parameters.
     */
    @Test
    void rawOutputsAreBrowsedUnderTheBuild(@TempDir Path build) {
        Run<?, ?> run = build(build);
        GpuSanitizeBuildAction a = new GpuSanitizeBuildAction(
                "memcheck", "GPU Sanitizer", Summaries.of(ReportJson.read(FAR.resolve("report.json")), "/r"));
        a.onAttached(run);
        DirectoryBrowserSupport raw = a.doRaw();
        assertThat(raw.owner).isSameAs(run);
        assertThat(raw.title).isEqualTo("GPU Sanitizer: raw outputs");
    }

    /**
     * Issue #41, 1: the raw outputs (the job's stdout and stderr, the tools' logs, command lines, agent paths)
     * follow core's rule for a build's artifacts ({@code Run#doArtifact}): {@code Run.ARTIFACTS} where the
     * controller enables it, else nothing more than reading the build. The report page is not affected.
     */
    @Test
    @ResourceLock(Resources.SYSTEM_PROPERTIES)
    void rawOutputsNeedTheArtifactsPermissionWhereTheControllerEnablesIt(@TempDir Path build) {
        Run<?, ?> run = build(build);
        GpuSanitizeBuildAction a = new GpuSanitizeBuildAction(
                "memcheck", "GPU Sanitizer", Summaries.of(ReportJson.read(FAR.resolve("report.json")), "/r"));
        a.onAttached(run);
        doThrow(new AccessDeniedException("reader is missing the Run/Artifacts permission"))
                .when(run)
                .checkPermission(Run.ARTIFACTS);
        when(run.hasPermission(Run.ARTIFACTS)).thenReturn(false);
        String enabled = System.getProperty(ARTIFACTS_PERMISSION);
        try {
            System.clearProperty(ARTIFACTS_PERMISSION);
            assertThat(a.doRaw().owner)
                    .as("core's default: whoever reads the build")
                    .isSameAs(run);
            assertThat(a.isRawAllowed()).isTrue();
            verify(run, never()).checkPermission(Run.ARTIFACTS);

            System.setProperty(ARTIFACTS_PERMISSION, "true");
            assertThatThrownBy(a::doRaw)
                    .isInstanceOf(AccessDeniedException.class)
                    .hasMessageContaining("Artifacts");
            verify(run).checkPermission(Run.ARTIFACTS);
            assertThat(a.isRawAllowed()).isFalse();
        } finally {
            if (enabled == null) {
                System.clearProperty(ARTIFACTS_PERMISSION);
            } else {
                System.setProperty(ARTIFACTS_PERMISSION, enabled);
            }
        }
    }

    /**
     * Issue #46: the report page links the raw outputs only for a reader who may open them, as core's build page
     * lists artifacts ({@code Run/artifactList.jelly}: {@code !h.artifactsPermissionEnabled or
     * it.hasPermission(it.ARTIFACTS)}). With the switch on, a reader without Run/Artifacts gets the report and no
     * {@code raw/} link (each one answered 403); a reader with it gets links, each to a file of the build folder. With
     * the switch off, whoever reads the build gets them; once the retention dropped the raw outputs, nobody does.
     */
    @Test
    @ResourceLock(Resources.SYSTEM_PROPERTIES)
    void theReportPageLinksRawOutputsOnlyForAReaderWhoMayOpenThem(@TempDir Path build) throws IOException {
        Path folder = BuildFolder.of(build.toFile(), "memcheck").directory().toPath();
        copyTree(FAR, folder);
        AgentSummary summary = Summaries.of(ReportJson.read(FAR.resolve("report.json")), "/r");
        Run<?, ?> asReader = build(build);
        when(asReader.hasPermission(Run.ARTIFACTS)).thenReturn(false);
        Run<?, ?> asArtifacts = build(build);
        when(asArtifacts.hasPermission(Run.ARTIFACTS)).thenReturn(true);
        GpuSanitizeBuildAction reader = new GpuSanitizeBuildAction("memcheck", "GPU Sanitizer", summary);
        reader.onAttached(asReader);
        GpuSanitizeBuildAction artifacts = new GpuSanitizeBuildAction("memcheck", "GPU Sanitizer", summary);
        artifacts.onAttached(asArtifacts);
        String enabled = System.getProperty(ARTIFACTS_PERMISSION);
        try {
            System.setProperty(ARTIFACTS_PERMISSION, "true");
            assertThat(reader.getReportHtml())
                    .contains("FAIL", "fused_scale")
                    .doesNotContain("href=\"raw/")
                    .doesNotContain("stdout.log");
            List<String> links = rawLinks(artifacts.getReportHtml());
            assertThat(links).isNotEmpty().contains("sanitizer-memcheck/stdout.log");
            for (String link : links) {
                assertThat(folder.resolve(link)).as("raw/" + link).isRegularFile();
            }

            System.clearProperty(ARTIFACTS_PERMISSION);
            assertThat(rawLinks(reader.getReportHtml()))
                    .as("core's default: whoever reads the build")
                    .isEqualTo(links);

            assertThat(reader.getFolder().dropRawLogs("keepRawLogs: 0")).isTrue();
            assertThat(artifacts.getReportHtml()).contains("FAIL").doesNotContain("href=\"raw/");
        } finally {
            if (enabled == null) {
                System.clearProperty(ARTIFACTS_PERMISSION);
            } else {
                System.setProperty(ARTIFACTS_PERMISSION, enabled);
            }
        }
    }

    private static List<String> rawLinks(String html) {
        return Pattern.compile("href=\"raw/([^\"]+)\"")
                .matcher(html)
                .results()
                .map(m -> URLDecoder.decode(m.group(1), StandardCharsets.UTF_8))
                .toList();
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path source : walk.toList()) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target);
                }
            }
        }
    }

    /** jenkins-core's switch for Run.ARTIFACTS ({@code Functions.isArtifactsPermissionEnabled}). */
    static final String ARTIFACTS_PERMISSION = "hudson.security.ArtifactsPermission";

    @Test
    void aReportCutShortGivesNoPageRatherThanAnError(@TempDir Path build) throws IOException {
        GpuSanitizeBuildAction a = new GpuSanitizeBuildAction(
                "gpu-sanitizer", "GPU Sanitizer", Summaries.of(ReportJson.read(FAR.resolve("report.json")), "/r"));
        a.onAttached(build(build));
        Path dir = BuildFolder.of(build.toFile(), "gpu-sanitizer").directory().toPath();
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("report.json"), "{\"schema\": 1, \"verdict\": \"FA");
        assertThat(a.getReport()).isNull();
        assertThat(a.getReportHtml()).isNull();
    }
}
