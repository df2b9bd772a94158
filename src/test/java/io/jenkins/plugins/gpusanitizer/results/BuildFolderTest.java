package io.jenkins.plugins.gpusanitizer.results;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import hudson.model.Run;
import hudson.util.XStream2;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #16, 6: the build folder owns its paths, loads the report lazily and applies the raw-log
 * retention (opt-in; the report stays); finding a result by id walks a bounded history; builds of the
 * earlier layout still load.
 */
class BuildFolderTest {
    static final Path FAR = GpuSanitizeBuildActionTest.FAR;

    @TempDir
    Path dir;

    /** A build folder as the copy-back leaves it: the report and raw outputs, one folder per phase. */
    private BuildFolder folder(Path buildRoot) throws IOException {
        BuildFolder folder = BuildFolder.of(buildRoot.toFile(), "gpu-sanitizer");
        Path root = folder.directory().toPath();
        Files.createDirectories(root.resolve("sanitizer-memcheck"));
        Files.copy(FAR.resolve("report.json"), root.resolve("report.json"));
        Files.writeString(root.resolve("report.html"), "<html>");
        Files.writeString(root.resolve("run.json"), "{}");
        Files.writeString(root.resolve("sanitizer-memcheck/sanitizer.log"), "========= Invalid __global__ read");
        Files.writeString(root.resolve("stdout.log"), "step 1");
        return folder;
    }

    @Test
    void thePathsAreTheBuildFoldersAndTheReportLoadsOnce() throws IOException {
        BuildFolder folder = folder(dir);
        assertThat(folder.directory().toPath()).isEqualTo(dir.resolve("gpu-sanitizer/gpu-sanitizer"));
        assertThat(folder.reportJson().toPath()).isEqualTo(dir.resolve("gpu-sanitizer/gpu-sanitizer/report.json"));
        assertThat(folder.report().verdict()).isEqualTo(Verdict.FAIL);
        assertThat(folder.report()).as("cached").isSameAs(folder.report());
    }

    @Test
    void droppingRawLogsKeepsTheReportAndSaysSo() throws IOException {
        BuildFolder folder = folder(dir);
        assertThat(folder.rawLogsDropped()).isFalse();
        assertThat(folder.dropRawLogs("dropped by #9")).isTrue();
        Path root = folder.directory().toPath();
        try (var files = Files.list(root)) {
            assertThat(files.map(path -> path.getFileName().toString()))
                    .containsExactlyInAnyOrder("report.json", "report.html", "run.json", BuildFolder.RAW_LOGS_DROPPED);
        }
        assertThat(folder.rawLogsDropped()).isTrue();
        assertThat(BuildFolder.of(dir.toFile(), "gpu-sanitizer").report().verdict())
                .isEqualTo(Verdict.FAIL);
        assertThat(folder.dropRawLogs("again")).as("once").isFalse();
        BuildFolder empty = BuildFolder.of(dir.toFile(), "no-report");
        assertThat(empty.dropRawLogs("x")).as("no report, nothing dropped").isFalse();
    }

    private static Run<?, ?> build(int number, Path root, Run<?, ?> previous, String... ids) {
        Run<?, ?> build = mock(Run.class);
        when(build.getNumber()).thenReturn(number);
        when(build.getRootDir()).thenReturn(root.toFile());
        doReturn(previous).when(build).getPreviousCompletedBuild();
        doReturn(previous).when(build).getPreviousBuild();
        List<GpuSanitizeBuildAction> actions = new ArrayList<>();
        for (String id : ids) {
            GpuSanitizeBuildAction action = new GpuSanitizeBuildAction(
                    id,
                    "GPU Sanitizer",
                    AgentSummary.builder()
                            .verdict(Verdict.FAIL)
                            .defects(1)
                            .runDirectory("/r")
                            .build());
            action.onAttached(build);
            actions.add(action);
        }
        doReturn(actions).when(build).getActions(GpuSanitizeBuildAction.class);
        return build;
    }

