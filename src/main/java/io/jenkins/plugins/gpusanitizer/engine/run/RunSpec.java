package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.findings.PatternSuppression;
import io.jenkins.plugins.gpusanitizer.engine.gate.GateAction;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.model.CoverageMode;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseProcess;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.Isolation;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything {@code gpu-sanitize run} and the {@code gpuSanitize} step can be told: one plain,
 * serializable object (it travels to a Jenkins agent), so both front ends map their options onto it
 * one by one. Paths are strings for the same reason.
 */
public final class RunSpec implements Serializable {
    private static final long serialVersionUID = 1L;

    private List<String> command = new ArrayList<>();
    private List<String> sanitizerCommand;
    private List<String> gpus = new ArrayList<>(List.of("0"));
    /** Who chose {@link #gpus}: the option's name ("--gpu", the step's "gpus"), CUDA_VISIBLE_DEVICES; null: nobody. */
    private String gpusFrom;

    private List<Tool> tools = new ArrayList<>(List.of(Tool.MEMCHECK));
    private int printLimit = 1000;
    /**
     * memcheck's {@code --padding}: a guard zone after every allocation. Without it a write past one buffer
     * into the next live one (a wrong row stride into the labels allocated next) is invisible to memcheck,
     * as recorded in src/test/resources/records/h200-2026-12-03.zip.xz, triton-stride.
     */
    private int padding = 4096;

    private boolean keepCachingAllocator;
    /** How much of the job the sanitizer run checks (issue #49): until every kernel the plain run launched ran, or all. */
    private CoverageMode coverage = CoverageMode.KERNELS;
    /** The kernels the reference build's plain run launched (its report's census), handed in by the Jenkins step. */
    private List<String> referenceKernels;

    private List<Phase> phases = new ArrayList<>(List.of(Phase.SANITIZER, Phase.BLOCKING, Phase.REGRESSION));
    private final Map<Phase, Integer> timeoutSeconds =
            new EnumMap<>(Map.of(Phase.SANITIZER, 3600, Phase.BLOCKING, 3600, Phase.REGRESSION, 3600));
    private Double regressionSeconds;
    private double regressionMultiple = 2.0;
    private Double referenceSeconds;
    /** The reference build's largest GPU memory peak (its report's curves), handed in by the Jenkins step. */
    private Double referencePeakMiB;

    private String referenceReport;
    private String compareWith;
    private int stopAfterDefects;
    private boolean failOnNewOnly;
    private boolean expandableSegments;
    private String throughputRegex;
    private Double throughputBaseline;
    /** The accepted throughput drop below the baseline when none is given. */
    public static final double DEFAULT_THROUGHPUT_TOLERANCE = 0.10;

    private double throughputTolerance = DEFAULT_THROUGHPUT_TOLERANCE;
    private String outDir = "gpu-sanitize-run";
    private String workDir;
    private String computeSanitizer;
    private String nvidiaSmi;
    private String python;
    private String nvcc;
    private int samplerIntervalMs = 250;
    private int killGraceSeconds = 5;
    /** DataLoader workers notice their parent's end within 5 s (MP_STATUS_CHECK_INTERVAL). */
    static final int DEFAULT_LEFTOVER_GRACE_SECONDS = 10;

    private int leftoverGraceSeconds = DEFAULT_LEFTOVER_GRACE_SECONDS;
    private int toolWriteGraceSeconds = 15;
    /** A phase's supervisor silent this long is taken for gone (it beats every second); tests shorten it. */
    private int supervisorSilenceSeconds = (int) (PhaseProcess.HEARTBEAT_STALE_MILLIS / 1000);

    private int progressIntervalSeconds = 10;
    /**
     * On one GPU, the blocking run beside the sanitizer run instead of after it: the gate's wall time is
     * then about the sanitizer's plus the regression's (docs/performance.md, GPU time per merge).
     */
    private boolean overlapBlocking = true;
    /**
     * On one GPU, the regression run beside the sanitizer run when the card has room for it ({@link RegressionPlan});
     * false: after it, alone (its throughput and the card's memory curve are then its own).
     */
    private boolean regressionBeside = true;
    /**
     * How long the blocking run beside the sanitizer run is watched before the regression run's place is decided
     * (its peak GPU memory in these first seconds is the job's need); the decision comes earlier when it ends.
     */
    private int roomCheckSeconds = 10;
    /** compute-sanitizer's kernel-name filters leave the vendor libraries' kernels unchecked ({@link VendorKernels}). */
    private boolean excludeVendorKernels;

