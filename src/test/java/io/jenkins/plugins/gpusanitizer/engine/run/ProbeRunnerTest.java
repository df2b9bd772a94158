package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.analysis.Analysis;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.report.AllocationSitesJson;
import io.jenkins.plugins.gpusanitizer.engine.report.OperatorEvidenceJson;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.engine.report.TensorArgJson;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The runner with the in-process probe: installed into the run directory, on PYTHONPATH in the
 * blocking and regression phases only, its output (replayed by the fake python3 from fixtures shaped
 * like the H200 jobs) read into the diagnosis, the memory section and the HTML; off with --no-probe
 * or without torch; never a change of verdict.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class ProbeRunnerTest {
    private static final String EMBEDDING_BLOCKING = String.join(
            "\n",
            "Traceback (most recent call last):",
            "  File \"/tmp/h200-runs/repo/examples/probe/embedding_oov.py\", line 51, in <module>",
            "    main()",
            "  File \"/tmp/h200-runs/repo/examples/probe/embedding_oov.py\", line 42, in main",
            "    loss = F.cross_entropy(model(tokens), labels)",
            "  File \"/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/modules/module.py\", line 1775, in _wrapped_call_impl",
            "    return self._call_impl(*args, **kwargs)",
            "  File \"/tmp/h200-runs/repo/examples/probe/embedding_oov.py\", line 24, in forward",
            "    h = self.emb(tokens)",
            "  File \"/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/functional.py\", line 2567, in embedding",
            "    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)",
            "RuntimeError: CUDA error: device-side assert triggered",
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
            "");

    @TempDir
    Path dir;

    private final List<String> console = new ArrayList<>();

    private RunSpec spec(String out) {
        return new RunSpec()
                .probeMemory(true)
                .command(List.of("python3", "examples/probe/embedding_oov.py"))
                .outDir(dir.resolve(out).toString())
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(5)
                .progressIntervalSeconds(1)
                .samplerIntervalMs(100);
    }

    private FakeGpu embeddingJob(String name) throws IOException {
        FakeGpu gpu = new FakeGpu(dir.resolve(name)).clean();
        return gpu.put("blocking.stderr", EMBEDDING_BLOCKING)
                .put("blocking.exit", "1")
                .put("blocking.sleep", "0.3")
                .put("async.stderr", EMBEDDING_BLOCKING)
                .put("async.exit", "1")
                .put("async.sleep", "0.3")
                .put("blocking.probe.jsonl", fixture("embedding-blocking.jsonl"));
    }

    private static String fixture(String name) throws IOException {
        try (var in = ProbeRunnerTest.class.getResourceAsStream("/probe/fixtures/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void failingOperatorFromTheBlockingPhaseReachesTheDiagnosis() throws IOException {
        FakeGpu gpu = embeddingJob("gpu");
        Map<String, String> env = new java.util.LinkedHashMap<>(gpu.env());
        env.put("PYTHONPATH", "/job/lib"); // the job's own path stays, after the probe
        // a given duration for the regression run, which its job (exit 1 after 0.3 s) ends well before: its target
        // would be twice the blocking run's failure time, and on a loaded machine (issue #46's full run, load 35) the
        // run without the probe was cut there (143) where this one ended by itself (1)
        Report r = new Runner(spec("run").regressionSeconds(600.0), env, console::add).run();
        Path run = dir.resolve("run");

        for (String f : ProbeInstaller.FILES) {
            assertThat(run.resolve("probe").resolve(f)).isRegularFile();
        }
        assertThat(gpu.logged("env-blocking.txt"))
                .contains("PYTHONPATH=" + run.resolve("probe") + ":/job/lib\n")
                .contains("GPU_SANITIZE_PROBE_MODE=blocking\n")
                .contains("GPU_SANITIZE_PROBE_OUT=" + run.resolve("blocking/probe.jsonl") + "\n");
        assertThat(gpu.logged("env-async.txt"))
                .contains("GPU_SANITIZE_PROBE_MODE=regression\n")
                .contains("GPU_SANITIZE_PROBE_OUT=" + run.resolve("regression/probe.jsonl") + "\n");
        // under the sanitizer only torch.compile's mode is the probe's (docs/probe.md)
        assertThat(gpu.logged("env-memcheck-app.txt"))
                .contains("PYTHONPATH=" + run.resolve("probe") + ":/job/lib\n")
                .contains("GPU_SANITIZE_PROBE_MODE=sanitizer\n")
                .contains("GPU_SANITIZE_PROBE_OUT=" + run.resolve("sanitizer-memcheck/probe.jsonl") + "\n")
                .as("memcheck's --padding, which the allocation record's sizes count")
                .contains("GPU_SANITIZE_PROBE_PADDING=4096\n");

        OperatorEvidenceJson o = r.diagnosis().operatorEvidence().get(0);
        assertThat(o.summary())
                .isEqualTo("aten::embedding at embedding_oov.py:24: index max 5000, weight has 5000 rows");
        assertThat(o.operator()).isEqualTo("aten::embedding");
        assertThat(o.index().max()).isEqualTo(5000);
        assertThat(o.index().size()).isEqualTo(5000);
        assertThat(o.args()).extracting(TensorArgJson::name).containsExactly("input", "weight");
        assertThat(r.diagnosis().faultAt().line()).isEqualTo(24); // the blocking traceback, not the probe's frame
        assertThat(r.diagnosis().summary())
                .endsWith(
                        "Failing operator: aten::embedding at embedding_oov.py:24: index max 5000, weight has 5000 rows.");
        assertThat(r.probe().phases())
                .extracting(p -> p.phase() + " " + p.status())
                .containsExactly("blocking recorded", "regression no-output");
        assertThat(r.execution().phases().stream()
                        .filter(p -> p.name().equals("blocking"))
                        .findFirst()
                        .orElseThrow()
                        .environment())
                .containsEntry("GPU_SANITIZE_PROBE_MODE", "blocking");

        Report back = ReportJson.read(run.resolve("report.json"));
        assertThat(back.diagnosis().operatorEvidence()).isEqualTo(r.diagnosis().operatorEvidence());
        assertThat(back.probe()).isEqualTo(r.probe());
        assertThat(Files.readString(run.resolve("report.html")))
                .contains("class=\"gs-evidence\"")
                .contains("aten::embedding at embedding_oov.py:24: index max 5000, weight has 5000 rows")
                .contains("In-process probe");

        // analyze --run-dir reads the same evidence from the run directory
        RunDirectory rd = new RunDirectory(run);
        Analysis again = new Analyzer().analyze(rd.analysisInput(rd.readRecord(), new RunSpec().policy(), true));
        assertThat(again.probe().operators()).hasSize(1);
        assertThat(again.probe().phases()).hasSize(2);

        // the same job without the probe: the same verdict and exit codes, no probe anywhere
        FakeGpu plain = embeddingJob("gpu-off");
        Report off = new Runner(spec("run-off").probe(false).regressionSeconds(600.0), plain.env(), console::add).run();
        assertThat(off.verdict()).isEqualTo(r.verdict());
        assertThat(off.execution().phases())
                .extracting(PhaseJson::exitCode)
                .isEqualTo(
                        r.execution().phases().stream().map(PhaseJson::exitCode).toList());
        assertThat(off.probe()).isNull();
        assertThat(off.diagnosis().operatorEvidence()).isEmpty();
        assertThat(off.reasons())
                .anyMatch(x -> x.code().equals("probe") && x.message().contains("--no-probe"));
        assertThat(plain.logged("env-blocking.txt"))
                .doesNotContain("GPU_SANITIZE_PROBE")
                .doesNotContain("PYTHONPATH");
        assertThat(dir.resolve("run-off/probe")).doesNotExist();
    }

    /**
     * The reference report is read before the phases and again after them: one that became unusable in
     * between (another build rewrote it) is a warning, and the report keeps everything else it had.
     */
    @Test
    void aReferenceReportUnusableAfterThePhasesKeepsTheProbeSection() throws Exception {
        FakeGpu gpu = embeddingJob("gpu").put("blocking.gate", "");
        Path reference = Files.writeString(
                dir.resolve("reference.json"),
                "{\"schemaVersion\": 1, \"verdict\": \"PASS\", \"reasons\": [], \"defects\": []}");
        RunSpec spec = spec("run").phases(List.of(Phase.BLOCKING)).compareWith(reference.toString());
        CompletableFuture<Report> run =
                CompletableFuture.supplyAsync(() -> new Runner(spec, gpu.env(), console::add).run());
        assertThat(FileWait.all(Duration.ofSeconds(60), gpu.log.resolve("gated-blocking.txt")))
                .as("the blocking phase started")
                .isTrue();
        Files.writeString(reference, "{ not a report");
        gpu.put("blocking.open", "");
        Report r = run.get(120, TimeUnit.SECONDS);

        assertThat(r.reasons())
                .anyMatch(x -> x.code().equals("reference") && x.message().contains("unusable, not compared"));
        assertThat(r.reference()).isNull();
        assertThat(r.probe()).isNotNull();
        assertThat(r.probe().phases())
                .extracting(p -> p.phase() + " " + p.status())
                .contains("blocking recorded");
        Report back = ReportJson.read(dir.resolve("run").resolve("report.json"));
        assertThat(back.probe()).isEqualTo(r.probe());
        assertThat(back.diagnosis().operatorEvidence()).isNotEmpty();
    }

    @Test
    void outOfMemorySitesAndSnapshotLieBesideTheMemoryCurve() throws IOException {
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu"))
                .copy("oom/async.stderr", "async.stderr")
                .put("async.exit", "1")
                .put("async.sleep", "0.5")
                .copy("curves/leak.nvidia-smi.csv", "curve.csv")
                .put("async.probe.jsonl", fixture("oom-regression.jsonl"))
                .put("async.probe-snapshot", "a pickle")
                .put("async.probe-snapshot-name", "probe-oom-snapshot-7100.pickle");
        Report r = new Runner(spec("run").phases(List.of(Phase.REGRESSION)), gpu.env(), console::add).run();
        Path run = dir.resolve("run");
        assertThat(r.memory()).isNotEmpty();
        AllocationSitesJson a = r.memory().get(0).allocationSites();
        assertThat(a.endAt()).isEqualTo("oom");
        assertThat(a.oom().snapshotFile()).isEqualTo("regression/probe-oom-snapshot-7100.pickle");
        assertThat(run.resolve(a.oom().snapshotFile())).isRegularFile();
        assertThat(a.oom().site().line()).isEqualTo(21);
        assertThat(a.sites().get(0).site().line()).isEqualTo(17);
        assertThat(r.probe().allocationSites()).isNull(); // attached to the curve instead
        assertThat(r.diagnosis().notes())
                .anyMatch(n -> n.startsWith("Out of memory at cache_oom.py:21 (workspace) allocating 6.0 GiB"))
                .anyMatch(n -> n.startsWith("GPU memory grows because tensors allocated at cache_oom.py:17"));
        assertThat(Files.readString(run.resolve("report.html")))
                .contains("gs-site-chart")
                .contains("cache_oom.py:17 (remember)")
                .contains("pytorch.org/memory_viz");
        assertThat(r.failures()).anyMatch(f -> f.errorClass().equals("out-of-memory"));
    }

    @Test
    void aJobWithoutTorchGetsNoProbe() throws IOException {
        FakeGpu gpu = embeddingJob("gpu")
                .put(
                        "torch-probe.json",
                        "{\"python\": \"3.12.3\", \"executable\": \"/usr/bin/python3\", "
                                + "\"error\": \"ModuleNotFoundError(\\\"No module named 'torch'\\\")\"}");
        Report r = new Runner(spec("run").phases(List.of(Phase.BLOCKING)), gpu.env(), console::add).run();
        assertThat(gpu.logged("env-blocking.txt")).doesNotContain("GPU_SANITIZE_PROBE");
        assertThat(r.probe()).isNull();
        assertThat(r.reasons())
                .anyMatch(x -> x.code().equals("probe") && x.message().contains("no torch in the job's Python"));
    }

    @Test
    void theRegressionPhaseGetsTheProbeByDefaultAndNotWhenTurnedOff() throws Exception {
        FakeGpu on = new FakeGpu(dir.resolve("on")).clean();
        new Runner(spec("run-default").probeMemory(null), on.env(), console::add).run();
        assertThat(dir.resolve("on/log/env-async.txt")).content().contains("GPU_SANITIZE_PROBE_MODE=regression");

        FakeGpu off = new FakeGpu(dir.resolve("off")).clean();
        Report r = new Runner(spec("run-off").probeMemory(false), off.env(), console::add).run();
        assertThat(dir.resolve("off/log/env-async.txt")).content().doesNotContain("GPU_SANITIZE_PROBE_MODE");
        assertThat(dir.resolve("off/log/env-blocking.txt")).content().contains("GPU_SANITIZE_PROBE_MODE=blocking");
        assertThat(r.reasons())
                .anyMatch(x -> x.code().equals("probe") && x.message().contains("--no-probe-memory"));
    }

    /** The probe costs the regression phase 8-13 % throughput on the H200: a baseline comparison could fail on it. */
    @Test
    void noRegressionProbeByDefaultWhenThroughputIsJudgedAgainstABaseline() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).clean();
        Report r = new Runner(
                        spec("run-baseline")
                                .probeMemory(null)
                                .throughputRegex("it/s ([0-9.]+)")
                                .throughputBaseline(100.0),
                        gpu.env(),
                        console::add)
                .run();
        assertThat(dir.resolve("g/log/env-async.txt")).content().doesNotContain("GPU_SANITIZE_PROBE_MODE");
        assertThat(r.reasons())
                .anyMatch(x -> x.code().equals("probe") && x.message().contains("judged against a baseline"));

        FakeGpu asked = new FakeGpu(dir.resolve("asked")).clean();
        new Runner(
                        spec("run-asked")
                                .probeMemory(true)
                                .throughputRegex("it/s ([0-9.]+)")
                                .throughputBaseline(100.0),
                        asked.env(),
                        console::add)
                .run();
        assertThat(dir.resolve("asked/log/env-async.txt")).content().contains("GPU_SANITIZE_PROBE_MODE=regression");
    }
}
