package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.analysis.Analysis;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.GeneratedCode;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.TracebackParser;
import io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport;
import io.jenkins.plugins.gpusanitizer.engine.report.ReferenceComparison;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportMapper;
import io.jenkins.plugins.gpusanitizer.engine.report.SanitizerPhaseStatus;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * {@code gpu-sanitize run}: probes the machine, runs the planned phases, analyses what they wrote
 * and always leaves a report beside the raw outputs, whatever happened on the way (a phase that
 * crashed, timed out or was aborted, a tool that is missing).
 */
public final class Runner {
    /** compute-sanitizer's exit code when it found errors; distinct from the job's own codes. */
    public static final int SANITIZER_ERROR_EXIT = SanitizerPhaseStatus.ERROR_EXITCODE;

    private static final List<String> DEBUG_VARIABLES = List.of(
            "CUDA_LAUNCH_BLOCKING",
            "PYTORCH_NO_CUDA_MEMORY_CACHING",
            "PYTORCH_USE_CUDA_DSA",
            "TORCH_USE_CUDA_DSA",
            "PYTORCH_CUDA_DSA_STACKTRACING");

    private final RunSpec spec;
    private final Map<String, String> baseEnv;
    private final ProgressListener progress;
    private final RunDirectory dir;
    private final List<PhaseResult> results = java.util.Collections.synchronizedList(new ArrayList<>());
    private final List<Reason> runReasons = new ArrayList<>();
    private final String runId = UUID.randomUUID().toString();
    private Environment environment;
    private volatile Double referenceSeconds;
    private String referenceSource;
    private Double regressionTarget;
    private Report.ThroughputJson throughput;

    private final Secrets secrets;
    private final ProbeInstaller probe;

    public Runner(RunSpec spec, Map<String, String> baseEnv, ProgressListener progress) {
        this.spec = spec;
        this.baseEnv = new LinkedHashMap<>(baseEnv);
        Map<String, String> all = new LinkedHashMap<>(baseEnv);
        all.putAll(spec.extraEnv());
        this.secrets = new Secrets(all);
        this.progress = line -> progress.line(secrets.mask(line));
        this.dir = new RunDirectory(Path.of(spec.outDir()).toAbsolutePath());
        this.probe = new ProbeInstaller(dir.root());
    }

    public RunDirectory directory() {
        return dir;
    }

    /**
     * Runs everything and returns the report (also written to report.json/html in the run directory).
     *
     * @throws RunException before anything ran, for a spec that cannot run or an unusable run directory
     */
    public Report run() {
        spec.validate();
        if (spec.compareWith() != null) {
            // an unusable reference is found before the phases run, not after them
            try {
                ReportJson.read(Path.of(spec.compareWith()));
            } catch (InputException e) {
                throw new RunException("--reference: " + e.getMessage());
            }
        }
        prepareDirectory();
        GatePolicy policy = spec.policy();
        boolean aborted = false;
        try {
            writeRecord(false);
            ToolLocator tools = ToolLocator.fromEnvironment(baseEnv);
            try {
                environment = new EnvironmentProbe(tools, baseEnv, dir.env())
                        .probe(spec, EnvironmentProbe.needsSanitizer(spec));
                progress.line("[gpu-sanitize] environment: driver " + environment.driverVersion() + " (CUDA "
                        + environment.driverCudaVersion()
                        + "), " + environment.gpus().size() + " GPU(s), torch " + environment.torchVersion() + " (CUDA "
                        + environment.torchCuda()
                        + ")"
                        + (environment.computeSanitizerVersion() == null
                                ? ""
                                : ", compute-sanitizer " + environment.computeSanitizerVersion())
                        + ": " + environment.compatibility());
                environmentReasons();
            } catch (RunException e) {
                runReasons.add(Reason.error("environment", e.getMessage()));
                progress.line("[gpu-sanitize] " + e.getMessage());
            }
            if (environment != null && !"error".equals(environment.compatibility())) {
                reference();
                aborted = runPhases(tools);
            } else if (environment != null) {
                progress.line("[gpu-sanitize] environment incompatible: no phase run");
            }
        } catch (IOException | RuntimeException e) {
            runReasons.add(Reason.error("runner", "the runner failed: " + e));
        } finally {
            try {
                writeRecord(true);
            } catch (IOException e) {
                runReasons.add(Reason.error("runner", "cannot write " + RunDirectory.RUN_JSON + ": " + e.getMessage()));
            }
        }
        Report report = report(policy);
        if (aborted) {
            Thread.currentThread().interrupt();
        }
        return report;
    }