    private List<String> extraSanitizerArgs = new ArrayList<>();
    private Map<String, String> extraEnv = new LinkedHashMap<>();
    /** Variables whose values are secrets whatever their names look like (the caller's credentials, {@code --mask-env}). */
    private List<String> maskEnv = new ArrayList<>();

    private List<String> suppressions = new ArrayList<>();
    private boolean defaultSuppressions = true;
    private boolean countPyTorchKernels;
    private Map<Tool, GateAction> toolActions = new EnumMap<>(Tool.class);
    private GateAction oomAction;
    private GateAction memoryGrowthAction;
    private Double growthToleranceMiBPerMin;
    private Double memoryFillHorizonHours;
    private Double memoryMinJudgedSeconds;
    private boolean probe = true;
    /** Off for a spec built in code; the CLI and the step turn it on unless the user turns it off. */
    private Isolation isolation = Isolation.DEFAULT.isolate(false);

    private boolean gpuLock = true;
    /** How long a run waits for its GPUs to be free before it gives up (ERROR); 6 h, a long training job. */
    public static final int DEFAULT_GPU_LOCK_TIMEOUT_SECONDS = 6 * 3600;

    private int gpuLockTimeoutSeconds = DEFAULT_GPU_LOCK_TIMEOUT_SECONDS;
    /**
     * The probe in the regression phase too (allocation sites); null: on, unless the phase's throughput is
     * judged against a baseline. On the H200 it cost that phase 8-13 % throughput (records/h200-probe.zip.xz), which a
     * baseline comparison could mistake for a regression, and the probe must never change the outcome.
     */
    private Boolean probeMemory;

    /** The user's command as given: one element with spaces is a shell string. */
    public List<String> command() {
        return command;
    }

    public RunSpec command(List<String> c) {
        command = new ArrayList<>(c);
        return this;
    }

    /** True when the command is one shell string (run through {@code sh -c}, knowingly). */
    public boolean shellCommand() {
        return isShell(command);
    }

    static boolean isShell(List<String> c) {
        return c.size() == 1
                && c.get(0)
                        .chars()
                        .anyMatch(ch -> Character.isWhitespace(ch) || "|&;<>()$`\\\"'*?[#~=%".indexOf(ch) >= 0);
    }

    /** The argv that runs the command: the shell string through {@code sh -c}, else as given. */
    public static List<String> argv(List<String> c) {
        return isShell(c) ? List.of("sh", "-c", c.get(0)) : List.copyOf(c);
    }

    public List<String> sanitizerCommand() {
        return sanitizerCommand == null || sanitizerCommand.isEmpty() ? command : sanitizerCommand;
    }

    public RunSpec sanitizerCommand(List<String> c) {
        sanitizerCommand = c == null ? null : new ArrayList<>(c);
        return this;
    }

    public List<String> gpus() {
        return gpus;
    }

    /** The GPUs given by {@code --gpu}. */
    public RunSpec gpus(List<String> g) {
        return gpus(g, "--gpu");
    }

    /** The GPUs given by the option {@code chosenBy} (named on the console). */
    public RunSpec gpus(List<String> g, String chosenBy) {
        gpus = new ArrayList<>(g);
        gpusFrom = chosenBy;
        return this;
    }

    /** Who chose the GPUs ("--gpu", "gpus", "CUDA_VISIBLE_DEVICES"); null when nobody did (then GPU 0). */
    public String gpusFrom() {
        return gpusFrom;
    }

