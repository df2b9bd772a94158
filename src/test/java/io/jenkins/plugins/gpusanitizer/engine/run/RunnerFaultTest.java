package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Faults with real processes (docs/reliability.md): the tool killed, an abort in each phase, the
 * sampler dying, a file-size limit hit, secrets in the environment. Always: a run directory and a
 * report, a verdict that names the fault, no orphan.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class RunnerFaultTest {
    @TempDir
    Path dir;

    private final List<String> console = Collections.synchronizedList(new ArrayList<>());

    private RunSpec spec() {
        return new RunSpec()
                .command(List.of("python3", "train.py"))
                .outDir(dir.resolve("run").toString())
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(3)
                .progressIntervalSeconds(1)
                .samplerIntervalMs(100);
    }

    private static long waitForPid(FakeGpu gpu, String file) throws IOException, InterruptedException {
        String pids = FileWait.content(gpu.log.resolve(file), Duration.ofMinutes(5));
        assertThat(pids).as(file + " never appeared").isNotEmpty();
        return Long.parseLong(pids.split("\\s+")[0]);
    }

    /** The pids of the worker-like children the fake job of that mode started. */
    private static long[] children(FakeGpu gpu, String mode) {
        return java.util.Arrays.stream(gpu.logged("children-" + mode + ".txt").split("\\s+"))
                .filter(s -> !s.isBlank())
                .mapToLong(Long::parseLong)
                .toArray();
    }

    private static void assertGone(long... pids) throws InterruptedException {
        assertThat(Processes.runningAfter(Duration.ofMinutes(1), pids))
                .as("survivors")
                .isEmpty();
    }

    @Test
    void toolKilledMidRunLeavesNoXmlNoSummaryAndNoOrphan() throws Exception {
        FakeGpu gpu = new FakeGpu(dir).farOob().put("memcheck-app.hang", "");
        AtomicReference<Report> report = new AtomicReference<>();
        Thread t = new Thread(() ->
                report.set(new Runner(spec().phases(List.of(Phase.SANITIZER)), gpu.env(), console::add).run()));
        t.start();
        long target = waitForPid(gpu, "target-memcheck.txt");
        long tool = ProcessHandle.of(target)
                .flatMap(ProcessHandle::parent)
                .orElseThrow()
                .pid();
        ProcessHandle.of(tool).orElseThrow().destroyForcibly(); // SIGKILL to compute-sanitizer, as in cpp-probe/kill
        t.join(300_000);
        Report r = report.get();
        PhaseJson p = r.execution().phases().get(0);
        assertThat(p.exitCode()).isEqualTo(137);
        assertThat(p.signal()).isEqualTo(9);
        assertThat(p.note()).contains("no --save XML written").contains("leftover process(es) of the phase killed");
        assertThat(r.reasons())
                .anyMatch(x -> x.code().equals("incomplete") && x.message().contains("did not finish"));
        // the records printed before the kill are real: FAIL, and the incomplete run is named beside it
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(r.sanitizerRuns().get(0).recordsFrom()).isEqualTo("text");
        assertGone(target, tool);
        assertThat(dir.resolve("run/report.json")).isNotEmptyFile();
    }

    @Test
    void aToolKilledAmidOneLaunchsRecordsReportsItsOneDefect() throws Exception {
        // the log of memcheck SIGKILLed on the H200 amid one launch's records, its last record cut before its frames
        // (records/h200-2026-12-05-cut-logs.zip.xz): replayed by the stand-in tool, killed the same way
        FakeGpu gpu = new FakeGpu(dir)
                .farOob()
                .drop("memcheck.xml")
                .putFile(Records.unpacked("h200-2026-12-05-cut-logs/cut-150000.log"), "memcheck.log")
                .put("memcheck-app.hang", "");
        AtomicReference<Report> report = new AtomicReference<>();
        Thread t = new Thread(() ->
                report.set(new Runner(spec().phases(List.of(Phase.SANITIZER)), gpu.env(), console::add).run()));
        t.start();
        long target = waitForPid(gpu, "target-memcheck.txt");
        ProcessHandle.of(target).flatMap(ProcessHandle::parent).orElseThrow().destroyForcibly();
        t.join(300_000);
        Report r = report.get();
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(r.sanitizerRuns().get(0).recordsFrom()).isEqualTo("text");
        assertThat(r.defects()).filteredOn(d -> !d.suppressed()).singleElement().satisfies(d -> {
            assertThat(d.kernel()).isEqualTo("fused_scale");
            assertThat(d.records()).isEqualTo(248);
        });
        assertThat(r.reasons())
                .anyMatch(x -> x.message()
                        .contains("the last record was cut off (the tool stopped while writing it):"
                                + " the same error as the record before it"));
    }

    @Test
    void aRunDirectoryDeletedUnderTheRunEndsItWithNothingLeftAndSaysWhy() throws Exception {
        // a workspace cleanup while the gate runs (as on the H200: records/h200-2026-12-04-verify.zip.xz,
        // signals-lost-directory)
        FakeGpu gpu = new FakeGpu(dir).clean().put("async.hang", "");
        AtomicReference<Report> report = new AtomicReference<>();
        // a supervisor that can write nothing more is known for gone after 5 s of silence here (15 s by default)
        RunSpec spec = spec().phases(List.of(Phase.REGRESSION)).supervisorSilenceSeconds(5);
        Thread t = new Thread(() -> report.set(new Runner(spec, gpu.env(), console::add).run()));
        t.start();
        long job = waitForPid(gpu, "pid-async.txt");
        long[] children = children(gpu, "async");
        deleteTree(dir.resolve("run"));
        t.join(300_000);
        assertThat(t.isAlive()).isFalse();
        Report r = report.get();
        assertThat(r.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(r.reasons())
                .anyMatch(x -> x.code().equals("runner") && x.message().contains("was deleted while the run went on"));
        assertGone(job);
        assertGone(children);
    }

    /**
     * {@code rm -rf} of a directory the run is still writing into: a file written during a pass (the memory
     * sampler's, the supervisor's) makes that pass's folder "not empty", and the next pass takes it.
     */
    private static void deleteTree(Path root) throws IOException {
        for (int pass = 0; pass < 50 && Files.exists(root); pass++) {
            try (var files = Files.walk(root)) {
                for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    try {
                        Files.deleteIfExists(f);
                    } catch (java.nio.file.DirectoryNotEmptyException e) {
                        // written to meanwhile: the next pass
                    }
                }
            } catch (java.io.UncheckedIOException | java.nio.file.NoSuchFileException e) {
                // a folder went while it was walked: the next pass
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Phase.class)
    void abortInTheMiddleOfEachPhase(Phase phase) throws Exception {
        String mode =
                switch (phase) {
                    case SANITIZER -> "memcheck-app";
                    case BLOCKING -> "blocking";
                    case REGRESSION -> "async";
                };
        FakeGpu gpu = new FakeGpu(dir).clean().put(mode + ".hang", "");
        AtomicReference<Report> report = new AtomicReference<>();
        Thread t = new Thread(() -> report.set(new Runner(spec(), gpu.env(), console::add).run()));
        t.start();
        long job = waitForPid(gpu, "pid-" + mode + ".txt");
        t.interrupt(); // what Jenkins' stop does to the step's thread, once the phase's job runs
        t.join(300_000);
        Report r = report.get();
        assertThat(r.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(r.reasons()).anyMatch(x -> x.code().equals("aborted"));
        // the phase that was running is aborted; on one GPU the blocking run runs beside the sanitizer
        // run, so both are recorded when either is aborted; nothing after them starts
        assertThat(r.execution().phases())
                .filteredOn(p -> p.name().startsWith(phase == Phase.SANITIZER ? "sanitizer" : phase.id()))
                .singleElement()
                .extracting(PhaseJson::status)
                .isEqualTo("aborted");
        assertThat(r.execution().phases())
                .extracting(PhaseJson::name)
                .containsExactlyElementsOf(
                        phase == Phase.REGRESSION
                                ? List.of("sanitizer-memcheck", "blocking", "regression")
                                : List.of("sanitizer-memcheck", "blocking"));
        long[] children = children(gpu, mode);
        assertGone(job);
        assertGone(children);
        assertThat(dir.resolve("run/report.json")).isNotEmptyFile();
        assertThat(dir.resolve("run/run.json")).isNotEmptyFile();
    }

    /**
     * An abort while the environment check has not answered yet (the job's Python still importing torch): the sanitizer
     * and blocking runs that ran beside it are recorded as aborted, evidence of what ran, as when it had answered.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void anAbortBeforeTheEnvironmentCheckAnswersRecordsThePhasesThatRan(int gpus) throws Exception {
        FakeGpu gpu = new FakeGpu(dir)
                .clean()
                .put("gpu-count", Integer.toString(gpus))
                .put("memcheck-app.hang", "")
                .put("blocking.hang", "")
                .put("torch-probe.gate", "");
        AtomicReference<Report> report = new AtomicReference<>();
        // one GPU: the blocking run beside the sanitizer run; two: each on a GPU of its own
        RunSpec spec = spec().gpus(gpus == 1 ? List.of("0") : List.of("0", "1"));
        Thread t = new Thread(() -> report.set(new Runner(spec, gpu.env(), console::add).run()));
        t.start();
        long sanitized = waitForPid(gpu, "pid-memcheck-app.txt");
        long blocking = waitForPid(gpu, "pid-blocking.txt");
        waitForPid(gpu, "gated-torch-probe.txt");
        t.interrupt();
        t.join(300_000);

        Report r = report.get();
        assertThat(r.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(r.execution().phases())
                .extracting(PhaseJson::name, PhaseJson::status)
                .containsExactly(tuple("sanitizer-memcheck", "aborted"), tuple("blocking", "aborted"));
        assertGone(sanitized, blocking);
        assertGone(children(gpu, "memcheck-app"));
        assertGone(children(gpu, "blocking"));
    }

    @Test
    void samplerDyingIsAWarningAndTheCurveIsPartial() {
        FakeGpu gpu = new FakeGpu(dir).clean().put("sampler-dies", "");
        Report r = new Runner(spec().phases(List.of(Phase.REGRESSION)), gpu.env(), console::add).run();
        assertThat(r.reasons())
                .anyMatch(x -> x.code().equals("memory-sampler") && x.message().contains("exited early"));
        assertThat(r.execution().phases().get(0).note()).contains("memory sampler exited early");
    }

    @Test
    void fileSizeLimitHitWhileWritingOutputsIsAnError() {
        // the job's output reaches a 64 KiB file-size limit (SIGXFSZ), as on a full disk
        FakeGpu gpu = new FakeGpu(dir).clean();
        gpu.put("async.stdout", "x".repeat(200_000) + "\n");
        Report r = new Runner(
                        spec().phases(List.of(Phase.REGRESSION))
                                .command(List.of("ulimit -f 64; exec python3 train.py")),
                        gpu.env(),
                        console::add)
                .run();
        PhaseJson p = r.execution().phases().get(0);
        assertThat(p.status()).isEqualTo("failed");
        assertThat(p.signal()).isEqualTo(25);
        assertThat(r.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(r.reasons())
                .anyMatch(x ->
                        x.code().equals("exit-without-error") && x.message().contains("signal 25"));
    }

    @Test
    void secretsInTheEnvironmentNeverReachReportsOrLogs() throws IOException {
        FakeGpu gpu = new FakeGpu(dir).farOob();
        Map<String, String> env = new java.util.LinkedHashMap<>(gpu.env());
        env.put("HF_TOKEN", "hf_s3cr3tValue42");
        Report r = new Runner(
                        spec().command(List.of("python3 train.py --token hf_s3cr3tValue42"))
                                .extraEnv(Map.of("WANDB_API_KEY", "wandb-k3y-9999")),
                        env,
                        console::add)
                .run();
        String json = Files.readString(dir.resolve("run/report.json"), StandardCharsets.UTF_8)
                + Files.readString(dir.resolve("run/run.json"), StandardCharsets.UTF_8)
                + Files.readString(dir.resolve("run/report.html"), StandardCharsets.UTF_8)
                + Files.readString(dir.resolve("run/blocking/command.txt"), StandardCharsets.UTF_8)
                + String.join("\n", console);
        assertThat(json).doesNotContain("hf_s3cr3tValue42", "wandb-k3y-9999").contains("--token ****");
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        // the job did get its secrets
        assertThat(gpu.logged("env-async.txt")).contains("WANDB_API_KEY=wandb-k3y-9999");
    }
}
