package io.jenkins.plugins.gpusanitizer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The check over reports of recorded H200 runs (records/h200-2026-12-0[23].zip.xz). Those runs were made in
 * /work/main (their phases ran {@code python3 examples/triton_job.py} there, and the frames name
 * /work/main/examples/triton_job.py), before run.json kept the working directory: the tests give it back.
 */
class CheckRunTest {
    static final Path ROOT = Path.of(System.getProperty("gs.projectRoot", "."));
    static final String WORKSPACE = "/work/main";

    /** The report as a run made in {@code workspace} records it now. */
    static Report madeIn(Report r, String workspace) {
        ExecutionJson e = r.execution();
        return r.copy()
                .execution(new ExecutionJson(
                        e.environment(),
                        e.phases(),
                        e.runDirectory(),
                        e.referenceFailureSeconds(),
                        e.referenceSource(),
                        e.regressionTargetSeconds(),
                        e.throughput(),
                        workspace))
                .build();
    }

    /** The report with its defects replaced. */
    static Report withDefects(Report r, List<DefectJson> defects) {
        return r.copy().defects(defects).build();
    }

    @Test
    void failingRunAnnotatesTheUserLineRelativeToTheWorkspace() {
        Report triton = Corpus.analyzeRun("triton");
        assertThat(triton.defects().get(0).hostLocation().file()).isEqualTo("/work/main/examples/triton_job.py");
        CheckRun c = CheckRun.of(madeIn(triton, WORKSPACE), "GPU Sanitizer");
        assertThat(c.name()).isEqualTo("GPU Sanitizer");
        assertThat(c.conclusion()).isEqualTo("failure");
        assertThat(c.title()).isEqualTo("FAIL: 1 defect(s)");
        assertThat(c.annotations()).singleElement().satisfies(a -> {
            assertThat(a.path()).isEqualTo("examples/triton_job.py");
            assertThat(ROOT.resolve(a.path())).as("a path of this repository").isRegularFile();
            assertThat(a.line()).isEqualTo(26);
            assertThat(a.level()).isEqualTo("failure");
            assertThat(a.message())
                    .contains("device line examples/triton_job.py:20")
                    .doesNotContain("/work/main");
        });
        assertThat(c.summary())
                .startsWith("**FAIL**")
                .contains("scale\\_kernel")
                .doesNotContain("<")
                .doesNotContain("without annotation");
        // a workspace given with a trailing separator is the same workspace
        assertThat(CheckRun.of(madeIn(triton, "/work/main/"), "x").annotations())
                .extracting(CheckRun.Annotation::path)
                .containsExactly("examples/triton_job.py");
    }

    @Test
    void aRunThatDoesNotSayItsWorkspaceGetsNoAbsolutePathAnnotation() {
        Report triton = Corpus.analyzeRun("triton");
        assertThat(triton.execution().workDirectory())
                .as("recorded before it was kept")
                .isNull();
        CheckRun c = CheckRun.of(triton, "GPU Sanitizer");
        assertThat(c.annotations()).isEmpty();
        assertThat(c.summary())
                .contains("Not annotated (the run does not say its working directory)")
                .contains("memcheck: out-of-bounds in scale\\_kernel at /work/main/examples/triton\\_job.py:26");
        // another workspace than the run's: the file is not inside it
        assertThat(CheckRun.of(madeIn(triton, "/home/jenkins/workspace/job"), "x")
                        .annotations())
                .isEmpty();
    }

    @Test
    void aFaultInGeneratedCodeOutsideTheWorkspaceIsNamedInTheSummaryNotAnnotated() throws IOException {
        Report compiled =
                madeIn(ReportJson.read(Records.unpacked("h200-2026-12-03/compile-oob/report.json")), WORKSPACE);
        DefectJson assertion = compiled.defects().stream()
                .filter(d -> !d.suppressed())
                .findFirst()
                .orElseThrow();
        assertThat(assertion.hostLocation().file()).startsWith("/tmp/torchinductor_root/");
        CheckRun c = CheckRun.of(compiled, "GPU Sanitizer");
        assertThat(c.conclusion()).isEqualTo("failure");
        assertThat(c.annotations()).isEmpty();
        assertThat(c.summary())
                .contains("Not annotated, no frame in the workspace:")
                .contains(
                        "at /tmp/torchinductor\\_root/yg/cygem6uwfrn4z7p4bjdst76fr2jiipdh4z3kqj7mxuzrycjrynds.py:185");
    }

