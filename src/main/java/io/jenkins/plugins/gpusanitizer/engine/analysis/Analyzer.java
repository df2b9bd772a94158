package io.jenkins.plugins.gpusanitizer.engine.analysis;

import io.jenkins.plugins.gpusanitizer.engine.diagnosis.Diagnoser;
import io.jenkins.plugins.gpusanitizer.engine.diagnosis.Diagnosis;
import io.jenkins.plugins.gpusanitizer.engine.diagnosis.MemoryCurve;
import io.jenkins.plugins.gpusanitizer.engine.diagnosis.MemoryCurveAnalyzer;
import io.jenkins.plugins.gpusanitizer.engine.findings.Defect;
import io.jenkins.plugins.gpusanitizer.engine.findings.DefectGrouper;
import io.jenkins.plugins.gpusanitizer.engine.findings.RuntimeKernels;
import io.jenkins.plugins.gpusanitizer.engine.findings.SanitizerRun;
import io.jenkins.plugins.gpusanitizer.engine.findings.SuppressionRule;
import io.jenkins.plugins.gpusanitizer.engine.findings.UncachedCaptureRule;
import io.jenkins.plugins.gpusanitizer.engine.gate.Gate;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaFailure;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.GeneratedCode;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.TracebackParser;
import io.jenkins.plugins.gpusanitizer.engine.parse.memory.MemoryCsvParser;
import io.jenkins.plugins.gpusanitizer.engine.parse.memory.MemorySamples;
import io.jenkins.plugins.gpusanitizer.engine.parse.text.SanitizerTextParser;
import io.jenkins.plugins.gpusanitizer.engine.parse.xml.SanitizerXmlParser;
import io.jenkins.plugins.gpusanitizer.engine.probe.MemoryVerdict;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeEvidence;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeFindings;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeLog;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * Reads every input, groups, diagnoses and gates. Each sanitizer file is streamed into its own
 * grouper, so memory depends on distinct defects, not on file size. When a text log and an XML of the
 * same tool are both given they are one run: the text's summary and status, the XML's records (full
 * paths) unless the XML is cut short, in which case the text's records are used.
 */
public final class Analyzer {
    private final SanitizerTextParser textParser = new SanitizerTextParser();
    private final SanitizerXmlParser xmlParser = new SanitizerXmlParser();
    private final TracebackParser tracebackParser = new TracebackParser();
    private final MemoryCsvParser csvParser = new MemoryCsvParser();

    /** @throws io.jenkins.plugins.gpusanitizer.engine.parse.InputException for unreadable or malformed input */
    public Analysis analyze(AnalysisInput in) {
        GatePolicy policy = in.policy();
        List<String> inputs = new ArrayList<>();
        List<String> inputErrors = new ArrayList<>();
        List<SanitizerRun> runs = sanitizerRuns(in, inputs, inputErrors);
        Map<String, CudaFailure> failures = jobFailures(in, inputs, inputErrors);
        List<MemoryCurve> curves = new ArrayList<>();
        List<Reason> notes = new ArrayList<>();
        // the probe's evidence explains, it never judges: its problems are notes, not input errors
        List<ProbeLog> probeLogs = probeLogs(in, inputs);
        ProbeLog regressionProbe = probeLogs.stream()
                .filter(l -> "regression".equals(l.phase()))
                .findFirst()
                .orElse(null);
        MemoryVerdict memoryVerdict = memoryCurves(in, curves, inputs, notes, inputErrors, regressionProbe);
        WorkPaths paths = in.paths();
        ProbeFindings probe = ProbeEvidence.of(probeLogs, memoryVerdict, paths);
        Diagnosis diagnosis = new Diagnoser(paths)
                .diagnose(runs, failures.get("async"), failures.get("blocking"), curves, in.cachingAllocator(), probe);
        Gate.Result gate = new Gate(policy, paths)
                .evaluate(new Gate.Input(runs, failures, curves, in.cachingAllocator(), inputErrors, notes));
        return new Analysis(
                runs, failures, curves, in.cachingAllocator(), diagnosis, gate, inputs, inputErrors, probe, paths);
    }

    /**
     * An input the user named must be readable (analyze); one the runner's tools wrote becomes an input error and the
     * rest is still analysed (lenient): nothing may be lost.
     */
    private static void unreadable(AnalysisInput in, InputException e, List<String> inputErrors) {
        if (!in.lenient()) {
            throw e;
        }
        inputErrors.add(e.getMessage());
    }

    /** Every sanitizer output parsed, and each tool's text and XML runs paired into one run. */
    private List<SanitizerRun> sanitizerRuns(AnalysisInput in, List<String> inputs, List<String> inputErrors) {
        Map<Tool, List<Parsed>> texts = new EnumMap<>(Tool.class);
        Map<Tool, List<Parsed>> xmls = new EnumMap<>(Tool.class);
        for (SanitizerInput s : in.sanitizer()) {
            inputs.add(s.file().toString());
            try {
                for (Parsed p : parse(s, in)) {
                    (s.xml() ? xmls : texts)
                            .computeIfAbsent(p.output().tool(), t -> new ArrayList<>())
                            .add(p);
                }
            } catch (InputException e) {
                unreadable(in, e, inputErrors);
            }
        }
        List<SanitizerRun> runs = new ArrayList<>();
        for (Tool tool : Tool.values()) {
            List<Parsed> t = texts.getOrDefault(tool, List.of());
            List<Parsed> x = xmls.getOrDefault(tool, List.of());
            for (int i = 0; i < Math.max(t.size(), x.size()); i++) {
                runs.add(pair(
                        tool, i < t.size() ? t.get(i) : null, i < x.size() ? x.get(i) : null, in.policy(), in.paths()));
            }
        }
        return runs;
    }

