package io.jenkins.plugins.gpusanitizer.engine.diagnosis;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analysis;
import io.jenkins.plugins.gpusanitizer.engine.analysis.AnalysisInput;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.analysis.SanitizerInput;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * "Reported at X, really at Y", one row per rule of {@link Diagnoser}: which run's line is the fault, on
 * what evidence, and the sentence the build page shows. Each row's phases are real H200 outputs
 * (corpus/h200, corpus/h200-2026-12-03, the recorded runs) read by the analyzer's parsers, then read
 * against each other by the diagnoser itself.
 */
class DiagnoserTest {
    @TempDir
    Path dir;

    /**
     * @param reportedAt where the normal run reported the error ({@code file:line}), or null
     * @param faultAt    where the fault is, or null
     * @param evidence   the fault's evidence, or null
     * @param summary    a part of the summary sentence
     * @param note       a part of one note, or null
     */
    record Row(
            String rule,
            Function<Path, Phases> phases,
            String reportedAt,
            String faultAt,
            String evidence,
            String summary,
            String note) {
        @Override
        public String toString() {
            return rule;
        }
    }

    /** The recorded outputs of one job's phases. */
    record Phases(List<Path> sanitizer, Path async, Path blocking, Path memoryCsv, Boolean cachingAllocator) {
        static Phases of(Path async, Path blocking, Path... sanitizer) {
            return new Phases(List.of(sanitizer), async, blocking, null, false);
        }
    }

    private static final Path FAR_ASYNC = Corpus.file("far-oob/async.stderr");
    private static final Path FAR_BLOCKING = Corpus.file("far-oob/blocking.stderr");
    private static final Path FAR_MEMCHECK = Corpus.file("far-oob/memcheck.log");