    private void prepareDirectory() {
        Path root = dir.root();
        try {
            if (Files.exists(root)) {
                try (var s = Files.list(root)) {
                    if (s.findAny().isPresent()) {
                        throw new RunException("run directory " + root
                                + " is not empty: give a new --out (run directories are never overwritten)");
                    }
                }
            }
            Files.createDirectories(dir.env());
        } catch (IOException e) {
            throw new RunException("cannot create run directory " + root + ": " + e.getMessage());
        }
    }

    private void environmentReasons() {
        for (String m : environment.messages()) {
            if ("error".equals(environment.compatibility())
                    && (m.contains("supports up to") || m.contains("is_available() is False"))) {
                runReasons.add(Reason.error("environment", m));
            } else if (m.contains("differ in major") || m.contains("minor-version")) {
                runReasons.add(Reason.warning("environment", m));
            } else {
                runReasons.add(Reason.info("environment", m));
            }
        }
    }

    /** The reference failure time: given, from an earlier report, or later from this run's blocking phase. */
    private void reference() {
        if (spec.referenceSeconds() != null) {
            referenceSeconds = spec.referenceSeconds();
            referenceSource = "given";
        } else if (spec.referenceReport() != null) {
            try {
                Report old = ReportJson.read(Path.of(spec.referenceReport()));
                if (old.execution() != null && old.execution().referenceFailureSeconds() != null) {
                    referenceSeconds = old.execution().referenceFailureSeconds();
                    referenceSource = "report " + spec.referenceReport();
                } else {
                    runReasons.add(Reason.warning(
                            "reference", spec.referenceReport() + " records no failure time; using this run's"));
                }
            } catch (InputException e) {
                runReasons.add(Reason.warning("reference", e.getMessage()));
            }
        }
    }

    /** @return true when aborted */
    private boolean runPhases(ToolLocator tools) throws IOException {
        String gpu = spec.gpus().get(0);
        if (spec.gpus().size() > 1) {
            return runPhasesInParallel(tools);
        }
        for (Phase phase : spec.phases()) {
            if (phase == Phase.SANITIZER) {
                Path cs = Path.of(environment.computeSanitizerPath());
                for (Tool tool : spec.tools()) {
                    for (PhaseResult r : sanitizerRuns(cs, tool, gpu)) {
                        if (record(r)) {
                            return true;
                        }
                    }
                }
            } else if (phase == Phase.BLOCKING) {
                if (record(blocking(gpu))) {
                    return true;
                }
            } else if (record(regression(tools, gpu))) {
                return true;
            }
        }
        return false;
    }