    /**
     * The run's GPUs when no option chose them: the job's inherited {@code CUDA_VISIBLE_DEVICES} (the card(s) a CI
     * assigned: "1", "GPU-uuid", "1,3"), else GPU 0. An option always wins.
     *
     * @param env the job's environment
     * @return the console line saying which GPU(s) and why
     * @throws RunException when CUDA_VISIBLE_DEVICES assigns no GPU at all (empty, or -1)
     */
    public String selectGpus(Map<String, String> env) {
        if (gpusFrom == null && env.containsKey(CUDA_VISIBLE_DEVICES)) {
            String assigned = env.get(CUDA_VISIBLE_DEVICES);
            List<String> entries = new ArrayList<>();
            for (String entry : (assigned == null ? "" : assigned).split(",")) {
                if (!entry.isBlank()) {
                    entries.add(entry.trim());
                }
            }
            if (entries.isEmpty() || entries.get(0).equals("-1")) {
                throw new RunException(CUDA_VISIBLE_DEVICES + "='" + (assigned == null ? "" : assigned)
                        + "' assigns this job no GPU: choose one with --gpu (the step's gpus)");
            }
            gpus = entries;
            gpusFrom = CUDA_VISIBLE_DEVICES;
        }
        return (gpus.size() == 1 ? "GPU " : "GPUs ") + String.join(",", gpus) + " from "
                + (gpusFrom == null ? "the default (no --gpu, no " + CUDA_VISIBLE_DEVICES + ")" : gpusFrom);
    }

    static final String CUDA_VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES";

    public List<Tool> tools() {
        return tools;
    }

    public RunSpec tools(List<Tool> t) {
        tools = new ArrayList<>(t);
        return this;
    }

    public int printLimit() {
        return printLimit;
    }

    public RunSpec printLimit(int n) {
        printLimit = n;
        return this;
    }

    public int padding() {
        return padding;
    }

    public RunSpec padding(int bytes) {
        padding = bytes;
        return this;
    }

    public boolean keepCachingAllocator() {
        return keepCachingAllocator;
    }

    public RunSpec keepCachingAllocator(boolean b) {
        keepCachingAllocator = b;
        return this;
    }

    public List<Phase> phases() {
        return phases;
    }

    public RunSpec phases(List<Phase> p) {
        phases = new ArrayList<>(p);
        return this;
    }

    public int timeoutSeconds(Phase p) {
        return timeoutSeconds.get(p);
    }

    public RunSpec timeoutSeconds(Phase p, int s) {
        timeoutSeconds.put(p, s);
        return this;
    }

    public Double regressionSeconds() {
        return regressionSeconds;
    }

    public RunSpec regressionSeconds(Double s) {
        regressionSeconds = s;
        return this;
    }

    public double regressionMultiple() {
        return regressionMultiple;
    }

    public RunSpec regressionMultiple(double m) {
        regressionMultiple = m;
        return this;
    }

    public Double referenceSeconds() {
        return referenceSeconds;
    }

    public RunSpec referenceSeconds(Double s) {
        referenceSeconds = s;
        return this;
    }

    public String referenceReport() {
        return referenceReport;
    }

    public RunSpec referenceReport(String r) {
        referenceReport = r;
        return this;
    }

    /** End a sanitizer run once this many distinct unsuppressed defects were seen; 0 = never (default). */
    public int stopAfterDefects() {
        return stopAfterDefects;
    }

    public CoverageMode coverage() {
        return coverage;
    }

    public RunSpec coverage(CoverageMode mode) {
        coverage = mode == null ? CoverageMode.KERNELS : mode;
        return this;
    }

    /** The reference build's census kernels, or null where none was handed in (the CLI reads {@link #compareWith()}). */
    public List<String> referenceKernels() {
        return referenceKernels;
    }

    public RunSpec referenceKernels(List<String> names) {
        referenceKernels = names == null ? null : new ArrayList<>(names);
        return this;
    }

    public RunSpec stopAfterDefects(int n) {
        stopAfterDefects = n;
        return this;
    }

    /** The reference build's largest GPU memory peak in MiB, or null where none was handed in (the CLI reads
     * {@link #compareWith()}). */
    public Double referencePeakMiB() {
        return referencePeakMiB;
    }