    static Stream<Row> rules() {
        return Stream.of(
                new Row(
                        "the normal run's line is innocent; blocking and sanitizer agree on the launch",
                        d -> Phases.of(FAR_ASYNC, FAR_BLOCKING, FAR_MEMCHECK),
                        "train_lstm.py:99",
                        "train_lstm.py:32",
                        "blocking+sanitizer",
                        "The normal run reported the error at train_lstm.py:99",
                        "compute-sanitizer confirms: kernel scale_shift was launched from train_lstm.py:32 in buggy_scale."),
                new Row(
                        "the blocking run names the launch the normal run did not",
                        d -> Phases.of(FAR_ASYNC, FAR_BLOCKING),
                        "train_lstm.py:99",
                        "train_lstm.py:32",
                        "blocking",
                        "; the blocking run shows it at train_lstm.py:32 in buggy_scale",
                        "CUDA reports kernel faults asynchronously: train_lstm.py:99"),
                new Row(
                        "the sanitizer's launch site when there is no blocking run",
                        d -> Phases.of(FAR_ASYNC, null, FAR_MEMCHECK),
                        "train_lstm.py:99",
                        "train_lstm.py:32",
                        "sanitizer",
                        "; the sanitizer shows it at train_lstm.py:32 in buggy_scale.",
                        null),
                new Row(
                        "the blocking run alone",
                        d -> Phases.of(null, FAR_BLOCKING),
                        null,
                        "train_lstm.py:32",
                        "blocking",
                        "The fault is at train_lstm.py:32 in buggy_scale",
                        null),
                new Row(
                        "the sanitizer alone",
                        d -> Phases.of(null, null, FAR_MEMCHECK),
                        null,
                        "train_lstm.py:32",
                        "sanitizer",
                        "The fault is at train_lstm.py:32 in buggy_scale (sanitizer).",
                        null),
                new Row(
                        "the normal run alone: its line may be innocent",
                        d -> Phases.of(FAR_ASYNC, null),
                        "train_lstm.py:99",
                        null,
                        null,
                        "without a blocking run or sanitizer finding this line may be innocent (asynchronous report).",
                        null),
                new Row(
                        "a sanitizer record without a host stack names the kernel only",
                        d -> Phases.of(null, null, Corpus.write(d, "mc-nobt.log", Corpus.textRun("mc-nobt"))),
                        null,
                        null,
                        null,
                        "The sanitizer found Invalid __global__ write of size 4 bytes in kernel oob_write(int *, int).",
                        null),
                new Row(
                        "an out-of-bounds write memcheck saw first is the fault; the later assert its consequence",
                        d -> Phases.of(null, Corpus.runRecord("index").resolve("blocking/stderr.log"), FAR_MEMCHECK),
                        null,
                        "train_lstm.py:32",
                        "sanitizer",
                        "the blocking run's failure at lstm_job.py:64 in forward",
                        "The line a traceback names is only where the error surfaced"),
                new Row(
                        // counted (--count-pytorch-kernels) they are PyTorch's findings: FindingsInPyTorchTest
                        "an initcheck finding inside PyTorch's own kernel is PyTorch's, suppressed: no line of the job",
                        d -> Phases.of(
                                null,
                                null,
                                Records.unzip("h200-2026-12-04c", d.resolve("rec"))
                                        .resolve("after/initcheck-tf/sanitizer-initcheck/sanitizer.log")),
                        null,
                        null,
                        null,
                        "No fault located.",
                        null),
                new Row(
                        "a GPU fault the job caught and printed without a traceback",
                        d -> Phases.of(null, Corpus.h200Dec03("hang-driver/blocking/stderr.log")),
                        null,
                        null,
                        null,
                        "The blocking run hit a GPU fault and printed it without a traceback: `retrying after: "
                                + "CUDA_ERROR_ILLEGAL_ADDRESS",
                        "(the job caught it and printed it)"),
                new Row(
                        "torch.compile: the call of the compiled module is the launch site",
                        d -> Phases.of(
                                Corpus.h200Dec03("compile-oob/regression/stderr.log"),
                                Corpus.h200Dec03("compile-oob/blocking/stderr.log"),
                                Corpus.h200Dec03("compile-oob/sanitizer-memcheck/sanitizer.log")),
                        "compile_job.py:90",
                        "compile_job.py:84",
                        "blocking",
                        "the blocking run shows it at compile_job.py:84 in main",
                        "The fault is in code torch.compile generated for compile_job.py:58 in forward"),
                new Row(
                        "torchrun: the failing rank's traceback, the launcher's as context",
                        d -> Phases.of(
                                Corpus.h200Dec03("ddp-scatter/regression/stderr.log"),
                                Corpus.h200Dec03("ddp-scatter/blocking/stderr.log")),
                        "ddp_train.py:121",
                        "ddp_train.py:82",
                        "blocking",
                        "the blocking run shows it at ddp_train.py:82 in forward",
                        "The launcher (torchrun) reported ChildFailedError: its traceback is context, not the fault."),
                new Row(
                        "memcheck with the caching allocator on: small accesses were not checkable",
                        d -> new Phases(
                                List.of(Corpus.file("near-oob/memcheck-caching-allocator.log")),
                                null,
                                null,
                                null,
                                true),
                        null,
                        null,
                        null,
                        "No fault located.",
                        "memcheck ran with PyTorch's caching allocator on"),
                new Row(
                        "a memory curve is a note",
                        d -> new Phases(List.of(), null, null, Corpus.file("curves/leak.nvidia-smi.csv"), null),
                        null,
                        null,
                        null,
                        "No fault located.",
                        "GPU memory (default): growing"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void readsThePhasesAgainstEachOther(Row row) {
        Phases p = row.phases().apply(dir);
        Map<String, Path> jobLogs = new LinkedHashMap<>();
        if (p.async() != null) {
            jobLogs.put("async", p.async());
        }
        if (p.blocking() != null) {
            jobLogs.put("blocking", p.blocking());
        }
        Analysis parsed = new Analyzer()
                .analyze(new AnalysisInput(
                        p.sanitizer().stream()
                                .map(f -> new SanitizerInput(f, false, null))
                                .toList(),
                        jobLogs,
                        p.memoryCsv(),
                        null,
                        p.cachingAllocator(),
                        GatePolicy.defaults()));

        Diagnosis d = new Diagnoser()
                .diagnose(
                        parsed.runs(),
                        parsed.failures().get("async"),
                        parsed.failures().get("blocking"),
                        parsed.curves(),
                        parsed.cachingAllocator(),
                        parsed.probe());

        assertThat(line(d.reportedAt())).as("reported at").isEqualTo(row.reportedAt());
        assertThat(line(d.faultAt())).as("fault at").isEqualTo(row.faultAt());
        assertThat(d.faultEvidence()).as("evidence").isEqualTo(row.evidence());
        assertThat(d.summary()).contains(row.summary());
        if (row.note() != null) {
            assertThat(d.notes()).anyMatch(n -> n.contains(row.note()));
        }
    }

    private static String line(SourceLocation l) {
        return l == null ? null : l.baseName() + ":" + l.line();
    }
}