    @Test
    void aFaultInSitePackagesIsAnnotatedAtTheFirstUserFrameInTheWorkspace() {
        Report triton = madeIn(Corpus.analyzeRun("triton"), WORKSPACE);
        DefectJson real = triton.defects().get(0);
        // the recorded stack's first frame: Triton's launcher in site-packages, then the job's own line
        FrameJson library = real.hostStack().stream()
                .filter(f -> f.file() != null)
                .findFirst()
                .orElseThrow();
        assertThat(library.file()).contains("/site-packages/triton/");
        DefectJson inLibrary = new DefectJson(
                real.id(),
                real.tool(),
                real.kind(),
                real.severity(),
                real.message(),
                real.kernel(),
                real.records(),
                real.suppressed(),
                real.suppressedBy(),
                real.inVendorLibrary(),
                real.vendorModule(),
                real.launcher(),
                real.deviceLocation(),
                new LocationJson(library.file(), library.line(), library.function(), null),
                real.examples(),
                real.detail(),
                real.hostStack(),
                real.status());
        CheckRun c = CheckRun.of(withDefects(triton, List.of(inLibrary)), "GPU Sanitizer");
        assertThat(c.annotations()).singleElement().satisfies(a -> {
            assertThat(a.path()).isEqualTo("examples/triton_job.py");
            assertThat(a.line()).isEqualTo(26);
            assertThat(a.message())
                    .startsWith("The fault is at " + library.file() + ":" + library.line()
                            + ", outside the workspace; this is the nearest frame of the job's own code.");
        });
        // the same stack, the workspace elsewhere: no frame in it, no annotation
        assertThat(CheckRun.of(withDefects(madeIn(triton, "/srv/ci"), List.of(inLibrary)), "x")
                        .annotations())
                .isEmpty();
    }

    @Test
    void everyRecordedRunsAnnotationsNameFilesOfThisRepository() throws IOException {
        List<Path> reports = new ArrayList<>();
        for (String capture : List.of("h200-2026-12-02", "h200-2026-12-03")) {
            try (Stream<Path> runs = Files.list(Records.unpacked(capture))) {
                runs.map(run -> run.resolve("report.json"))
                        .filter(Files::isRegularFile)
                        .sorted()
                        .forEach(reports::add);
            }
        }
        assertThat(reports).hasSizeGreaterThan(20);
        List<CheckRun.Annotation> all = new ArrayList<>();
        for (Path file : reports) {
            Report r = ReportJson.read(file);
            if (r.execution() == null) {
                continue;
            }
            all.addAll(CheckRun.of(madeIn(r, WORKSPACE), "x").annotations());
        }
        assertThat(all).hasSizeGreaterThan(10);
        assertThat(all).allSatisfy(a -> {
            assertThat(a.path()).doesNotStartWith("/").doesNotContain("\\").doesNotContain("..");
            assertThat(ROOT.resolve(a.path())).isRegularFile();
        });
    }

    @Test
    void pathsAreRelativeOnlyBelowTheWorkspace() {
        assertThat(CheckRun.relativize("/work/main", "/work/main/examples/a.py"))
                .isEqualTo("examples/a.py");
        assertThat(CheckRun.relativize("/work/main", "/work/main/./examples/../examples/a.py"))
                .isEqualTo("examples/a.py");
        assertThat(CheckRun.relativize("/work/main", "/work/mainline/a.py")).isNull();
        assertThat(CheckRun.relativize("/work/main", "/work/main/../other/a.py"))
                .isNull();
        assertThat(CheckRun.relativize("/work/main", "/work/main")).isNull();
        assertThat(CheckRun.relativize(
                        "/work/main", "/work/main/.venv/lib/python3.12/site-packages/torch/nn/functional.py"))
                .isNull();
        assertThat(CheckRun.relativize("/work/main", "/usr/lib/python3/dist-packages/numpy/core.py"))
                .isNull();
        // relative source paths of native debug info (cupy's, in the far run) are not the workspace's
        assertThat(CheckRun.relativize("/work/main", "cupy/cuda/function.cpp")).isNull();
        assertThat(CheckRun.relativize("/work/main", "<string>")).isNull();
        assertThat(CheckRun.relativize(null, "/work/main/examples/a.py")).isNull();
        assertThat(CheckRun.relativize("C:\\jenkins\\workspace\\job", "c:\\Jenkins\\workspace\\job\\src\\train.py"))
                .isEqualTo("src/train.py");
        assertThat(CheckRun.relativize("C:\\jenkins\\workspace\\job", "D:\\jenkins\\workspace\\job\\a.py"))
                .isNull();
    }

    @Test
    void withAReferenceOnlyNewDefectsAreAnnotated() {
        Report far = madeIn(Corpus.analyzeRun("far"), WORKSPACE);
        CheckRun same = CheckRun.of(ReferenceComparison.apply(far, far, "main #1", true), "GPU Sanitizer");
        assertThat(same.annotations()).isEmpty();
        assertThat(same.title())
                .isEqualTo(ReferenceComparison.apply(far, far, "main #1", true).verdict()
                        + ": 1 defect(s), 0 new, 0 fixed");
        assertThat(CheckRun.of(far, "GPU Sanitizer").annotations())
                .extracting(CheckRun.Annotation::path)
                .containsExactly("examples/lstm_job.py");
        CheckRun pass = CheckRun.of(Corpus.analyzeRun("clean"), "GPU Sanitizer");
        assertThat(pass.conclusion()).isEqualTo("success");
        assertThat(CheckRun.of(Corpus.analyzeRun("leak"), "x").conclusion()).isEqualTo("neutral");
    }
}
