package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.report.ReasonJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.engine.run.Phase;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.engine.run.Runner;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue #17 points 1 and 2: {@code gpu-sanitize run} and {@code analyze --run-dir} over the same run
 * directory give the same verdict for the same reasons, including the reasons only the phases'
 * recorded outcomes carry (exit codes, timed out, aborted, not started), and a sanitizer run whose
 * target died with nothing checked is never PASS.
 *
 * <p>In the cli test package because it drives {@code analyze} through {@link GpuSanitizeCli}: the
 * plugin build leaves cli/ out of its main and test sources.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class RunDirectoryAgreementTest {
    private static final String P = "========= ";

    @TempDir
    Path dir;

    private final List<String> console = new ArrayList<>();

    private RunSpec spec(String out) {
        return new RunSpec()
                .command(List.of("python3", "train.py"))
                .outDir(dir.resolve(out).toString())
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(3)
                .progressIntervalSeconds(1)
                .samplerIntervalMs(100);
    }

    /** {@code analyze --run-dir} through the CLI; the report it wrote. */
    private Report reanalyze(Path runDir, int expectedExit) {
        Path json = dir.resolve("reanalysis-" + runDir.getFileName() + ".json");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = GpuSanitizeCli.execute(
                new String[] {"analyze", "--run-dir", runDir.toString(), "--json", json.toString()},
                new PrintWriter(out, true),
                new PrintWriter(err, true));
        assertThat(exit).as(out + " " + err).isEqualTo(expectedExit);
        return ReportJson.read(json);
    }

    /** The reasons that decide a verdict, as level:code. */
    private static Set<String> deciding(Report r) {
        return r.reasons().stream()
                .filter(x -> Set.of("fail", "error", "unstable").contains(x.level()))
                .map(x -> x.level() + ":" + x.code())
                .collect(Collectors.toSet());
    }

    private static ReasonJson reason(Report r, String code) {
        return r.reasons().stream()
                .filter(x -> x.code().equals(code))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no reason " + code + " in " + r.reasons()));
    }

    private Report runAndCompare(FakeGpu gpu, RunSpec spec, Verdict verdict) {
        Report run = new Runner(spec, gpu.env(), console::add).run();
        assertThat(run.verdict()).as(run.reasons().toString()).isEqualTo(verdict);
        Report again = reanalyze(Path.of(spec.outDir()), verdict.exitCode());
        assertThat(again.verdict()).as(again.reasons().toString()).isEqualTo(verdict);
        assertThat(deciding(again)).isEqualTo(deciding(run));
        assertThat(ReportJson.read(Path.of(spec.outDir(), RunLayout.REPORT_JSON))
                        .verdict())
                .as("report.json, which the Jenkins build page shows")
                .isEqualTo(verdict);
        return run;
    }

    @Test
    void p1TargetThatDiedUnderTheSanitizerIsAnErrorInRunAndInAnalyze() {
        // the job ran out of memory under compute-sanitizer after CUDA started: nothing after it was checked
        FakeGpu gpu = new FakeGpu(dir)
                .put(
                        "memcheck.log",
                        P + "COMPUTE-SANITIZER\n" + P + "Target application returned an error\n" + P
                                + "ERROR SUMMARY: 0 errors\n")
                .put("memcheck-app.stderr", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n")
                .put("memcheck-app.exit", "1");
        Report r = runAndCompare(gpu, spec("died").phases(List.of(Phase.SANITIZER)), Verdict.ERROR);
        assertThat(reason(r, "target-failed").message())
                .startsWith("memcheck: the application returned an error under compute-sanitizer")
                .contains("was not checked");
    }

    @Test
    void p1SanitizerPhaseThatFailedWithoutAnyFindingIsAnError() {
        // a bad --sanitizer-command argument: the script exits 2 at once, the tool counts 0 errors
        FakeGpu gpu = new FakeGpu(dir)
                .put("memcheck.log", P + "COMPUTE-SANITIZER\n" + P + "ERROR SUMMARY: 0 errors\n")
                .put("memcheck-app.stderr", "train.py: error: unrecognized arguments: --stpes 8\n")
                .put("memcheck-app.exit", "2");
        Report r = runAndCompare(gpu, spec("badarg").phases(List.of(Phase.SANITIZER)), Verdict.ERROR);
        assertThat(reason(r, "sanitizer-exit").message())
                .isEqualTo("sanitizer-memcheck exited with 2 and compute-sanitizer reported no error: the job failed"
                        + " under the tool, so it was not fully checked; see sanitizer-memcheck/stderr.log");
    }

    @Test
    void p2ToolThatExits255AndWritesNoLogIsAnErrorInRunAndInAnalyze() throws IOException {
        FakeGpu gpu = new FakeGpu(dir);
        Path cs = dir.resolve("broken-compute-sanitizer");
        Files.writeString(
                cs,
                "#!/usr/bin/env bash\n"
                        + "if [ \"${1:-}\" = --version ]; then cat \"$FAKE_CORPUS/env/compute-sanitizer-version.txt\"; exit 0; fi\n"
                        + "echo 'Error: Unrecognized option --bogus' >&2\nexit 255\n",
                StandardCharsets.UTF_8);
        cs.toFile().setExecutable(true);
        Report r = runAndCompare(
                gpu, spec("no-log").phases(List.of(Phase.SANITIZER)).computeSanitizer(cs.toString()), Verdict.ERROR);
        assertThat(reason(r, "no-sanitizer-output").message())
                .isEqualTo("sanitizer-memcheck: compute-sanitizer wrote no log (exit 255); see"
                        + " sanitizer-memcheck/stderr.log");
    }

    @Test
    void p2TimedOutPhaseIsAnErrorInRunAndInAnalyze() {
        FakeGpu gpu = new FakeGpu(dir).put("blocking.hang", "");
        Report r = runAndCompare(
                gpu, spec("timeout").phases(List.of(Phase.BLOCKING)).timeoutSeconds(Phase.BLOCKING, 2), Verdict.ERROR);
        assertThat(reason(r, "timeout").message())
                .startsWith("blocking timed out after ")
                .endsWith(" s and was killed; its output is partial");
    }

    @Test
    void p2AbortedNotStartedAndUnfinishedRunsAreErrorsInAnalyze() throws IOException {
        FakeGpu gpu = new FakeGpu(dir).clean();
        RunSpec spec = spec("clean").phases(List.of(Phase.BLOCKING));
        runAndCompare(gpu, spec, Verdict.PASS);
        Path clean = Path.of(spec.outDir());
        record Edit(String status, boolean finished, String code, String message) {}
        for (Edit e : List.of(
                new Edit("aborted", true, "aborted", "blocking was aborted after"),
                new Edit("not-started", true, "not-started", "blocking could not start: "),
                new Edit("timed-out", true, "timeout", "blocking timed out after"),
                new Edit("passed", false, "unfinished", "run.json says the run did not finish"))) {
            Path copy = dir.resolve("edited-" + e.code());
            Files.createDirectories(copy.resolve("blocking"));
            for (String f : List.of("blocking/stderr.log", "blocking/stdout.log")) {
                Files.copy(clean.resolve(f), copy.resolve(f));
            }
            var mapper = ReportJson.mapper();
            ObjectNode record = (ObjectNode)
                    mapper.readTree(clean.resolve(RunLayout.RUN_JSON).toFile());
            record.put("finished", e.finished());
            ((ObjectNode) record.get("execution").get("phases").get(0)).put("status", e.status());
            mapper.writeValue(copy.resolve(RunLayout.RUN_JSON).toFile(), record);
            Report r = reanalyze(copy, 3);
            assertThat(r.verdict()).as(e.code()).isEqualTo(Verdict.ERROR);
            assertThat(reason(r, e.code()).level()).isEqualTo("error");
            assertThat(reason(r, e.code()).message()).as(e.code()).startsWith(e.message());
        }
    }
}