    /** One sanitizer file; a text log may hold several tool runs: each is judged on its own, with its own grouper. */
    private List<Parsed> parse(SanitizerInput s, AnalysisInput in) {
        GatePolicy policy = in.policy();
        List<DefectGrouper> groupers = new ArrayList<>();
        IntFunction<Consumer<SanitizerRecord>> grouperOf = i -> {
            while (groupers.size() <= i) {
                groupers.add(new DefectGrouper(policy.frameClassifier(), policy.suppressions()));
            }
            return groupers.get(i);
        };
        List<SanitizerOutput> outs = s.xml()
                ? List.of(xmlParser.parse(s.file(), s.tool(), grouperOf.apply(0)))
                : textParser.parseRuns(s.file(), s.tool(), grouperOf);
        List<Parsed> parsed = new ArrayList<>();
        for (int i = 0; i < outs.size(); i++) {
            parsed.add(new Parsed(
                    outs.get(i),
                    (DefectGrouper) grouperOf.apply(i),
                    s.file(),
                    s.cachingAllocator() != null ? s.cachingAllocator() : in.cachingAllocator()));
        }
        return parsed;
    }

    /** The job's failure in each phase, from its stderr (and what lies beside it in a run directory). */
    private Map<String, CudaFailure> jobFailures(AnalysisInput in, List<String> inputs, List<String> inputErrors) {
        Map<String, CudaFailure> failures = new LinkedHashMap<>();
        in.jobLogs().forEach((phase, file) -> {
            inputs.add(file.toString());
            try {
                failures.put(phase, readJobLog(file, inputs));
            } catch (InputException e) {
                unreadable(in, e, inputErrors);
            }
        });
        return failures;
    }

    /** Judges each sampled curve; returns the first one's verdict, the curve the report shows the probe's sites beside. */
    private MemoryVerdict memoryCurves(
            AnalysisInput in,
            List<MemoryCurve> curves,
            List<String> inputs,
            List<Reason> notes,
            List<String> inputErrors,
            ProbeLog regressionProbe) {
        MemoryVerdict memoryVerdict = MemoryVerdict.NONE;
        for (var c : new Object[][] {{in.memoryCsv(), "default"}, {in.memoryCsvExpandable(), "expandable_segments"}}) {
            try {
                MemoryVerdict v = addCurve(
                        (Path) c[0],
                        (String) c[1],
                        new MemoryCurveAnalyzer(in.policy().memoryPolicy()),
                        new CurveContext(in.processMemory(), regressionProbe, curves, inputs, notes));
                if (v != null && memoryVerdict == MemoryVerdict.NONE) {
                    memoryVerdict = v;
                }
            } catch (InputException e) {
                unreadable(in, e, inputErrors);
            }
        }
        return memoryVerdict;
    }

    /** The probe's logs, read before the memory curves: the regression run's allocator figures are a curve's evidence. */
    private static List<ProbeLog> probeLogs(AnalysisInput in, List<String> inputs) {
        List<ProbeLog> probeLogs = new ArrayList<>();
        in.probeLogs().forEach((phase, file) -> {
            probeLogs.add(new ProbeParser().parse(phase, file));
            if (java.nio.file.Files.isRegularFile(file)) {
                inputs.add(file.toString());
            }
        });
        return probeLogs;
    }

    /**
     * A phase's stderr; in a run directory (a {@code stderr.log}) also the {@code stdout.log} beside it,
     * for CUDA errors the job printed there, and the Inductor/Triton code the runner copied beside it,
     * for the model line.
     */
    private CudaFailure readJobLog(Path stderr, List<String> inputs) {
        CudaFailure f = tracebackParser.parse(stderr);
        Path name = stderr.getFileName();
        if (name == null || !RunLayout.STDERR.equals(name.toString())) {
            return f;
        }
        Path stdout = stderr.resolveSibling(RunLayout.STDOUT);
        if (Files.isRegularFile(stdout)) {
            try {
                f = f.withMessages(tracebackParser.messages(stdout), TracebackParser.MAX_MESSAGES);
                inputs.add(stdout.toString());
            } catch (InputException e) {
                // stdout only adds messages; stderr was read
            }
        }
        Path generated = stderr.resolveSibling(GeneratedCode.DIR);
        if (Files.isDirectory(generated)) {
            SourceLocation model = new GeneratedCode().modelLine(generated, f);
            if (model != null) {
                f = f.withModelLine(model);
            }
        }
        return f;
    }

