package io.jenkins.plugins.gpusanitizer.cli;

import io.jenkins.plugins.gpusanitizer.engine.model.CoverageMode;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.run.Phase;
import io.jenkins.plugins.gpusanitizer.engine.run.RunException;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.engine.run.Runner;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.DiscardedCopies;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.Isolation;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.RunWorkspaces;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.TreeDeletion;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gpu-sanitize run [options] -- command...}: the three phases on a GPU machine. */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Runs a training command three ways on a GPU: under compute-sanitizer (one GPU, caching allocator off),",
            "with CUDA_LAUNCH_BLOCKING=1, and as a regression run for 2x the failure time with GPU memory sampled.",
            "Writes the run directory (raw outputs, run.json, report.json, report.html) and gives the verdict.",
            "Exit: 0 PASS, 1 FAIL, 2 UNSTABLE, 3 ERROR, 64 usage."
        })
final class RunCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "the run directory (must be new or empty; never deleted). Default: gpu-sanitize-run-<time>.")
    Path out;

    @Option(
            names = "--sanitizer-command",
            paramLabel = "CMD",
            description = "a smaller command for the sanitizer phase (fewer steps, batch size 1); a shell string.")
    String sanitizerCommand;

    @Option(
            names = "--gpu",
            split = ",",
            paramLabel = "INDEX",
            description =
                    "GPU(s) to use, by index or UUID (each phase's CUDA_VISIBLE_DEVICES); the sanitizer phase always "
                            + "uses the first. Default: the CUDA_VISIBLE_DEVICES this command inherited (the card a CI "
                            + "assigned), else 0.")
    List<String> gpus;

    @Option(
            names = "--tool",
            split = ",",
            paramLabel = "TOOL",
            description = "sanitizer tools, one run each: memcheck (default), racecheck, initcheck, synccheck.")
    List<String> tools = new ArrayList<>(List.of("memcheck"));

    @Option(
            names = "--print-limit",
            paramLabel = "N",
            description = "compute-sanitizer --print-limit (records printed and saved to XML; 0 = all). Default 1000.")
    int printLimit = 1000;

    @Option(
            names = "--padding",
            paramLabel = "BYTES",
            description = "memcheck --padding: a guard zone after every allocation, so that a write past one buffer "
                    + "into the next is seen (0 = none). Default 4096.")
    int padding = 4096;

    @Option(
            names = "--stop-after-defects",
            paramLabel = "N",
            description =
                    "end each sanitizer run once N distinct defects were seen (saves GPU time on a job that errors every step; the report says it stopped early). Default 0: never.")
    int stopAfterDefects;

    @Option(
            names = "--coverage",
            paramLabel = "MODE",
            defaultValue = "kernels",
            description =
                    "how much of the job the sanitizer run checks: 'kernels' (default) every launch until the job has launched every kernel the blocking run launched, then it ends one optimizer step (or backward pass) after the step by which the blocking run had launched them all (the whole job where new kernels come until its last step); 'full' every launch of the whole job.")
    String coverage;

    @Option(
            names = "--keep-caching-allocator",
            description =
                    "do not set PYTORCH_NO_CUDA_MEMORY_CACHING=1 in the sanitizer phase (recorded in the report: small out-of-bounds accesses become invisible).")
    boolean keepCachingAllocator;

    @Option(
            names = "--phases",
            split = ",",
            paramLabel = "PHASE",
            description =
                    "phases in the order to run: sanitizer, blocking, regression. Default all three in that order.")
    List<String> phases = new ArrayList<>(List.of("sanitizer", "blocking", "regression"));

    @Option(names = "--skip", split = ",", paramLabel = "PHASE", description = "phases to leave out.")
    List<String> skip = new ArrayList<>();

    @Option(
            names = "--timeout",
            paramLabel = "PHASE=SECONDS",
            description = "per-phase timeout (default 3600 each); repeatable.")
    Map<String, Integer> timeouts = new LinkedHashMap<>();

    @Option(
            names = "--regression-seconds",
            paramLabel = "S",
            description = "explicit regression duration (overrides the multiple of the reference).")
    Double regressionSeconds;

    @Option(
            names = "--regression-multiple",
            paramLabel = "M",
            description = "regression duration = M x the reference failure time. Default 2.")
    double regressionMultiple = 2.0;

    @Option(names = "--reference-seconds", paramLabel = "S", description = "the reference failure time, when known.")
    Double referenceSeconds;

    @Option(
            names = "--reference-report",
            paramLabel = "FILE",
            description = "a previous report.json of a failing run: its failure time is the reference.")
    Path referenceReport;

    @Option(
            names = "--expandable-segments",
            description =
                    "regression run with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (never in the sanitizer phase).")
    boolean expandableSegments;

    @Option(
            names = "--no-overlap",
            description =
                    "run the environment check and every phase one after the other instead of side by side (side by "
                            + "side the first phases start while the check still runs, and on one GPU the blocking run, and "
                            + "the regression run when the card has room, run beside the sanitizer run, so the gate costs "
                            + "about the sanitizer run; an unusable environment stops the runs started beside its check, a "
                            + "blocking or regression run that runs out of memory beside the sanitizer is run again alone; a "
                            + "blocking run still going when every sanitizer run ended clean is cut, and run again in full "
                            + "only if the regression run fails).")
    boolean noOverlap;

    @Option(
            names = "--regression-after",
            description = "on one GPU, run the regression run after the sanitizer run, alone, even when the card has "
                    + "room for it beside (by default it starts beside the sanitizer run once the blocking run beside "
                    + "that showed the job's GPU memory and the card holds it once more plus a tenth in reserve; the "
                    + "report says which and why). Alone, its throughput is judged against --throughput-baseline and "
                    + "the card's memory curve is the job's own; beside, neither is judged.")
    boolean regressionAfter;

    @Option(
            names = "--exclude-vendor-kernels",
            description = "leave the vendor libraries' kernels out of the sanitizer runs (compute-sanitizer "
                    + "--kernel-name-exclude: cuBLAS/cuBLASLt, cuDNN, cuFFT, NCCL, flash and memory-efficient "
                    + "attention, by kernel-name substrings): cheaper on a transformer, but an out-of-bounds access "
                    + "inside them (a wrong shape, stride or count passed to the library) and one in a kernel of the "
                    + "job's own whose name holds such a substring go unseen; the report says the exclusion was on."
                    + " Not for initcheck, which checks every kernel.")
    boolean excludeVendorKernels;

    @Option(
            names = "--no-gpu-lock",
            description = "do not take the GPUs exclusively on this machine (by default a run waits while another "
                    + "gpu-sanitize run holds one of its GPUs; lock folder: $GPU_SANITIZE_LOCK_DIR, default "
                    + "/tmp/gpu-sanitize-locks).")
    boolean noGpuLock;

    @Option(
            names = "--gpu-lock-timeout",
            paramLabel = "S",
            description = "seconds to wait for the GPUs to be free before the run ends with ERROR (0: do not wait). "
                    + "Default 21600 (6 h).")
    int gpuLockTimeout = RunSpec.DEFAULT_GPU_LOCK_TIMEOUT_SECONDS;

    @Option(
            names = "--no-probe",
            description = "do not put the in-process probe (a sitecustomize on PYTHONPATH) into the phases; it counts"
                    + " each run's GPU work (the proof that it ran), names the buffer an out-of-bounds access ran past,"
                    + " records the failing operator's arguments and where GPU memory was allocated (docs/probe.md).")
    boolean noProbe;

    @Option(
            names = "--probe-memory",
            negatable = true,
            description =
                    "the probe in the regression phase, attributing GPU memory to allocation sites. Default: on, "
                            + "unless --throughput-baseline is judged (it costs that phase about 10 %% throughput; docs/probe.md).")
    Boolean probeMemory;

    @Option(
            names = "--throughput-regex",
            paramLabel = "REGEX",
            description = "reads throughput from the regression output (first group), e.g. 'it/s ([0-9.]+)'.")
    String throughputRegex;

    @Option(
            names = "--throughput-baseline",
            paramLabel = "X",
            description = "expected throughput; a drop beyond the tolerance makes the build unstable.")
    Double throughputBaseline;

    @Option(
            names = "--throughput-tolerance",
            paramLabel = "FRACTION",
            description = "accepted drop below the baseline. Default 0.10.")
    double throughputTolerance = 0.10;

    @Option(
            names = "--compute-sanitizer",
            paramLabel = "PATH",
            description = "compute-sanitizer to use (default: PATH, then CUDA_HOME/bin, /usr/local/cuda/bin).")
    Path computeSanitizer;

    @Option(names = "--nvidia-smi", paramLabel = "PATH", description = "nvidia-smi to use (default: PATH).")
    Path nvidiaSmi;

    @Option(
            names = "--python",
            paramLabel = "PATH",
            description = "the job's Python for the torch probe (default: the command's python, else python3 on PATH).")
    Path python;

    @Option(names = "--nvcc", paramLabel = "PATH", description = "nvcc to check (default: PATH).")
    Path nvcc;

    @Option(
            names = "--sanitizer-arg",
            paramLabel = "ARG",
            description = "extra compute-sanitizer argument; repeatable (e.g. --sanitizer-arg=--padding=64).")
    List<String> sanitizerArgs = new ArrayList<>();

    @Option(names = "--env", paramLabel = "NAME=VALUE", description = "extra environment for every phase; repeatable.")
    Map<String, String> env = new LinkedHashMap<>();

    @Option(
            names = "--mask-env",
            paramLabel = "NAME",
            description = "mask the value of this environment variable (or --env) in everything the run writes,"
                    + " for a secret whose name gives no hint (AUTH=hf_...); repeatable.")
    List<String> maskEnv = new ArrayList<>();

    @Option(
            names = "--workdir",
            paramLabel = "DIR",
            description = "working directory of the job (default: the current one).")
    Path workdir;

    @Option(
            names = "--no-isolation",
            description = "run every phase in the working directory itself instead of a fresh copy of it each"
                    + " (docs/how-it-works.md#what-each-run-sees).")
    boolean noIsolation;

    @Option(
            names = "--keep-workspaces",
            description =
                    "keep the runs' copies of the working directory (RUN_DIR/workspaces) after the run; by default"
                            + " they are deleted once the report is written (each run's workspace.json lists what it changed).")
    boolean keepWorkspaces;

    @Option(
            names = "--share",
            paramLabel = "PATH",
            description = "a path inside the working directory every run sees as it is, not copied (a dataset);"
                    + " repeatable.")
    List<String> shared = new ArrayList<>();

    @Option(
            names = "--workspace-limit-mb",
            paramLabel = "MIB",
            description = "the most each run's copy of the working directory may hold (0: no limit). Default 4096.")
    long workspaceLimitMiB = Isolation.DEFAULT_LIMIT_MIB;

    @Option(names = "--sample-interval", paramLabel = "MS", description = "nvidia-smi sampling interval. Default 250.")
    int sampleIntervalMs = 250;

    @Option(names = "--kill-grace", paramLabel = "S", description = "seconds between SIGTERM and SIGKILL. Default 5.")
    int killGrace = 5;

    @Option(
            names = "--tool-write-grace",
            paramLabel = "S",
            description = "seconds compute-sanitizer gets to write its XML after the target is stopped. Default 15.")
    int toolWriteGrace = 15;

    @Option(
            names = "--progress-interval",
            paramLabel = "S",
            description = "seconds between progress lines. Default 10.")
    int progressInterval = 10;

    @CommandLine.Mixin
    OutputOptions output = new OutputOptions();

    @CommandLine.Mixin
    PolicyOptions policy = new PolicyOptions();

    @Parameters(
            arity = "1..*",
            paramLabel = "COMMAND",
            description = "the training command, after --; one argument with spaces is a shell string (run by sh -c).")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() {
        CommandLine cl = spec.commandLine();
        RunSpec run = toSpec(cl);
        var err = cl.getErr();
        var console = cl.getOut();
        try {
            output.checkOutputs(cl, java.util.Arrays.asList(output.reference, referenceReport), null);
            boolean quiet = output.quiet;
            Runner runner = new Runner(run, System.getenv(), line -> {
                if (!quiet) { // -q: the verdict line alone
                    console.println(line);
                    console.flush();
                }
            });
            StopSignal stop = StopSignal.install(Thread.currentThread(), run, console);
            int exit;
            try {
                Report report = runner.run();
                if (!keepWorkspaces) {
                    TreeDeletion.Outcome discarded =
                            DiscardedCopies.discard(runner.directory().root());
                    if (discarded != null && !output.quiet) {
                        console.println(DiscardedCopies.summary(
                                discarded, runner.directory().root().resolve(RunWorkspaces.FOLDER)));
                    }
                }
                output.write(report, console);
                if (!output.quiet) {
                    console.println("run directory: " + runner.directory().root());
                }
                exit = ReportOutput.exitCode(report);
            } finally {
                stop.done();
            }
            stop.leaveTheExitToTheSignal();
            return exit;
        } catch (RunException | InputException e) {
            err.println("gpu-sanitize: " + e.getMessage());
            return ExitCodes.ERROR;
        }
    }

    /** The options as a run's spec; a bad option is a ParameterException naming it, in the order they are checked. */
    RunSpec toSpec(CommandLine cl) {
        RunSpec s = new RunSpec().command(command);
        if (sanitizerCommand != null) {
            s.sanitizerCommand(List.of(sanitizerCommand));
        }
        List<Tool> checked = toolsOf(cl);
        List<Phase> toRun = phasesToRun(cl);
        timeouts.forEach((k, v) -> {
            if (v <= 0) {
                throw new CommandLine.ParameterException(cl, "--timeout " + k + ": must be positive");
            }
            s.timeoutSeconds(phase(cl, "--timeout", k), v);
        });
        s.stopAfterDefects(stopAfterDefects);
        try {
            s.coverage(CoverageMode.of(coverage, "--coverage"));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
        if (gpus != null) {
            s.gpus(gpus, "--gpu");
        }
        s.tools(checked)
                .phases(toRun)
                .printLimit(printLimit)
                .padding(padding)
                .keepCachingAllocator(keepCachingAllocator)
                .regressionSeconds(regressionSeconds)
                .regressionMultiple(regressionMultiple)
                .referenceSeconds(referenceSeconds)
                .referenceReport(referenceReport == null ? null : referenceReport.toString())
                .expandableSegments(expandableSegments)
                .probe(!noProbe)
                .overlapBlocking(!noOverlap)
                .regressionBeside(!regressionAfter)
                .excludeVendorKernels(excludeVendorKernels)
                .gpuLock(!noGpuLock)
                .gpuLockTimeoutSeconds(gpuLockTimeout)
                .probeMemory(probeMemory)
                .throughputRegex(throughputRegex)
                .throughputBaseline(throughputBaseline)
                .throughputTolerance(throughputTolerance)
                .computeSanitizer(str(computeSanitizer))
                .nvidiaSmi(str(nvidiaSmi))
                .python(str(python))
                .nvcc(str(nvcc))
                .extraSanitizerArgs(sanitizerArgs)
                .extraEnv(env)
                .maskEnv(maskEnv)
                .workDir(str(workdir))
                .isolation(new Isolation(!noIsolation, workspaceLimitMiB, shared))
                .samplerIntervalMs(sampleIntervalMs)
                .killGraceSeconds(killGrace)
                .toolWriteGraceSeconds(toolWriteGrace)
                .progressIntervalSeconds(progressInterval)
                .outDir((out != null
                                ? out
                                : Path.of("gpu-sanitize-run-"
                                        + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))))
                        .toString());
        s.suppressions(policy.suppress)
                .defaultSuppressions(!policy.noDefaultSuppressions)
                .countPyTorchKernels(policy.countPyTorchKernels);
        try {
            s.failOnNewOnly(output.newOnly());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
        if (output.reference != null) {
            s.compareWith(output.reference.toString());
        }
        gatePolicy(cl, s);
        try {
            s.validate();
        } catch (RunException e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
        return s;
    }

    private List<Tool> toolsOf(CommandLine cl) {
        List<Tool> ts = new ArrayList<>();
        for (String t : tools) {
            ts.add(Tool.fromId(t)
                    .orElseThrow(() -> new CommandLine.ParameterException(
                            cl, "--tool: unknown tool '" + t + "' (memcheck, racecheck, initcheck, synccheck)")));
        }
        return ts;
    }

    /** {@code --phases} less {@code --skip}, in the order given, each once. */
    private List<Phase> phasesToRun(CommandLine cl) {
        List<Phase> ps = new ArrayList<>();
        for (String p : phases) {
            Phase phase = phase(cl, "--phases", p);
            if (!ps.contains(phase)) {
                ps.add(phase);
            }
        }
        for (String p : skip) {
            ps.remove(phase(cl, "--skip", p));
        }
        if (ps.isEmpty()) {
            throw new CommandLine.ParameterException(cl, "no phase left to run");
        }
        return ps;
    }

    /** The gate's options, each validated with its own message. */
    private void gatePolicy(CommandLine cl, RunSpec s) {
        policy.toPolicy(cl); // validates every policy option with its own message
        policy.toolActions(cl).forEach(ta -> s.toolAction(ta.getKey(), ta.getValue()));
        if (policy.oomAction != null) {
            s.oomAction(PolicyOptions.action(cl, "--oom-action", policy.oomAction));
        }
        if (policy.growthAction != null) {
            s.memoryGrowthAction(PolicyOptions.action(cl, "--memory-growth-action", policy.growthAction));
        }
        s.growthToleranceMiBPerMin(policy.growthTolerance)
                .memoryFillHorizonHours(policy.fillHorizonHours(cl))
                .memoryMinJudgedSeconds(policy.memoryMinJudged);
    }

    private static Phase phase(CommandLine cl, String option, String p) {
        return Phase.fromId(p)
                .orElseThrow(() -> new CommandLine.ParameterException(
                        cl, option + ": unknown phase '" + p + "' (sanitizer, blocking, regression)"));
    }

    private static String str(Path p) {
        return p == null ? null : p.toString();
    }
}
