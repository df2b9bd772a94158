package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.analysis.Analysis;
import io.jenkins.plugins.gpusanitizer.engine.analysis.AnalysisInput;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.analysis.ProcessMemoryInput;
import io.jenkins.plugins.gpusanitizer.engine.analysis.SanitizerInput;
import io.jenkins.plugins.gpusanitizer.engine.findings.SanitizerRun;
import io.jenkins.plugins.gpusanitizer.engine.gate.Gate;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.gate.ProofOfWork;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaErrorClass;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.TracebackParser;
import io.jenkins.plugins.gpusanitizer.engine.report.CoverageReach;
import io.jenkins.plugins.gpusanitizer.engine.report.OutputFile;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.engine.report.SanitizerPhaseStatus;
import io.jenkins.plugins.gpusanitizer.engine.report.WorkJson;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.EnvironmentCheck;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.WorkspaceManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A run directory (its layout and file names: {@link RunLayout}): the phases' folders for the runner that
 * writes them, and reading a finished run back for the analysis (the runner's report and {@code analyze
 * --run-dir} both come from {@link #analyze}).
 */
public final class RunDirectory {
    private final Path root;

    public RunDirectory(Path root) {
        this.root = root;
    }

    public Path root() {
        return root;
    }

    public Path env() {
        return root.resolve("env");
    }

    public static String sanitizerDir(Tool tool) {
        return "sanitizer-" + tool.id();
    }

    /** The tool's rerun with PyTorch's caching allocator kept, after the uncached one broke a CUDA graph capture. */
    public static String cachedSanitizerDir(Tool tool) {
        return sanitizerDir(tool) + CACHED_SUFFIX;
    }

    private static final String CACHED_SUFFIX = "-cached";

    static boolean isCachedRerun(String phaseName) {
        return phaseName.startsWith("sanitizer-") && phaseName.endsWith(CACHED_SUFFIX);
    }

    /** {@code sanitizer-memcheck} and {@code sanitizer-memcheck-cached} → {@code memcheck}. */
    static String toolOf(String phaseName) {
        String t = phaseName.substring("sanitizer-".length());
        return t.endsWith(CACHED_SUFFIX) ? t.substring(0, t.length() - CACHED_SUFFIX.length()) : t;
    }

    public Path dir(String name) {
        return root.resolve(name);
    }

    public RunRecord readRecord() {
        Path f = root.resolve(RunLayout.RUN_JSON);
        if (!Files.isRegularFile(f)) {
            throw new InputException(f, "no such file: not a gpu-sanitize run directory");
        }
        try {
            return ReportJson.mapper().readValue(f.toFile(), RunRecord.class);
        } catch (IOException e) {
            throw new InputException(
                    f, "unreadable run record: " + e.getMessage().split("\n", 2)[0]);
        }
    }

    void writeRecord(RunRecord r) throws IOException {
        OutputFile.write(
                root.resolve(RunLayout.RUN_JSON), out -> ReportJson.mapper().writeValue(out, r));
    }

    /**
     * Analyses this directory as {@code gpu-sanitize run} did: its outputs, then the reasons the phases'
     * recorded outcomes give ({@link PhaseReasons}), the proof of work ({@link ProofOfWork}) and {@code runReasons}
     * (what only the runner saw), in one verdict.
     */
    public Analysis analyze(RunRecord record, GatePolicy policy, List<Reason> runReasons) {
        return judge(record, policy, runReasons).analysis();
    }

    /** The analysis and what each run did ({@link RunWork}, read once), as the report shows them. */
    public record Judged(Analysis analysis, List<WorkJson> work) {}

    /**
     * The runner's report and {@code analyze --run-dir} both come from here: the analysis of {@link #analyze} and the
     * report's "what each run did", from one reading of the runs' probe files.
     */
    public Judged judge(RunRecord record, GatePolicy policy, List<Reason> runReasons) {
        Analysis analysis = new Analyzer().analyze(analysisInput(record, policy, true));
        Map<PhaseJson, CoverageReach> reaches = CoverageReasons.reaches(record, this, targetDiedIn(analysis));
        List<RunWorkReader.Read> work = RunWorkReader.read(record, this, analysis, reaches);
        List<Reason> reasons = new ArrayList<>(runReasons);
        reasons.addAll(PhaseReasons.of(record, this, analysis));
        reasons.addAll(
                new ProofOfWork(work.stream().map(RunWorkReader.Read::work).toList()).reasons());
        reasons.addAll(DeliberateStop.uncheckedPastTheStop(record, analysis, policy));
        reasons.addAll(CoverageReasons.of(reaches));
        reasons.addAll(SanitizerOnlyDeath.graded(
                record,
                DeliberateStop.expected(record, analysis.gate().reasons()),
                sanitizerOutOfMemory(record),
                CoverageReasons.pastTheirStop(reaches)));
        Gate.Result gate = new Gate.Result(Gate.verdictOf(reasons), Gate.ordered(reasons));
        return new Judged(analysis.withGate(gate), RunWorkReader.json(work));
    }

    /**
     * The sanitizer runs (their folders' names) whose tool output said that its target returned an error or died, as
     * the analysis parsed it; none without an analysis.
     */
    static Set<String> targetDiedIn(Analysis analysis) {
        Set<String> out = new LinkedHashSet<>();
        if (analysis != null) {
            for (SanitizerRun r : analysis.runs()) {
                SanitizerOutput o = r.primary();
                if (o != null && (o.targetReturnedError() || o.appCrashed())) {
                    out.add(SanitizerPhaseStatus.phaseOf(o.source()));
                }
            }
        }
        return out;
    }

    /** What the analyzer reads from this directory: only outputs that exist and are not empty. */
    public AnalysisInput analysisInput(RunRecord record, GatePolicy policy, boolean lenient) {
        List<SanitizerInput> sanitizer = new ArrayList<>();
        Boolean cachingAllocator = record == null ? null : record.cachingAllocator();
        for (Tool tool : Tool.values()) {
            Path d = dir(sanitizerDir(tool));
            Path cached = dir(cachedSanitizerDir(tool));
            if (!nonEmpty(cached.resolve(RunLayout.SANITIZER_LOG))) {
                addRun(sanitizer, d, tool, null, true);
                continue;
            }
            // the uncached run broke the job's CUDA graph capture: both are judged, the first for what it saw before
            // (small out-of-bounds accesses the rerun cannot see), the rerun with the cache kept for the rest
            cachingAllocator = Boolean.TRUE;
            boolean firstHasXml = addRun(sanitizer, d, tool, Boolean.FALSE, true);
            // text and XML of one tool pair up in order: without the first run's XML the rerun's would pair with it
            addRun(sanitizer, cached, tool, Boolean.TRUE, firstHasXml);
        }
        Map<String, Path> logs = new LinkedHashMap<>();
        if (Files.exists(dir(Phase.REGRESSION.id()).resolve(RunLayout.STDERR))) {
            logs.put("async", dir(Phase.REGRESSION.id()).resolve(RunLayout.STDERR));
        }
        // a blocking run cut short on purpose ends in the traceback of that stop (torchrun's SignalException), not the
        // job's
        if (Files.exists(dir(Phase.BLOCKING.id()).resolve(RunLayout.STDERR)) && !blockingCut(record)) {
            logs.put("blocking", dir(Phase.BLOCKING.id()).resolve(RunLayout.STDERR));
        }
        for (Path kept : crashedBeforeCheck(record)) {
            logs.put(String.valueOf(kept.getFileName()), kept.resolve(RunLayout.STDERR));
        }
        Path regression = dir(Phase.REGRESSION.id());
        Path csv = regression.resolve(RunLayout.MEMORY_CSV);
        Path memory = hasSamples(csv) ? csv : null;
        boolean expandable = record != null && record.expandableSegments();
        return new AnalysisInput(
                sanitizer,
                logs,
                expandable ? null : memory,
                expandable ? memory : null,
                cachingAllocator,
                policy,
                lenient,
                probeLogs(record),
                new ProcessMemoryInput(
                        regression.resolve(RunLayout.MEMORY_APPS_CSV),
                        regression.resolve(RunLayout.GPU_PIDS),
                        regressionRanBeside(record)),
                record == null || record.execution() == null
                        ? null
                        : record.execution().workDirectory(),
                workspaceCopies(record));
    }

    /** How the report names the job's files ({@link WorkPaths}): under the working directory, and in the runs' copies. */
    public WorkPaths paths(RunRecord record) {
        return WorkPaths.of(
                record == null || record.execution() == null
                        ? null
                        : record.execution().workDirectory(),
                workspaceCopies(record));
    }

    /**
     * The folder of the runs' copies of the working directory, as the runs saw it (the manifests' paths, which are
     * the job's on the machine that ran it), or null when no run worked in a copy.
     */
    String workspaceCopies(RunRecord record) {
        if (record == null || record.execution() == null || record.execution().phases() == null) {
            return null;
        }
        for (PhaseJson p : record.execution().phases()) {
            WorkspaceManifest m = p == null || p.name() == null ? null : WorkspaceManifest.read(dir(p.name()), root);
            String copies = copiesFolder(m, record.execution().workDirectory());
            if (copies != null) {
                return copies;
            }
        }
        return null;
    }

    /** The runs' copies as its manifest names them ({@link WorkspaceManifest#copiesPattern}); null without one. */
    static String copiesFolder(WorkspaceManifest m, String workDirectory) {
        return m == null ? null : m.copiesPattern(workDirectory);
    }

    /** Whether the record says the regression run shared its card with another phase (false when it does not say). */
    static boolean regressionRanBeside(RunRecord record) {
        return record != null
                && record.execution() != null
                && record.execution().phases() != null
                && record.execution().phases().stream()
                        .anyMatch(p -> p != null && Phase.REGRESSION.id().equals(p.name()) && p.ranBeside());
    }

    /** The sticky GPU faults: a crash the job cannot cause by being stopped, nor by sharing the card. */
    static final Set<CudaErrorClass> CRASHES = EnumSet.of(
            CudaErrorClass.ILLEGAL_ADDRESS,
            CudaErrorClass.DEVICE_ASSERT,
            CudaErrorClass.MISALIGNED_ADDRESS,
            CudaErrorClass.LAUNCH_FAILURE,
            CudaErrorClass.ILLEGAL_INSTRUCTION);

    /**
     * Blocking runs set aside because the environment check's answer changed their settings (a job whose Python the
     * check cannot see, a torch with device-side assertions) that crashed: they ran the job all the same, and an
     * intermittent fault may not come again in the run that replaced them. Their stop by the runner (torchrun's
     * SignalException) or an out of memory beside the sanitizer is not the job's, so only a GPU crash is judged;
     * and only on an environment the check found usable (on an unusable one nothing of a run counts: the driver or
     * torch may be what crashed).
     */
    private List<Path> crashedBeforeCheck(RunRecord record) {
        boolean usable = record != null
                && record.execution() != null
                && record.execution().environment() != null
                && !"error".equals(record.execution().environment().compatibility());
        if (!usable) {
            return List.of();
        }
        String prefix = Phase.BLOCKING.id() + "-" + EnvironmentCheck.SET_ASIDE;
        List<Path> crashed = new ArrayList<>();
        try (var listing = Files.list(root)) {
            for (Path d : listing.sorted().toList()) {
                String name = String.valueOf(d.getFileName()); // an entry of a listing: never the root
                Path stderr = d.resolve(RunLayout.STDERR);
                if (name.startsWith(prefix) && Files.isRegularFile(stderr) && crashed(stderr)) {
                    crashed.add(d);
                }
            }
        } catch (IOException e) {
            // the directory cannot be listed: the rest of the analysis says what it can
        }
        return crashed;
    }

    private static boolean crashed(Path stderr) {
        try {
            return CRASHES.contains(new TracebackParser().parse(stderr).errorClass());
        } catch (InputException e) {
            return true; // unreadable: judged, so the analysis says so rather than passing over it
        }
    }

    /** A sanitizer run's text log and XML, those that are not empty; true when its XML was added. */
    private static boolean addRun(
            List<SanitizerInput> sanitizer, Path d, Tool tool, Boolean cachingAllocator, boolean withXml) {
        if (nonEmpty(d.resolve(RunLayout.SANITIZER_LOG))) {
            sanitizer.add(new SanitizerInput(d.resolve(RunLayout.SANITIZER_LOG), false, tool, cachingAllocator));
        }
        if (withXml && nonEmpty(d.resolve(RunLayout.SANITIZER_XML))) {
            sanitizer.add(new SanitizerInput(d.resolve(RunLayout.SANITIZER_XML), true, tool, cachingAllocator));
            return true;
        }
        return false;
    }

    /** Each phase the probe was on in (its output file, or the variable in run.json when it wrote none). */
    private Map<String, Path> probeLogs(RunRecord record) {
        Map<String, Path> out = new LinkedHashMap<>();
        for (Phase p : List.of(Phase.BLOCKING, Phase.REGRESSION)) {
            Path f = dir(p.id()).resolve(RunLayout.PROBE_JSONL);
            boolean on = record != null
                    && record.execution() != null
                    && record.execution().phases() != null
                    && record.execution().phases().stream()
                            .anyMatch(x -> p.id().equals(x.name())
                                    && x.environment() != null
                                    && x.environment().containsKey(ProbeInstaller.MODE));
            if (on || Files.isRegularFile(f)) {
                out.put(p.id(), f);
            }
        }
        return out;
    }

    /**
     * Moves a phase's folder out of the way as {@code NAME-SUFFIX} (a second one of that name gets {@code -2}, ...):
     * a run that does not count, or that runs again, keeps its files as evidence.
     */
    public static Path setAside(Path phaseDir, String suffix) throws IOException {
        Path kept = phaseDir.resolveSibling(phaseDir.getFileName() + "-" + suffix);
        for (int n = 2; Files.exists(kept); n++) {
            kept = phaseDir.resolveSibling(phaseDir.getFileName() + "-" + suffix + "-" + n);
        }
        Files.move(phaseDir, kept);
        return kept;
    }

    /** Whether the record says the blocking run was cut when the sanitizer run beside it ended clean. */
    static boolean blockingCut(RunRecord record) {
        return record != null
                && record.execution() != null
                && record.execution().phases() != null
                && record.execution().phases().stream()
                        .anyMatch(p -> p != null
                                && Phase.BLOCKING.id().equals(p.name())
                                && BlockingPhase.wasCut(p.status(), p.note()));
    }

    /** What a failed phase could not take beside another run (a port in use), or null: {@link HostContention}. */
    String contended(PhaseResult result) {
        if (!PhaseResult.FAILED.equals(result.status())) {
            return null;
        }
        Path phase = dir(result.directory());
        String why = HostContention.why(phase.resolve(RunLayout.STDERR));
        return why != null
                ? why
                : HostContention.silentBeforeTheJob(
                        phase.resolve(RunLayout.STDERR), phase.resolve(RunLayout.PROBE_JSONL), result.exitCode());
    }

    /** The sanitizer run's own out-of-memory line from its stderr (the job's words), or null when it had none. */
    String sanitizerOutOfMemory(RunRecord record) {
        if (record == null || record.execution() == null || record.execution().phases() == null) {
            return null;
        }
        for (PhaseJson p : record.execution().phases()) {
            if (p != null
                    && p.name() != null
                    && p.name().startsWith("sanitizer-")
                    && !p.name().endsWith("-shared-card")) {
                Path stderr = dir(p.name()).resolve(RunLayout.STDERR);
                if (outOfMemory(stderr)) {
                    try (var lines = Files.lines(stderr, java.nio.charset.StandardCharsets.ISO_8859_1)) {
                        return lines.filter(CudaErrorClass::isOutOfMemory)
                                .findFirst()
                                .map(l -> l.length() > 240 ? l.substring(0, 240) + "..." : l)
                                .orElse(null);
                    } catch (IOException | java.io.UncheckedIOException e) {
                        return null;
                    }
                }
            }
        }
        return null;
    }

    /** Whether a phase failed of an out of memory (on a shared card: the sharing, not the job). */
    boolean ranOutOfMemory(PhaseResult result) {
        return PhaseResult.FAILED.equals(result.status())
                && outOfMemory(dir(result.directory()).resolve(RunLayout.STDERR));
    }

    /** Whether a phase's stderr shows PyTorch's out of memory (on a shared card: the sharing, not the job). */
    static boolean outOfMemory(Path stderr) {
        try (var lines = Files.lines(stderr, java.nio.charset.StandardCharsets.ISO_8859_1)) {
            return lines.anyMatch(CudaErrorClass::isOutOfMemory);
        } catch (IOException | java.io.UncheckedIOException e) {
            return false;
        }
    }

    static boolean nonEmpty(Path p) {
        try {
            return Files.isRegularFile(p) && Files.size(p) > 0;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean hasSamples(Path csv) {
        if (!Files.isRegularFile(csv)) {
            return false;
        }
        try (var lines = Files.lines(csv)) {
            return lines.limit(3).count() >= 2;
        } catch (IOException | java.io.UncheckedIOException e) {
            return false;
        }
    }
}