    /**
     * With several GPUs the phases that do not depend on each other — each sanitizer tool's run and
     * the blocking run — run at once, one GPU each (round robin); the regression run, which needs the
     * blocking run's failure time, follows on the first GPU.
     *
     * @return true when aborted
     */
    private boolean runPhasesInParallel(ToolLocator tools) throws IOException {
        List<java.util.concurrent.Callable<List<PhaseResult>>> independent = new ArrayList<>();
        int next = 0;
        if (spec.phases().contains(Phase.SANITIZER)) {
            Path cs = Path.of(environment.computeSanitizerPath());
            for (Tool tool : spec.tools()) {
                String g = spec.gpus().get(next++ % spec.gpus().size());
                independent.add(() -> sanitizerRuns(cs, tool, g));
            }
        }
        if (spec.phases().contains(Phase.BLOCKING)) {
            String g = spec.gpus().get(next++ % spec.gpus().size());
            independent.add(() -> List.of(blocking(g)));
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(
                Math.max(1, Math.min(independent.size(), spec.gpus().size())));
        List<java.util.concurrent.Future<List<PhaseResult>>> futures = new ArrayList<>();
        independent.forEach(c -> futures.add(pool.submit(c)));
        pool.shutdown();
        boolean aborted = false;
        for (java.util.concurrent.Future<List<PhaseResult>> f : futures) {
            try {
                for (PhaseResult r : f.get()) {
                    aborted |= record(r);
                }
            } catch (InterruptedException e) {
                futures.forEach(x -> x.cancel(true)); // each phase kills its own tree and records itself as aborted
                Thread.currentThread().interrupt();
                aborted = true;
                break;
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IOException("phase failed: " + e.getCause(), e.getCause());
            }
        }
        if (aborted) {
            awaitQuietly(pool);
            return true;
        }
        if (spec.phases().contains(Phase.REGRESSION)) {
            return record(regression(tools, spec.gpus().get(0)));
        }
        return false;
    }

    private void awaitQuietly(java.util.concurrent.ExecutorService pool) {
        boolean interrupted = Thread.interrupted();
        try {
            pool.awaitTermination(
                    spec.killGraceSeconds() + spec.toolWriteGraceSeconds() + 30L,
                    java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private synchronized boolean record(PhaseResult r) throws IOException {
        results.add(r);
        writeRecord(false);
        progress.line(
                "[gpu-sanitize] " + r.name() + " " + r.status() + " after " + PhaseProcess.fmt(r.wallSeconds()) + " s"
                        + (r.exitCode() == null
                                ? ""
                                : " (exit " + r.exitCode() + (r.signal() == null ? "" : ", signal " + r.signal()) + ")")
                        + (r.name().startsWith("sanitizer")
                                ? ", " + recordsSoFar(dir.dir(r.directory()).resolve(RunDirectory.SANITIZER_LOG))
                                        + " error record(s)"
                                : "")
                        + (r.note() == null ? "" : ": " + r.note()));
        return PhaseResult.ABORTED.equals(r.status()) || Thread.currentThread().isInterrupted();
    }

    /**
     * The tool's sanitizer phase; when the uncached allocator broke the job's CUDA graph capture (see
     * {@link CaptureConflict}), memcheck runs again with the caching allocator kept, so the job is still
     * checked: less finely (small out-of-bounds accesses inside cached blocks are invisible) but not at all
     * is worse. The first run stays in the run directory as the evidence.
     */
    private List<PhaseResult> sanitizerRuns(Path cs, Tool tool, String gpu) throws IOException {
        PhaseResult first = sanitizer(cs, tool, gpu, false);
        boolean conflict = !spec.keepCachingAllocator()
                && !PhaseResult.ABORTED.equals(first.status())
                && !PhaseResult.NOT_STARTED.equals(first.status())
                && CaptureConflict.seenIn(dir.dir(first.directory()));
        if (!conflict || Thread.currentThread().isInterrupted()) {
            return List.of(first);
        }
        String rerun = RunDirectory.cachedSanitizerDir(tool);
        PhaseResult noted = first.withNote("PYTORCH_NO_CUDA_MEMORY_CACHING=1 broke the job's CUDA graph capture "
                + "(cudaMalloc inside the capture: cudaErrorStreamCaptureUnsupported); rerun with the caching allocator kept as "
                + rerun);
        progress.line("[gpu-sanitize] " + first.name() + ": the uncached allocator broke the job's CUDA graph capture; "
                + "running " + tool.id() + " again with the caching allocator kept");
        return List.of(noted, sanitizer(cs, tool, gpu, true));
    }

    private PhaseResult sanitizer(Path cs, Tool tool, String gpu, boolean keepCaching) throws IOException {
        String name = keepCaching ? RunDirectory.cachedSanitizerDir(tool) : RunDirectory.sanitizerDir(tool);
        Path d = Files.createDirectories(dir.dir(name));
        Path log = d.resolve(RunDirectory.SANITIZER_LOG);
        Path xml = d.resolve(RunDirectory.SANITIZER_XML);
        List<String> argv = new ArrayList<>(List.of(
                cs.toString(),
                "--tool",
                tool.id(),
                "--xml",
                "--save",
                xml.toString(),
                "--log-file",
                log.toString(),
                "--print-limit",
                Integer.toString(spec.printLimit()),
                "--error-exitcode",
                Integer.toString(SANITIZER_ERROR_EXIT)));
        if (tool == Tool.MEMCHECK && spec.padding() > 0) {
            argv.addAll(List.of("--padding", Integer.toString(spec.padding())));
        }
        argv.addAll(spec.extraSanitizerArgs());
        argv.addAll(RunSpec.argv(spec.sanitizerCommand()));
        Map<String, String> set = new LinkedHashMap<>();
        set.put("CUDA_VISIBLE_DEVICES", gpu);
        List<String> removed = new ArrayList<>(List.of("CUDA_LAUNCH_BLOCKING"));
        if (!spec.keepCachingAllocator() && !keepCaching) {
            set.put("PYTORCH_NO_CUDA_MEMORY_CACHING", "1");
        } else if (keepCaching) {
            removed.add("PYTORCH_NO_CUDA_MEMORY_CACHING");
        }
        // expandable_segments makes memcheck report false out-of-bounds writes (pytorch #196209)
        for (String v : List.of("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF")) {
            String val = baseEnv.get(v);
            if (val != null && val.contains("expandable_segments")) {
                removed.add(v);
            }
        }
        java.util.function.Supplier<String> stopEarly =
                spec.stopAfterDefects() <= 0 ? () -> null : () -> enoughDefects(log, tool, spec.stopAfterDefects());
        return runPhase(
                name,
                Phase.SANITIZER,
                argv,
                set,
                removed,
                gpu,
                d,
                spec.timeoutSeconds(Phase.SANITIZER),
                null,
                true,
                elapsed -> progress.line("[gpu-sanitize] " + name + " running " + Math.round(elapsed) + " s, "
                        + recordsSoFar(log) + " error record(s) so far"),
                stopEarly);
    }

    private PhaseResult blocking(String gpu) throws IOException {
        Path d = Files.createDirectories(dir.dir(Phase.BLOCKING.id()));
        Map<String, String> set = new LinkedHashMap<>();
        set.put("CUDA_VISIBLE_DEVICES", gpu);
        set.put("CUDA_LAUNCH_BLOCKING", "1");
        if (Boolean.TRUE.equals(environment.torchDsa())) {
            set.put("PYTORCH_USE_CUDA_DSA", "1");
        }
        set.putAll(probeEnv(Phase.BLOCKING, d));
        List<String> removed = new ArrayList<>(DEBUG_VARIABLES);
        removed.removeAll(set.keySet());
        PhaseResult r = runPhase(
                Phase.BLOCKING.id(),
                Phase.BLOCKING,
                RunSpec.argv(spec.command()),
                set,
                removed,
                gpu,
                d,
                spec.timeoutSeconds(Phase.BLOCKING),
                null,
                false,
                elapsed -> progress.line("[gpu-sanitize] blocking running " + Math.round(elapsed) + " s"));
        if (referenceSeconds == null && r.timeToFailure() != null) {
            referenceSeconds = r.timeToFailure();
            referenceSource = "this run's blocking phase";
        }
        copyGeneratedCode(d);
        return r;
    }

    /**
     * torch.compile's generated code (Inductor wrapper, Triton kernel) lives in a cache on this machine
     * and may be gone later: keep the files the blocking run's output names beside it.
     */
    private void copyGeneratedCode(Path phaseDir) {
        Path stderr = phaseDir.resolve(RunDirectory.STDERR);
        if (!Files.isRegularFile(stderr)) {
            return;
        }
        try {
            List<Path> copied = GeneratedCode.copy(new TracebackParser().parse(stderr), phaseDir);
            if (!copied.isEmpty()) {
                progress.line("[gpu-sanitize] kept " + copied.size() + " generated file(s) of torch.compile in "
                        + phaseDir.getFileName() + "/" + GeneratedCode.DIR);
            }
        } catch (IOException | InputException e) {
            progress.line("[gpu-sanitize] cannot keep the generated code: " + e.getMessage());
        }
    }

    private PhaseResult regression(ToolLocator tools, String gpu) throws IOException {
        Path d = Files.createDirectories(dir.dir(Phase.REGRESSION.id()));
        Map<String, String> set = new LinkedHashMap<>();
        set.put("CUDA_VISIBLE_DEVICES", gpu);
        if (spec.expandableSegments()) {
            set.put("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True");
        }
        set.putAll(probeEnv(Phase.REGRESSION, d));
        List<String> removed = new ArrayList<>(DEBUG_VARIABLES);
        int timeout = spec.timeoutSeconds(Phase.REGRESSION);
        if (spec.regressionSeconds() != null) {
            regressionTarget = spec.regressionSeconds();
        } else if (referenceSeconds != null) {
            regressionTarget = spec.regressionMultiple() * referenceSeconds;
        }
        // without a failure to reproduce, the regression run ends by itself or at its time limit (a pass)
        double stopAt = regressionTarget != null ? Math.min(regressionTarget, timeout) : timeout;
        Path smi = tools.require(
                "nvidia-smi", spec.nvidiaSmi() == null ? null : Path.of(spec.nvidiaSmi()), "--nvidia-smi");
        MemorySampler sampler = null;
        String samplerNote = null;
        try {
            sampler = MemorySampler.start(
                    smi,
                    gpu,
                    spec.samplerIntervalMs(),
                    d.resolve(RunDirectory.MEMORY_CSV),
                    d.resolve("nvidia-smi.err"),
                    baseEnv);
        } catch (IOException e) {
            samplerNote = "memory sampler could not start: " + e.getMessage();
        }
        PhaseResult r;
        try {
            r = runPhase(
                    Phase.REGRESSION.id(),
                    Phase.REGRESSION,
                    RunSpec.argv(spec.command()),
                    set,
                    removed,
                    gpu,
                    d,
                    timeout + 1,
                    stopAt,
                    false,
                    elapsed -> progress.line("[gpu-sanitize] regression running " + Math.round(elapsed) + " s"
                            + (regressionTarget == null ? "" : " of " + Math.round(regressionTarget) + " s target")));
        } finally {
            if (sampler != null) {
                String n = sampler.stop();
                samplerNote = n == null ? samplerNote : n;
            }
        }
        if (samplerNote != null) {
            runReasons.add(Reason.warning("memory-sampler", samplerNote));
            r = r.withNote(samplerNote);
        }
        if (regressionTarget == null && PhaseResult.STOPPED_AT_TARGET.equals(r.status())) {
            r = new PhaseResult(
                    r.name(),
                    r.phase(),
                    r.command(),
                    r.env(),
                    r.gpu(),
                    r.status(),
                    r.exitCode(),
                    r.signal(),
                    r.wallSeconds(),
                    r.timeToFailure(),
                    r.directory(),
                    r.files(),
                    "no reference failure time: ran for the regression time limit of " + timeout + " s");
        }
        if (referenceSeconds == null && r.timeToFailure() != null) {
            referenceSeconds = r.timeToFailure();
            referenceSource = "this run's regression phase";
        }
        if (spec.throughputRegex() != null) {
            throughput = Throughput.read(
                    spec.throughputRegex(),
                    spec.throughputBaseline(),
                    spec.throughputTolerance(),
                    List.of(d.resolve(RunDirectory.STDOUT), d.resolve(RunDirectory.STDERR)));
        }
        return r;
    }

    /**
     * The in-process probe's variables for the blocking or regression phase (docs/probe.md): none with
     * {@code --no-probe}, when the environment probe found no torch, or when it cannot be written (said once).
     */
    private Map<String, String> probeEnv(Phase phase, Path phaseDir) {
        if (phase == Phase.REGRESSION && spec.probe() && !spec.probeMemory()) {
            return Map.of(); // opt-in: see RunSpec.probeMemory
        }
        String off = !spec.probe()
                ? "off (--no-probe)"
                : environment.torchVersion() == null ? "off: no torch in the job's Python" : null;
        try {
            if (off == null) {
                Map<String, String> env = new LinkedHashMap<>(baseEnv);
                env.putAll(spec.extraEnv());
                return probe.env(phase, phaseDir, env.get("PYTHONPATH"));
            }
        } catch (IOException | RuntimeException e) {
            off = "not installed: " + e.getMessage();
        }
        synchronized (runReasons) {
            if (runReasons.stream().noneMatch(r -> "probe".equals(r.code()))) {
                runReasons.add(Reason.info("probe", "in-process probe " + off));
            }
        }
        return Map.of();
    }

    /**
     * The early stop: parses the log written so far (small: the print limit bounds it) and says why
     * to stop once it holds {@code n} distinct unsuppressed defects.
     */
    private String enoughDefects(Path log, Tool tool, int n) {
        if (!RunDirectory.nonEmpty(log)) {
            return null;
        }
        try {
            GatePolicy policy = spec.policy();
            io.jenkins.plugins.gpusanitizer.engine.findings.DefectGrouper g =
                    new io.jenkins.plugins.gpusanitizer.engine.findings.DefectGrouper(policy.frameClassifier());
            new io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerTextParser().parse(log, tool, g);
            long open = Analyzer.suppress(g.defects(), policy.suppressions()).stream()
                    .filter(x -> !x.suppressed())
                    .count();
            return open >= n
                    ? "stopped early: " + open + " distinct defect(s) seen (--stop-after-defects " + n + ")"
                    : null;
        } catch (InputException | IllegalArgumentException e) {
            return null;
        }
    }

    private PhaseResult runPhase(
            String name,
            Phase phase,
            List<String> argv,
            Map<String, String> set,
            List<String> removed,
            String gpu,
            Path d,
            double timeout,
            Double stopAt,
            boolean toolWrapsTarget,
            java.util.function.DoubleConsumer onProgress)
            throws IOException {
        return runPhase(
                name, phase, argv, set, removed, gpu, d, timeout, stopAt, toolWrapsTarget, onProgress, () -> null);
    }

    private PhaseResult runPhase(
            String name,
            Phase phase,
            List<String> argv,
            Map<String, String> set,
            List<String> removed,
            String gpu,
            Path d,
            double timeout,
            Double stopAt,
            boolean toolWrapsTarget,
            java.util.function.DoubleConsumer onProgress,
            java.util.function.Supplier<String> stopEarly)
            throws IOException {
        Map<String, String> env = new LinkedHashMap<>(baseEnv);
        env.putAll(spec.extraEnv());
        removed.forEach(env::remove);
        env.putAll(set);
        Files.writeString(
                d.resolve("command.txt"),
                secrets.mask(String.join(" ", argv) + "\n" + describeEnv(set, removed)) + "\n",
                StandardCharsets.UTF_8);
        progress.line("[gpu-sanitize] " + name + " started on GPU " + gpu + ": " + abbreviate(String.join(" ", argv)));
        PhaseProcess p = new PhaseProcess(
                argv,
                env,
                spec.workDir() == null ? null : Path.of(spec.workDir()),
                d.resolve(RunDirectory.STDOUT),
                d.resolve(RunDirectory.STDERR),
                toolWrapsTarget,
                spec.killGraceSeconds(),
                spec.toolWriteGraceSeconds(),
                runId + "-" + name);
        PhaseProcess.Outcome o =
                p.run(timeout, stopAt, Math.max(1, spec.progressIntervalSeconds()), onProgress, stopEarly);
        Integer signal =
                o.exitCode() != null && o.exitCode() > 128 && o.exitCode() <= 128 + 64 ? o.exitCode() - 128 : null;
        Double ttf = PhaseResult.FAILED.equals(o.status()) ? round(o.wallSeconds()) : null;
        List<String> files = new ArrayList<>();
        try (var s = Files.list(d)) {
            s.sorted().forEach(f -> files.add(dir.root().relativize(f).toString()));
        }
        String note = o.note();
        if (toolWrapsTarget && !RunDirectory.nonEmpty(d.resolve(RunDirectory.SANITIZER_XML))) {
            note = (note == null ? "" : note + "; ") + "no --save XML written: records come from the text log";
        }
        Map<String, String> shown = new LinkedHashMap<>(set);
        removed.stream().filter(baseEnv::containsKey).forEach(v -> shown.put(v, "(removed)"));
        shown.replaceAll((k, v) -> secrets.mask(v));
        return new PhaseResult(
                name,
                phase,
                secrets.mask(argv),
                shown,
                gpu,
                o.status(),
                o.exitCode(),
                signal,
                round(o.wallSeconds()),
                ttf,
                dir.root().relativize(d).toString(),
                files,
                secrets.mask(note));
    }

    private String describeEnv(Map<String, String> set, List<String> removed) {
        StringBuilder sb = new StringBuilder();
        set.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
        removed.stream()
                .filter(baseEnv::containsKey)
                .forEach(v -> sb.append("unset ").append(v).append('\n'));
        return sb.toString();
    }

    /** Error records printed so far: the separator lines of the tool's log, read cheaply from the file. */
    static long recordsSoFar(Path log) {
        if (!Files.isRegularFile(log)) {
            return 0;
        }
        long n = 0;
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
            byte[] buf = new byte[1 << 16];
            byte[] sep = "\n========= \n".getBytes(StandardCharsets.US_ASCII);
            int matched = 0;
            int r;
            while ((r = f.read(buf)) > 0) {
                for (int i = 0; i < r; i++) {
                    byte b = buf[i];
                    if (b == sep[matched]) {
                        if (++matched == sep.length) {
                            n++;
                            matched = 1;
                        }
                    } else {
                        matched = b == sep[0] ? 1 : 0;
                    }
                }
            }
        } catch (IOException e) {
            return n;
        }
        return n;
    }

    private Report report(GatePolicy policy) {
        RunRecord record = currentRecord(true);
        // the same analysis as analyze --run-dir, with what only the runner saw (environment, sampler) added
        Analysis merged = dir.analyze(record, policy, runReasons);
        Report report =
                new ReportMapper(policy.frameClassifier()).toReport(merged).withExecution(record.execution());
        if (spec.compareWith() != null) {
            try {
                report = ReferenceComparison.apply(
                        report, ReportJson.read(Path.of(spec.compareWith())), spec.compareWith(), spec.failOnNewOnly());
            } catch (RuntimeException e) {
                // still a report: the comparison is an extra, the verdict stands without it
                progress.line("[gpu-sanitize] reference report unusable, not compared: " + e.getMessage());
                List<Report.ReasonJson> reasons = new ArrayList<>(report.reasons());
                reasons.add(new Report.ReasonJson(
                        "warning",
                        "reference",
                        "reference report " + spec.compareWith() + " unusable, not compared: " + e.getMessage()));
                report = new Report(
                        report.schemaVersion(),
                        report.generator(),
                        report.verdict(),
                        reasons,
                        report.errorsTotal(),
                        report.diagnosis(),
                        report.defects(),
                        report.sanitizerRuns(),
                        report.failures(),
                        report.memory(),
                        report.execution(),
                        report.inputs(),
                        report.reference(),
                        report.fixed());
            }
        }
        try {
            ReportJson.write(report, dir.root().resolve(RunDirectory.REPORT_JSON));
            new HtmlReport().writePage(report, dir.root().resolve(RunDirectory.REPORT_HTML));
        } catch (IOException e) {
            progress.line("[gpu-sanitize] cannot write the report into " + dir.root() + ": " + e.getMessage());
        }
        return report;
    }

    private synchronized void writeRecord(boolean finished) throws IOException {
        dir.writeRecord(currentRecord(finished));
    }

    private RunRecord currentRecord(boolean finished) {
        List<Report.PhaseJson> phases = results.stream()
                .map(r -> new Report.PhaseJson(
                        r.name(),
                        r.phase() == Phase.SANITIZER ? RunDirectory.toolOf(r.name()) : null,
                        r.command(),
                        r.env(),
                        r.gpu(),
                        r.status(),
                        r.exitCode(),
                        r.signal(),
                        r.wallSeconds(),
                        r.timeToFailure(),
                        PhaseResult.TIMED_OUT.equals(r.status()),
                        PhaseResult.STOPPED_AT_TARGET.equals(r.status()),
                        r.files(),
                        r.note()))
                .toList();
        Report.EnvironmentJson env = environment == null
                ? null
                : new Report.EnvironmentJson(
                        environment.driverVersion(),
                        environment.driverCudaVersion(),
                        environment.gpus().stream()
                                .map(g -> new Report.GpuJson(g.index(), g.name(), g.uuid(), g.memoryTotalMiB()))
                                .toList(),
                        environment.nvccVersion(),
                        environment.torchVersion(),
                        environment.torchCuda(),
                        environment.cudnnVersion(),
                        environment.torchDsa(),
                        environment.computeSanitizerVersion(),
                        environment.compatibility(),
                        environment.messages());
        Report.ExecutionJson exec = new Report.ExecutionJson(
                env, phases, dir.root().toString(), referenceSeconds, referenceSource, regressionTarget, throughput);
        return new RunRecord(
                1,
                spec.phases().contains(Phase.SANITIZER) ? spec.keepCachingAllocator() : null,
                spec.expandableSegments(),
                spec.tools().stream().map(Tool::id).toList(),
                finished,
                exec);
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    private static String abbreviate(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