    public RunSpec referencePeakMiB(Double mib) {
        referencePeakMiB = mib;
        return this;
    }

    /** A report whose defects this run's are compared with (new / outstanding / fixed), or null. */
    public String compareWith() {
        return compareWith;
    }

    public RunSpec compareWith(String report) {
        compareWith = report;
        return this;
    }

    public boolean failOnNewOnly() {
        return failOnNewOnly;
    }

    public RunSpec failOnNewOnly(boolean b) {
        failOnNewOnly = b;
        return this;
    }

    public boolean expandableSegments() {
        return expandableSegments;
    }

    public RunSpec expandableSegments(boolean b) {
        expandableSegments = b;
        return this;
    }

    public String throughputRegex() {
        return throughputRegex;
    }

    public RunSpec throughputRegex(String r) {
        throughputRegex = r;
        return this;
    }

    public Double throughputBaseline() {
        return throughputBaseline;
    }

    public RunSpec throughputBaseline(Double b) {
        throughputBaseline = b;
        return this;
    }

    public double throughputTolerance() {
        return throughputTolerance;
    }

    public RunSpec throughputTolerance(double t) {
        throughputTolerance = t;
        return this;
    }

    public String outDir() {
        return outDir;
    }

    public RunSpec outDir(String d) {
        outDir = d;
        return this;
    }

    public String workDir() {
        return workDir;
    }

    public RunSpec workDir(String d) {
        workDir = d;
        return this;
    }

    public String computeSanitizer() {
        return computeSanitizer;
    }

    public RunSpec computeSanitizer(String p) {
        computeSanitizer = p;
        return this;
    }

    public String nvidiaSmi() {
        return nvidiaSmi;
    }

    public RunSpec nvidiaSmi(String p) {
        nvidiaSmi = p;
        return this;
    }

    public String python() {
        return python;
    }

    public RunSpec python(String p) {
        python = p;
        return this;
    }

    public String nvcc() {
        return nvcc;
    }

    public RunSpec nvcc(String p) {
        nvcc = p;
        return this;
    }

    public int samplerIntervalMs() {
        return samplerIntervalMs;
    }

    public RunSpec samplerIntervalMs(int ms) {
        samplerIntervalMs = ms;
        return this;
    }

    public int killGraceSeconds() {
        return killGraceSeconds;
    }

    public RunSpec killGraceSeconds(int s) {
        killGraceSeconds = s;
        return this;
    }

    /**
     * How long processes of a phase may run on after its main process ended by itself; still running then, after a
     * main process that ran no longer than they did, they are the job's work going on unchecked (an error).
     */
    public int leftoverGraceSeconds() {
        // never off (a spec serialized before the setting existed reads 0): the check fails closed
        return leftoverGraceSeconds > 0 ? leftoverGraceSeconds : DEFAULT_LEFTOVER_GRACE_SECONDS;
    }

    public RunSpec leftoverGraceSeconds(int s) {
        leftoverGraceSeconds = s;
        return this;
    }

    public int toolWriteGraceSeconds() {
        return toolWriteGraceSeconds;
    }

    public RunSpec toolWriteGraceSeconds(int s) {
        toolWriteGraceSeconds = s;
        return this;
    }

    int supervisorSilenceSeconds() {
        // a spec serialized before the setting existed reads 0: the default then
        return supervisorSilenceSeconds > 0
                ? supervisorSilenceSeconds
                : (int) (PhaseProcess.HEARTBEAT_STALE_MILLIS / 1000);
    }

    RunSpec supervisorSilenceSeconds(int s) {
        supervisorSilenceSeconds = s;
        return this;
    }

    public int progressIntervalSeconds() {
        return progressIntervalSeconds;
    }

    public RunSpec progressIntervalSeconds(int s) {
        progressIntervalSeconds = s;
        return this;
    }

    /** The commands the run gives: the job's, the sanitizer phase's, and the extra compute-sanitizer arguments. */
    public List<List<String>> commands() {
        return List.of(command, sanitizerCommand(), extraSanitizerArgs);
    }

    public List<String> extraSanitizerArgs() {
        return extraSanitizerArgs;
    }

