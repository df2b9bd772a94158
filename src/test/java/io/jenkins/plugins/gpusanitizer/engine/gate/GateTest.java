package io.jenkins.plugins.gpusanitizer.engine.gate;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analysis;
import io.jenkins.plugins.gpusanitizer.engine.analysis.AnalysisInput;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.analysis.SanitizerInput;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The verdict table of README "What fails the build", one row per rule of {@link Gate}: each row's
 * findings are the records of a real H200 run (corpus/h200, corpus/h200-2026-12-03, cpp-probe's text
 * runs, bad-inputs) read by the analyzer's parsers, then judged by the gate itself. A row whose recording
 * was changed to show its rule says how in its name. Each row names its verdict and the reasons that
 * decide it ({@code level code}, the most important first), as the report lists them.
 */
class GateTest {
    @TempDir
    Path dir;

    /** What a row feeds the analyzer, made from recorded files (and written into {@code dir} when derived). */
    @FunctionalInterface
    interface Recorded {
        AnalysisInput read(Path dir, GatePolicy policy) throws IOException;
    }

    record Row(String rule, Recorded input, GatePolicy policy, Verdict verdict, List<String> reasons) {
        @Override
        public String toString() {
            return rule;
        }
    }

    static Stream<Row> verdictTable() {
        return Stream.of(
                // PASS
                row("PASS: memcheck counted 0 errors", textRun("mc-clean-exit"), Verdict.PASS),
                row(
                        "PASS: memcheck with the caching allocator on warns that small accesses were not checked",
                        cached(Corpus.file("near-oob/memcheck-caching-allocator.log")),
                        Verdict.PASS,
                        "warning caching-allocator"),
                row("PASS: stable GPU memory", memory(Corpus.file("curves/clean.nvidia-smi.csv")), Verdict.PASS),
                // FAIL
                row(
                        "FAIL: an unsuppressed memcheck error",
                        sanitizer(Corpus.file("far-oob/memcheck.log")),
                        Verdict.FAIL,
                        "fail defect",
                        "info print-limit"),
                row(
                        "FAIL: an unsuppressed memcheck error, only the XML given (the count unknown, said)",
                        sanitizer(Corpus.file("far-oob/memcheck.xml")),
                        Verdict.FAIL,
                        "fail defect",
                        "info no-summary"),
                row("FAIL: a device assert memcheck saw", textRun("mc-assert"), Verdict.FAIL, "fail defect"),
                row(
                        "FAIL: an unsuppressed racecheck error",
                        sanitizer(Corpus.h200Dec03("racecheck/sanitizer.log")),
                        Verdict.FAIL,
                        "fail defect"),
                row(
                        "FAIL: an illegal-memory-access crash of the job",
                        job("blocking", Corpus.file("far-oob/blocking.stderr")),
                        Verdict.FAIL,
                        "fail crash"),
                row(
                        "FAIL: a device assert crash of the job (torchrun, rank 0)",
                        job("blocking", Corpus.h200Dec03("ddp-scatter/blocking/stderr.log")),
                        Verdict.FAIL,
                        "fail crash"),
                row(
                        "FAIL: a GPU fault the job caught and printed without a traceback",
                        job("blocking", Corpus.h200Dec03("hang-driver/blocking/stderr.log")),
                        Verdict.FAIL,
                        "fail crash"),
                row(
                        "FAIL: an NCCL error whose CUDA call met an illegal memory access"
                                + " (ddp-scatter's blocking run, its assert replaced by NCCL's exception)",
                        ncclReported("Cuda failure 700 'an illegal memory access was encountered'"),
                        Verdict.FAIL,
                        "fail crash"),
                row(
                        "FAIL: errors counted but none printed (far-oob's log without its records)",
                        summaryOnly(),
                        Verdict.FAIL,
                        "fail unprinted-errors",
                        "error target-failed"),
                row(
                        "FAIL outranks ERROR: a killed memcheck that had printed an error",
                        sanitizer(Corpus.file("cpp-probe/kill/tool-term.log")),
                        Verdict.FAIL,
                        "fail defect",
                        "error incomplete"),
                // UNSTABLE
                row("UNSTABLE: an initcheck finding", textRun("ic-uninit"), Verdict.UNSTABLE, "unstable defect"),
                row("UNSTABLE: a synccheck finding", textRun("sc-sync"), Verdict.UNSTABLE, "unstable defect"),
                row(
                        "UNSTABLE: racecheck warnings (the recorded races printed at warning level)",
                        racecheckWarnings(),
                        Verdict.UNSTABLE,
                        "unstable defect"),
                row(
                        "UNSTABLE: out of GPU memory",
                        job("async", Corpus.file("oom/async.stderr")),
                        Verdict.UNSTABLE,
                        "unstable oom"),
                row(
                        "UNSTABLE: an NCCL error without a GPU fault (ddp-scatter's blocking run, NCCL's exception)",
                        ncclReported("Cuda failure 1 'invalid argument'"),
                        Verdict.UNSTABLE,
                        "unstable nccl"),
                row(
                        "UNSTABLE: GPU memory that fills the card within the horizon (a leak of 100 MiB/min)",
                        memory(Corpus.h200Dec03("curves/leak-logits.nvidia-smi.csv")),
                        Verdict.UNSTABLE,
                        "unstable memory-growth"),
                // ERROR
                row(
                        "ERROR: the tool failed (the target never initialised CUDA)",
                        sanitizer(Corpus.file("tool-errors/no-cuda-app.log")),
                        Verdict.ERROR,
                        "error tool-failure"),
                row(
                        "ERROR: the application crashed under the tool and it reported no error",
                        sanitizer(Corpus.file("leakcheck-crash/memcheck-leakcheck.log")),
                        Verdict.ERROR,
                        "error app-crashed"),
                row(
                        "ERROR: the tool left no summary (killed before it printed a record)",
                        firstLines(Corpus.file("cpp-probe/kill/tool-term.log"), 1),
                        Verdict.ERROR,
                        "error incomplete"),
                row(
                        "ERROR: the target returned an error that nothing the tool found explains",
                        sanitizer(Corpus.resource("/bad-inputs/target-died.log")),
                        Verdict.ERROR,
                        "error target-failed"),
                row(
                        "ERROR: a summary whose count cannot be read",
                        sanitizer(Corpus.resource("/bad-inputs/summary-count-too-large.log")),
                        Verdict.ERROR,
                        "error unreadable-summary"),
                row(
                        "ERROR: an XML without its text log that holds no unsuppressed record",
                        sanitizer(Corpus.resource("/bad-inputs/xml-without-records.xml")),
                        Verdict.ERROR,
                        "error no-summary"),
                row(
                        "ERROR: an XML cut off before its first record, without its text log",
                        xmlCutInFirstRecord(),
                        Verdict.ERROR,
                        "error xml-truncated"),
                row(
                        "ERROR: a job that saw no GPU (a clean memcheck log with torch's CUDA initialization warning)",
                        noGpu(),
                        Verdict.ERROR,
                        "error no-gpu"),
                row(
                        "ERROR: the job failed before the GPU could be judged (torchrun stopped by SIGTERM)",
                        job("blocking", Corpus.file("torchrun-sigterm/blocking.stderr")),
                        Verdict.ERROR,
                        "error job-error"),
                row(
                        "ERROR: a CUDA graph capture the uncached allocator broke, not checked again",
                        sanitizer(Corpus.h200Dec03("cudagraph/memcheck-uncached.log")),
                        Verdict.ERROR,
                        "error target-failed",
                        "error capture-conflict"),
                row(
                        "ERROR: an output that cannot be read",
                        (d, p) -> input(p, List.of(text(d.resolve("no-such-memcheck.log"))), Map.of(), null),
                        Verdict.ERROR,
                        "error unreadable-output"),
                row(
                        "ERROR: nothing to judge",
                        (d, p) -> input(p, List.of(), Map.of(), null),
                        Verdict.ERROR,
                        "error no-evidence"),
                row(
                        "ERROR outranks UNSTABLE: out of memory and a tool failure",
                        (d, p) -> input(
                                p,
                                List.of(text(Corpus.file("tool-errors/no-cuda-app.log"))),
                                Map.of("async", Corpus.file("oom/async.stderr")),
                                null),
                        Verdict.ERROR,
                        "error tool-failure",
                        "unstable oom"),
                // the policy's options
                new Row(
                        "policy initcheck=fail: an initcheck finding fails",
                        textRun("ic-uninit"),
                        GatePolicy.builder()
                                .toolAction(Tool.INITCHECK, GateAction.FAIL)
                                .build(),
                        Verdict.FAIL,
                        List.of("fail defect")),
                new Row(
                        "policy memcheck=ignore: a memcheck error decides nothing",
                        sanitizer(Corpus.file("far-oob/memcheck.log")),
                        GatePolicy.builder()
                                .toolAction(Tool.MEMCHECK, GateAction.IGNORE)
                                .build(),
                        Verdict.PASS,
                        List.of("info print-limit")),
                new Row(
                        "policy oom=fail: out of memory fails",
                        job("async", Corpus.file("oom/async.stderr")),
                        GatePolicy.builder().oomAction(GateAction.FAIL).build(),
                        Verdict.FAIL,
                        List.of("fail oom")),
                new Row(
                        "policy fill horizon 1h: a leak that fills the card in a day is information",
                        memory(Corpus.h200Dec03("curves/leak-logits.nvidia-smi.csv")),
                        GatePolicy.builder().memoryFillHorizonHours(1).build(),
                        Verdict.PASS,
                        List.of("info memory-growth-slow")),
                new Row(
                        "policy memory-growth=fail: a leak fails",
                        memory(Corpus.file("curves/leak.nvidia-smi.csv")),
                        GatePolicy.builder().memoryGrowthAction(GateAction.FAIL).build(),
                        Verdict.FAIL,
                        List.of("fail memory-growth")),
                new Row(
                        "policy crash=unstable: an illegal-memory-access crash is unstable",
                        job("blocking", Corpus.file("far-oob/blocking.stderr")),
                        GatePolicy.builder().crashAction(GateAction.UNSTABLE).build(),
                        Verdict.UNSTABLE,
                        List.of("unstable crash")),
                row(
                        "FAIL: an out-of-bounds write in a C++ program's kernel, the CUDA runtime's own noise suppressed",
                        textRun("mc-oob"),
                        Verdict.FAIL,
                        "fail defect",
                        "info suppressed"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("verdictTable")
    void judges(Row row) throws IOException {
        Analysis parsed = new Analyzer().analyze(row.input().read(dir, row.policy()));

        Gate.Result result = new Gate(row.policy())
                .evaluate(new Gate.Input(
                        parsed.runs(),
                        parsed.failures(),
                        parsed.curves(),
                        parsed.cachingAllocator(),
                        parsed.inputErrors()));

        List<String> reasons = result.reasons().stream()
                .map(r -> r.level().id() + " " + r.code())
                .toList();
        assertThat(result.verdict()).as(result.reasons().toString()).isEqualTo(row.verdict());
        assertThat(reasons).as(result.reasons().toString()).containsAll(row.reasons());
        if (row.verdict() != Verdict.PASS) {
            // the first reason decides: the report and the build page show it first
            assertThat(reasons.get(0))
                    .as(result.reasons().toString())
                    .isEqualTo(row.reasons().get(0));
        } else {
            assertThat(result.reasons()).noneMatch(r -> r.level().compareTo(Reason.Level.UNSTABLE) <= 0);
        }
    }

    private static Row row(String rule, Recorded input, Verdict verdict, String... reasons) {
        return new Row(rule, input, GatePolicy.defaults(), verdict, List.of(reasons));
    }

    private static AnalysisInput input(
            GatePolicy policy, List<SanitizerInput> sanitizer, Map<String, Path> jobLogs, Path memoryCsv) {
        // the runner's sanitizer run is uncached (PYTORCH_NO_CUDA_MEMORY_CACHING=1): its cache setting is known
        return new AnalysisInput(sanitizer, jobLogs, memoryCsv, null, sanitizer.isEmpty() ? null : false, policy, true);
    }

    private static SanitizerInput text(Path file) {
        return new SanitizerInput(file, file.getFileName().toString().endsWith(".xml"), null);
    }

    private static Recorded sanitizer(Path file) {
        return (d, p) -> input(p, List.of(text(file)), Map.of(), null);
    }

    private static Recorded cached(Path file) {
        return (d, p) -> new AnalysisInput(List.of(text(file)), Map.of(), null, null, true, p, true);
    }

    private static Recorded job(String phase, Path stderr) {
        return (d, p) -> input(p, List.of(), Map.of(phase, stderr), null);
    }

    private static Recorded memory(Path csv) {
        return (d, p) -> input(p, List.of(), Map.of(), csv);
    }

    /** One run of cpp-probe/text-runs.txt (the CUDA C++ probe under each tool, on the H200). */
    private static Recorded textRun(String name) {
        return (d, p) -> input(p, List.of(text(Corpus.write(d, name + ".log", Corpus.textRun(name)))), Map.of(), null);
    }

    private static Recorded firstLines(Path log, int lines) {
        return (d, p) -> {
            String kept = Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                    .limit(lines)
                    .collect(Collectors.joining("\n", "", "\n"));
            return input(p, List.of(text(Corpus.write(d, "cut-" + log.getFileName(), kept))), Map.of(), null);
        };
    }

    /** far-oob's memcheck log with its records left out: what a run with {@code --print-limit 0} prints. */
    private static Recorded summaryOnly() {
        return (d, p) -> {
            List<String> kept = new ArrayList<>();
            for (String line : Files.readAllLines(Corpus.file("far-oob/memcheck.log"), StandardCharsets.UTF_8)) {
                if (line.contains("COMPUTE-SANITIZER")
                        || line.contains("Target application returned an error")
                        || line.contains("ERROR SUMMARY")) {
                    kept.add(line);
                }
            }
            Path log = Corpus.write(d, "summary-only.log", String.join("\n", kept) + "\n");
            return input(p, List.of(text(log)), Map.of(), null);
        };
    }

    private static Recorded racecheckWarnings() {
        return (d, p) -> {
            String log = Files.readString(Corpus.h200Dec03("racecheck/sanitizer.log"), StandardCharsets.UTF_8);
            assertThat(log).contains("Error: Race reported", "(3 errors, 0 warnings)");
            String warnings = log.replace("Error: Race reported", "Warning: Race reported")
                    .replace("(3 errors, 0 warnings)", "(0 errors, 3 warnings)");
            return input(p, List.of(text(Corpus.write(d, "racecheck-warnings.log", warnings))), Map.of(), null);
        };
    }

    private static Recorded xmlCutInFirstRecord() {
        return (d, p) -> {
            String xml = Files.readString(Corpus.file("far-oob/memcheck.xml"), StandardCharsets.UTF_8);
            String cut = xml.substring(0, xml.indexOf("</record>") - 50);
            return input(p, List.of(text(Corpus.write(d, "cut.xml", cut))), Map.of(), null);
        };
    }

    /** near-oob's clean memcheck log with the warning torch printed on a machine whose GPU it could not use. */
    private static Recorded noGpu() {
        return (d, p) -> {
            String clean =
                    Files.readString(Corpus.file("near-oob/memcheck-caching-allocator.log"), StandardCharsets.UTF_8);
            String warning =
                    Files.readString(Corpus.resource("/bad-inputs/cuda-init-failed.stderr"), StandardCharsets.UTF_8);
            String banner = "========= COMPUTE-SANITIZER\n";
            assertThat(clean).startsWith(banner).contains("ERROR SUMMARY: 0 errors");
            Path log = Corpus.write(d, "no-gpu.log", banner + warning + clean.substring(banner.length()));
            return input(p, List.of(text(log)), Map.of(), null);
        };
    }

    /**
     * ddp-scatter's blocking run (torchrun) with its device asserts gone and its exception the one NCCL raises
     * when a CUDA call inside it fails with {@code lastError} (the form of pytorch/pytorch and NVIDIA/nccl reports).
     */
    private static Recorded ncclReported(String lastError) {
        return (d, p) -> {
            String assertException = "[rank0]: torch.AcceleratorError: CUDA error: device-side assert triggered";
            String ncclException = String.join(
                    "\n",
                    "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
                            + "NCCLUtils.cpp:77, unhandled cuda error (run with NCCL_DEBUG=INFO for details), "
                            + "NCCL version 2.27.5",
                    "[rank0]: ncclUnhandledCudaError: Call to CUDA function failed.",
                    "[rank0]: Last error:",
                    "[rank0]: " + lastError);
            List<String> lines =
                    Files.readAllLines(Corpus.h200Dec03("ddp-scatter/blocking/stderr.log"), StandardCharsets.UTF_8);
            assertThat(lines).contains(assertException);
            String edited = lines.stream()
                    .filter(l -> !l.contains("Assertion `") && !l.contains("device-side assert triggered (function"))
                    .filter(l -> !l.contains("Search for `cudaErrorAssert'") && !l.contains("TORCH_USE_CUDA_DSA"))
                    .map(l -> l.equals(assertException) ? ncclException : l)
                    .collect(Collectors.joining("\n", "", "\n"));
            return input(p, List.of(), Map.of("blocking", Corpus.write(d, "nccl.stderr", edited)), null);
        };
    }
}
