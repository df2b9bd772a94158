package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * {@code gpu-sanitize run}: validates the spec, probes the machine, schedules the planned phases and
 * always leaves a report beside the raw outputs, whatever happened on the way (a phase that crashed,
 * timed out or was aborted, a tool that is missing). Each step is its own class: {@link
 * EnvironmentProbe}, {@link PhaseScheduler} with {@link SanitizerPhase}, {@link BlockingPhase} and
 * {@link RegressionPhase} started by the {@link PhaseLauncher}, {@link RunJournal} and {@link RunReport}.
 */
public final class Runner {
    /** compute-sanitizer's exit code when it found errors; distinct from the job's own codes. */
    public static final int SANITIZER_ERROR_EXIT = SanitizerPhase.ERROR_EXIT;

    private final RunSpec spec;
    private final Map<String, String> baseEnv;
    private final ProgressLog progress;
    private final RunDirectory dir;
    private final Secrets secrets;
    private final RunReasons reasons = new RunReasons();
    private final ReferenceTime reference = new ReferenceTime();
    private final RunJournal journal;

    public Runner(RunSpec spec, Map<String, String> baseEnv, ProgressListener listener) {
        this.spec = spec;
        this.baseEnv = new LinkedHashMap<>(baseEnv);
        Map<String, String> all = new LinkedHashMap<>(baseEnv);
        all.putAll(spec.extraEnv());
        this.secrets = new Secrets(all);
        this.progress = new ProgressLog(listener, secrets);
        this.dir = new RunDirectory(Path.of(spec.outDir()).toAbsolutePath());
        this.journal = new RunJournal(spec, dir, reference);
    }

    public RunDirectory directory() {
        return dir;
    }

    /**
     * Runs everything and returns the report (also written to report.json/html in the run directory).
     * After an abort the report is complete all the same and the thread's interrupt flag is set again.
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
            journal.write(false);
            ToolLocator tools = ToolLocator.fromEnvironment(baseEnv);
            Environment environment = probeEnvironment(tools);
            if (environment != null && !"error".equals(environment.compatibility())) {
                reference.fromSpec(spec, reasons);
                aborted = new PhaseScheduler(context(environment, tools), journal).run();
            } else if (environment != null) {
                progress.say("environment incompatible: no phase run");
            }
        } catch (IOException | RuntimeException e) {
            reasons.add(Reason.error("runner", "the runner failed: " + e));
        } finally {
            try {
                journal.write(true);
            } catch (IOException e) {
                reasons.add(Reason.error("runner", "cannot write " + RunDirectory.RUN_JSON + ": " + e.getMessage()));
            }
        }
        Report report = new RunReport(spec, dir, progress).write(journal.record(true), reasons, policy);
        if (aborted) {
            Thread.currentThread().interrupt();
        }
        return report;
    }

    private PhaseContext context(Environment environment, ToolLocator tools) {
        PhaseLauncher launcher = new PhaseLauncher(
                spec, baseEnv, secrets, dir, progress, UUID.randomUUID().toString());
        PhaseProbe probe = new PhaseProbe(spec, baseEnv, new ProbeInstaller(dir.root()), reasons);
        return new PhaseContext(
                spec, Map.copyOf(baseEnv), dir, launcher, progress, reasons, reference, environment, probe, tools);
    }

    private void prepareDirectory() {
        Path root = dir.root();
        try {
            if (Files.exists(root)) {
                try (var listing = Files.list(root)) {
                    if (listing.findAny().isPresent()) {
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

    /** The driver, GPUs, torch and tools; null (with the reason) when the probe itself failed. */
    private Environment probeEnvironment(ToolLocator tools) {
        try {
            Environment environment =
                    new EnvironmentProbe(tools, baseEnv, dir.env()).probe(spec, EnvironmentProbe.needsSanitizer(spec));
            journal.environment(environment);
            progress.say("environment: driver " + environment.driverVersion() + " (CUDA "
                    + environment.driverCudaVersion() + "), "
                    + environment.gpus().size() + " GPU(s), torch "
                    + environment.torchVersion() + " (CUDA " + environment.torchCuda() + ")"
                    + (environment.computeSanitizerVersion() == null
                            ? ""
                            : ", compute-sanitizer " + environment.computeSanitizerVersion())
                    + ": " + environment.compatibility());
            environmentReasons(environment);
            return environment;
        } catch (RunException e) {
            reasons.add(Reason.error("environment", e.getMessage()));
            progress.say(e.getMessage());
            return null;
        }
    }

    private void environmentReasons(Environment environment) {
        for (String message : environment.messages()) {
            if ("error".equals(environment.compatibility())
                    && (message.contains("supports up to") || message.contains("is_available() is False"))) {
                reasons.add(Reason.error("environment", message));
            } else if (message.contains("differ in major") || message.contains("minor-version")) {
                reasons.add(Reason.warning("environment", message));
            } else {
                reasons.add(Reason.info("environment", message));
            }
        }
    }
}