    public RunSpec extraSanitizerArgs(List<String> a) {
        extraSanitizerArgs = new ArrayList<>(a);
        return this;
    }

    /** Variables added to every phase (after the inherited environment, before the phase's own). */
    public Map<String, String> extraEnv() {
        return extraEnv;
    }

    public RunSpec extraEnv(Map<String, String> e) {
        extraEnv = new LinkedHashMap<>(e);
        return this;
    }

    /**
     * The names of variables whose values the run masks wherever it writes them ({@link Secrets}), whatever the
     * names look like: a CI's credential bindings, and what the user names ({@code --mask-env}, {@code maskValues})
     * for a secret with no hint in its name ({@code AUTH=hf_...}).
     */
    public List<String> maskEnv() {
        return maskEnv == null ? List.of() : maskEnv; // null in a spec saved before it existed (a resumed step)
    }

    public RunSpec maskEnv(java.util.Collection<String> names) {
        maskEnv = new ArrayList<>(new java.util.LinkedHashSet<>(names));
        return this;
    }

    public List<String> suppressions() {
        return suppressions;
    }

    public RunSpec suppressions(List<String> s) {
        suppressions = new ArrayList<>(s);
        return this;
    }

    public RunSpec defaultSuppressions(boolean b) {
        defaultSuppressions = b;
        return this;
    }

    /**
     * Whether initcheck's records in PyTorch's own kernels count (issue #48, 2): off by default, when they are
     * suppressed and listed; initcheck checks every kernel either way (InitcheckKernelFilter).
     */
    public boolean countPyTorchKernels() {
        return countPyTorchKernels;
    }

    public RunSpec countPyTorchKernels(boolean b) {
        countPyTorchKernels = b;
        return this;
    }

    public RunSpec toolAction(Tool t, GateAction a) {
        toolActions.put(t, a);
        return this;
    }

    public RunSpec oomAction(GateAction a) {
        oomAction = a;
        return this;
    }

    public RunSpec memoryGrowthAction(GateAction a) {
        memoryGrowthAction = a;
        return this;
    }

    /** Growth below this rate is accepted; null for the default. */
    public RunSpec growthToleranceMiBPerMin(Double v) {
        growthToleranceMiBPerMin = v;
        return this;
    }

    /** Growth acts when it would fill the GPU within this many hours; null for the default (a week). */
    public RunSpec memoryFillHorizonHours(Double v) {
        memoryFillHorizonHours = v;
        return this;
    }

    /** A regression run shorter than this after warm-up gets no memory verdict; null for the default. */
    public RunSpec memoryMinJudgedSeconds(Double v) {
        memoryMinJudgedSeconds = v;
        return this;
    }

    /**
     * Whether the in-process probe (a sitecustomize on PYTHONPATH) runs in the blocking and regression
     * phases; it records the failing operator's arguments and where GPU memory was allocated. Default on.
     */
    public boolean probe() {
        return probe;
    }

    /** Each run in a copy of the working directory, and what is shared or limited ({@link Isolation}). */
    public Isolation isolation() {
        return isolation;
    }

    public RunSpec isolation(Isolation value) {
        isolation = value;
        return this;
    }

    /** Whether the run takes its GPUs exclusively on this machine (GpuLock). */
    public boolean gpuLock() {
        return gpuLock;
    }

    public RunSpec gpuLock(boolean lock) {
        gpuLock = lock;
        return this;
    }

    public int gpuLockTimeoutSeconds() {
        return gpuLockTimeoutSeconds;
    }

    public RunSpec gpuLockTimeoutSeconds(int seconds) {
        gpuLockTimeoutSeconds = seconds;
        return this;
    }

    public boolean overlapBlocking() {
        return overlapBlocking;
    }

    public RunSpec overlapBlocking(boolean overlap) {
        overlapBlocking = overlap;
        return this;
    }

    /** On one GPU, whether the regression run may start beside the sanitizer run (when the card has room). */
    public boolean regressionBeside() {
        return regressionBeside;
    }

    public RunSpec regressionBeside(boolean beside) {
        regressionBeside = beside;
        return this;
    }