    @Test
    void theRetentionKeepsTheNewestBuildsRawOutputsOnly() throws IOException {
        Run<?, ?> previous = null;
        List<Path> roots = new ArrayList<>();
        for (int number = 1; number <= 4; number++) {
            Path root = dir.resolve("builds/" + number);
            folder(root);
            roots.add(root);
            previous = build(number, root, previous, "gpu-sanitizer");
        }
        Run<?, ?> current = build(5, dir.resolve("builds/5"), previous, "gpu-sanitizer");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream logger = new PrintStream(log, true, StandardCharsets.UTF_8);
        GpuSanitizeReporter reporter = new GpuSanitizeReporter("gpu-sanitizer", "GPU Sanitizer", current, () -> logger);
        reporter.applyRetention(0);
        assertThat(roots)
                .allMatch(
                        root -> !BuildFolder.of(root.toFile(), "gpu-sanitizer").rawLogsDropped());
        reporter.applyRetention(3); // this build and #4, #3
        assertThat(roots)
                .extracting(
                        root -> BuildFolder.of(root.toFile(), "gpu-sanitizer").rawLogsDropped())
                .containsExactly(true, true, false, false);
        assertThat(log.toString(StandardCharsets.UTF_8))
                .contains("raw outputs of build #2 dropped (keepRawLogs: 3), its report kept")
                .contains("raw outputs of build #1 dropped");
        assertThat(BuildFolder.of(roots.get(0).toFile(), "gpu-sanitizer").report())
                .isNotNull();
        GpuSanitizeBuildAction newestEarlier =
                previous.getActions(GpuSanitizeBuildAction.class).get(0);
        assertThat(newestEarlier.isRawLogsDropped())
                .as("#4 keeps its raw outputs")
                .isFalse();
    }

    @Test
    void theHistoryWalkIsBoundedAndFindsByIdOnly() {
        AtomicInteger loaded = new AtomicInteger();
        Run<?, ?> previous = null;
        for (int number = 1; number <= 200; number++) {
            previous = build(number, dir, previous, number % 2 == 0 ? "memcheck" : "blocking");
        }
        Run<?, ?> newest = previous;
        ByIdResultSelector selector = new ByIdResultSelector("memcheck");
        assertThat(selector.select(newest))
                .get()
                .extracting(GpuSanitizeBuildAction::getId)
                .isEqualTo("memcheck");
        assertThat(new ByIdResultSelector("racecheck").select(newest)).isEmpty();
        assertThat(selector.select(null)).isEmpty();
        List<ByIdResultSelector.Found> found = selector.history(newest, 1000, build -> {
                    loaded.incrementAndGet();
                    return build.getPreviousBuild();
                })
                .toList();
        assertThat(found).hasSize(ByIdResultSelector.HISTORY_LIMIT / 2);
        assertThat(found.get(0).build().getNumber()).isEqualTo(200);
        assertThat(loaded.get()).as("builds stepped to").isLessThanOrEqualTo(ByIdResultSelector.HISTORY_LIMIT);
        assertThat(selector.history(newest, 10, ByIdResultSelector::previousBuild))
                .extracting(f -> f.build().getNumber())
                .containsExactly(200, 198, 196, 194, 192);
    }

    /** build.xml files of the earlier layout name the old classes: XStream reads them as the moved ones. */
    @Test
    void oldBuildXmlNamesStillLoad() {
        XStream2 xstream = mock(XStream2.class);
        CompatibilityAliases.addAliases(xstream);
        verify(xstream)
                .addCompatibilityAlias(
                        "io.jenkins.plugins.gpusanitizer.GpuSanitizeAction", GpuSanitizeBuildAction.class);
        verify(xstream)
                .addCompatibilityAlias(
                        "io.jenkins.plugins.gpusanitizer.GpuSanitizeJobAction", GpuSanitizeJobAction.class);
        assertThat(CompatibilityAliases.OLD_NAMES).hasSize(2);
        for (Class<?> moved : CompatibilityAliases.OLD_NAMES.values()) {
            assertThat(ClassLoader.getSystemResource(moved.getName().replace('.', '/') + ".class"))
                    .as("the lookup below finds classes")
                    .isNotNull();
        }
        for (String old : CompatibilityAliases.OLD_NAMES.keySet()) {
            assertThat(ClassLoader.getSystemResource(old.replace('.', '/') + ".class"))
                    .as(old + " is gone: only the alias reads it")
                    .isNull();
        }
    }
}