    /** Where the curves go, and what else their choice reads (the per-process figures, the probe's allocator). */
    private record CurveContext(
            ProcessMemoryInput processMemory,
            ProbeLog regressionProbe,
            List<MemoryCurve> curves,
            List<String> inputs,
            List<Reason> notes) {}

    /** Judges one curve; returns its verdict for the probe's allocation sites, or null without a CSV. */
    private MemoryVerdict addCurve(Path csv, String label, MemoryCurveAnalyzer curveAnalyzer, CurveContext context) {
        if (csv == null) {
            return null;
        }
        List<String> inputs = context.inputs();
        List<Reason> notes = context.notes();
        MemoryCsvParser.Result r = csvParser.parse(csv);
        // the job's GPU is the one whose memory moved most; the sampler may list idle GPUs too
        MemorySamples busiest = r.byGpu().values().stream()
                .max(Comparator.comparingDouble(s -> s.maxUsed() - (s.size() == 0 ? 0 : s.used(0))))
                .orElseThrow();
        RegressionCurve.Choice choice =
                RegressionCurve.choose(busiest, csv, context.processMemory(), context.regressionProbe());
        MemoryCurve curve = choice.judge(curveAnalyzer, label);
        context.curves().add(curve);
        inputs.add(csv.toString());
        if (choice.basis() == MemoryCurve.Basis.PER_PROCESS) {
            inputs.add(choice.source());
            inputs.add(context.processMemory().pids().toString());
        }
        notes.addAll(choice.notes());
        if (r.badLines() > 0) {
            notes.add(Reason.warning(
                    "memory-samples",
                    csv + ": " + r.badLines() + " line(s) skipped: malformed, or an impossible memory.used (NaN, "
                            + "infinite, negative, beyond the GPU's memory)"));
        }
        if (r.reordered()) {
            notes.add(Reason.warning(
                    "memory-samples", csv + ": the rows were not in time order; the curve is judged in time order"));
        }
        if (r.byGpu().size() > 1 && curve.shape() == MemoryCurve.Shape.UNKNOWN) {
            int rows = r.byGpu().values().stream().mapToInt(MemorySamples::size).sum();
            notes.add(Reason.warning(
                    "memory-samples",
                    csv + ": " + rows + " samples spread over " + r.byGpu().size() + " GPU indices; GPU "
                            + busiest.gpu() + ", the one judged, has " + busiest.size()
                            + ": its memory curve cannot be judged"));
        }
        return verdict(curve, choice.samples().startWallMs());
    }

    static MemoryVerdict verdict(MemoryCurve c, long startWallMs) {
        String words =
                switch (c.shape()) {
                    case GROWING -> "growing";
                    case STABLE -> "stable";
                    // "too short to judge: 8.5 s after ..." -> "too short to judge"
                    case UNKNOWN -> c.description().split("[:(]", 2)[0].trim();
                };
        double t0 = startWallMs > 0 ? startWallMs / 1000.0 : Double.NaN;
        return new MemoryVerdict(c.shape().id(), words, t0 + c.judgedFromSeconds(), t0 + c.judgedToSeconds());
    }

    /** The rules of one run: capture errors are the gate's own doing only in a run without the caching allocator. */
    private static List<SuppressionRule> rules(GatePolicy policy, Boolean cachingAllocator) {
        if (!Boolean.FALSE.equals(cachingAllocator)) {
            return policy.suppressions();
        }
        List<SuppressionRule> rules = new ArrayList<>(policy.suppressions());
        rules.add(new UncachedCaptureRule());
        return rules;
    }

    private static SanitizerRun pair(Tool tool, Parsed text, Parsed xml, GatePolicy policy, WorkPaths paths) {
        Parsed records;
        if (xml != null
                && (text == null
                        || xml.output.complete() && xml.output.recordsParsed() >= text.output.recordsParsed())) {
            records = xml;
        } else {
            records = text;
        }
        Path phaseDir = records.file.toAbsolutePath().getParent();
        List<Defect> defects = RuntimeKernels.withSource(
                suppress(records.grouper.defects(), rules(policy, records.cachingAllocator)),
                phaseDir == null ? null : phaseDir.resolve(RuntimeKernels.CUPY_CACHE_DIR));
        defects = Buffers.named(
                defects, text == null || text == records ? List.of() : text.grouper.defects(), phaseDir, paths);
        return new SanitizerRun(
                tool,
                text == null ? null : text.output,
                xml == null ? null : xml.output,
                records.output.format(),
                defects,
                records.grouper.overflowRecords(),
                records.grouper.overflowUnsuppressedRecords(),
                records.cachingAllocator);
    }

    public static List<Defect> suppress(List<Defect> defects, List<SuppressionRule> rules) {
        List<Defect> out = new ArrayList<>(defects.size());
        for (Defect d : defects) {
            Defect result = d;
            for (SuppressionRule rule : rules) {
                if (rule.matches(d, defects)) {
                    result = d.withSuppression(new Defect.Suppression(rule.id(), rule.reason()));
                    break;
                }
            }
            out.add(result);
        }
        return out;
    }

    private record Parsed(SanitizerOutput output, DefectGrouper grouper, Path file, Boolean cachingAllocator) {}
}