    /** Seconds of the blocking run watched before the regression run's place is decided. */
    public int roomCheckSeconds() {
        return roomCheckSeconds;
    }

    public RunSpec roomCheckSeconds(int seconds) {
        roomCheckSeconds = seconds;
        return this;
    }

    public boolean excludeVendorKernels() {
        return excludeVendorKernels;
    }

    public RunSpec excludeVendorKernels(boolean exclude) {
        excludeVendorKernels = exclude;
        return this;
    }

    /** Whether the regression phase gets the probe: as asked, else unless a throughput baseline is judged. */
    public boolean probeMemory() {
        return probeMemory != null ? probeMemory : throughputBaseline == null;
    }

    /** What was asked: true, false, or null for the default above. */
    public Boolean probeMemoryAsked() {
        return probeMemory;
    }

    public RunSpec probeMemory(Boolean b) {
        probeMemory = b;
        return this;
    }

    public RunSpec probe(boolean b) {
        probe = b;
        return this;
    }

    /** @throws IllegalArgumentException (one line) for a malformed suppression */
    public GatePolicy policy() {
        GatePolicy.Builder b =
                GatePolicy.builder().defaultSuppressions(defaultSuppressions).countPyTorchKernels(countPyTorchKernels);
        suppressions.forEach(s -> b.suppress(PatternSuppression.parse(s)));
        toolActions.forEach(b::toolAction);
        if (oomAction != null) {
            b.oomAction(oomAction);
        }
        if (memoryGrowthAction != null) {
            b.memoryGrowthAction(memoryGrowthAction);
        }
        if (growthToleranceMiBPerMin != null) {
            b.growthToleranceMiBPerMin(growthToleranceMiBPerMin);
        }
        if (memoryFillHorizonHours != null) {
            b.memoryFillHorizonHours(memoryFillHorizonHours);
        }
        if (memoryMinJudgedSeconds != null) {
            b.memoryMinJudgedSeconds(memoryMinJudgedSeconds);
        }
        return b.build();
    }

    /** @throws RunException when the spec cannot run */
    public void validate() {
        if (command.isEmpty() || command.stream().allMatch(String::isBlank)) {
            throw new RunException("no command to run: give it after --");
        }
        if (gpus.isEmpty()) {
            throw new RunException("no GPU selected");
        }
        if (phases.isEmpty()) {
            throw new RunException("no phase to run");
        }
        if (phases.contains(Phase.SANITIZER) && tools.isEmpty()) {
            throw new RunException("the sanitizer phase needs at least one tool");
        }
        for (Tool tool : tools) {
            if (tools.indexOf(tool) != tools.lastIndexOf(tool)) {
                throw new RunException("tool " + tool.id() + " is given twice: each tool runs once");
            }
        }
        if (stopAfterDefects < 0) {
            throw new RunException("stop-after-defects must be 0 (never) or more, got " + stopAfterDefects);
        }
        if (printLimit < 0) {
            throw new RunException("print limit must be 0 (unlimited) or more, got " + printLimit);
        }
        if (padding < 0) {
            throw new RunException("padding must be 0 (none) or more bytes, got " + padding);
        }
        if (roomCheckSeconds < 0) {
            throw new RunException("room check must be 0 or more seconds, got " + roomCheckSeconds);
        }
        if (gpuLockTimeoutSeconds < 0) {
            throw new RunException(
                    "GPU lock timeout must be 0 (do not wait) or more seconds, got " + gpuLockTimeoutSeconds);
        }
        for (Phase p : Phase.values()) {
            if (timeoutSeconds.get(p) <= 0) {
                throw new RunException(p.id() + " timeout must be positive");
            }
        }
        try {
            policy();
        } catch (IllegalArgumentException e) {
            throw new RunException(e.getMessage());
        }
        if (throughputRegex != null) {
            try {
                java.util.regex.Pattern.compile(throughputRegex);
            } catch (java.util.regex.PatternSyntaxException e) {
                throw new RunException("throughput regex: " + e.getDescription());
            }
        }
    }
}
