package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.CardFault;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.Environment;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.EnvironmentCheck;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.EnvironmentProbe;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.ShortCommands;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.ToolLocator;
import io.jenkins.plugins.gpusanitizer.engine.run.lock.GpuLock;
import io.jenkins.plugins.gpusanitizer.engine.run.lock.RunLease;
import io.jenkins.plugins.gpusanitizer.engine.run.process.LocalProcessStarter;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseProcess;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseScript;
import io.jenkins.plugins.gpusanitizer.engine.run.process.ProcessStarter;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.RunWorkspaces;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.WriteBackReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
    private final ProcessStarter starter;
    private final PhaseProcess.Owner owner;
    private final String runId = UUID.randomUUID().toString();
    private final RunLease lease;
    /** The job's environment: the machine's, then the spec's extra variables. */
    private final Map<String, String> jobEnv;

    /** A run on this machine whose phases end when this JVM dies (the CLI). */
    public Runner(RunSpec spec, Map<String, String> baseEnv, ProgressListener listener) {
        this(spec, baseEnv, listener, new LocalProcessStarter(), false);
    }

    /**
     * @param starter  where the run's processes start (this machine, or the build's launcher)
     * @param detached whether the phases outlive this JVM on purpose (a durable Jenkins step: after a
     *                 restart the run is resumed from its directory); otherwise they end when it dies
     */
    public Runner(
            RunSpec spec,
            Map<String, String> baseEnv,
            ProgressListener listener,
            ProcessStarter starter,
            boolean detached) {
        this.starter = starter;
        this.owner = detached ? PhaseProcess.Owner.DETACHED : PhaseProcess.Owner.thisJvm();
        this.spec = spec;
        this.baseEnv = new LinkedHashMap<>(baseEnv);
        Map<String, String> all = new LinkedHashMap<>(baseEnv);
        all.putAll(spec.extraEnv());
        this.jobEnv = java.util.Collections.unmodifiableMap(all);
        this.secrets = new Secrets(all, spec.maskEnv(), spec.commands());
        this.progress = new ProgressLog(listener, secrets);
        this.dir = new RunDirectory(Path.of(spec.outDir()).toAbsolutePath());
        this.journal = new RunJournal(spec, dir, reference, secrets);
        this.lease = new RunLease(dir.root(), detached);
    }

    /**
     * Reads every file of this jar a run uses (report.css, the probe, the supervisor and sampler scripts) into
     * {@link io.jenkins.plugins.gpusanitizer.engine.model.BundledResources}: on a Jenkins agent, while the channel
     * that serves this jar is open (issue #41, 6).
     */
    public static void preloadResources() throws java.io.IOException {
        io.jenkins.plugins.gpusanitizer.engine.model.BundledResources.preload(
                io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport.class,
                io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport.CSS_FILE);
        for (String file : ProbeInstaller.FILES) {
            io.jenkins.plugins.gpusanitizer.engine.model.BundledResources.preload(
                    ProbeInstaller.class, ProbeInstaller.RESOURCES + file);
        }
        io.jenkins.plugins.gpusanitizer.engine.model.BundledResources.preload(
                io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseScript.class,
                io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseScript.SUPERVISOR);
        io.jenkins.plugins.gpusanitizer.engine.model.BundledResources.preload(
                MemorySampler.class, MemorySampler.SCRIPT);
    }

    public RunDirectory directory() {
        return dir;
    }

    /**
     * For a starter that waits (for a controller to come back): whether this runner still drives the run.
     *
     * @throws RunException when a resumed runner took the run over: the caller steps back, the phases run on
     */
    public void checkLease() {
        lease.check();
    }

    /**
     * Runs everything and returns the report (also written to report.json/html in the run directory).
     * After an abort the report is complete all the same and the thread's interrupt flag is set again.
     *
     * @throws RunException before anything ran, for a spec that cannot run or an unusable run directory
     */
    public Report run() {
        validate();
        prepareDirectory();
        progress.say(gpuChoice);
        return execute();
    }

    /**
     * Takes up a run whose runner went away (a controller restart, an agent reconnect) from its run
     * directory: phases that were started are followed, not started again; those that had ended are
     * read from their files; the rest run as planned. A run that had finished returns its report.
     *
     * @throws RunException when the directory holds something that is not a run (none at all: it starts one)
     * @throws RunLease.Superseded in an older runner of the same directory, once this one took over
     */
    public Report resume() {
        validate();
        progress.say(gpuChoice);
        if (!Files.isRegularFile(dir.root().resolve(RunLayout.RUN_JSON))) {
            if (isEmpty(dir.root())) {
                progress.say("the run had not started before the restart: it starts now");
                return run();
            }
            throw new RunException("nothing to resume in " + dir.root() + ": it has no " + RunLayout.RUN_JSON);
        }
        RunRecord before = dir.readRecord();
        Path reportJson = dir.root().resolve(RunLayout.REPORT_JSON);
        if (before != null && before.finished() && Files.isRegularFile(reportJson)) {
            progress.say("the run had finished before the restart: its report is read back");
            return ReportJson.read(reportJson);
        }
        progress.say("resuming the run in " + dir.root());
        return execute();
    }

    private static boolean isEmpty(Path directory) {
        if (!Files.isDirectory(directory)) {
            return !Files.exists(directory);
        }
        try (var listing = Files.list(directory)) {
            return listing.findAny().isEmpty();
        } catch (IOException e) {
            return false;
        }
    }

    private String gpuChoice;

    private void validate() {
        spec.validate();
        gpuChoice = spec.selectGpus(jobEnv);
        if (spec.compareWith() != null) {
            // an unusable reference is found before the phases run, not after them
            try {
                ReportJson.read(Path.of(spec.compareWith()));
            } catch (InputException e) {
                throw new RunException("--reference: " + e.getMessage());
            }
        }
    }

    private Report execute() {
        try {
            lease.take();
        } catch (IOException e) {
            throw new RunException("cannot write " + RunLease.FILE + " in " + dir.root() + ": " + e.getMessage());
        }
        GatePolicy policy = spec.policy();
        boolean aborted = false;
        try {
            journal.write(false);
            Path supervisor = PhaseScript.installSupervisor(dir.root());
            ShortCommands commands = new ShortCommands(starter, supervisor, dir.env(), runId, owner, lease)
                    .silence(spec.supervisorSilenceSeconds() * 1000L);
            ToolLocator tools = ToolLocator.fromEnvironment(baseEnv);
            if (!starter.sharesFileSystem()) {
                tools = tools.lookingWith(queries -> commands.executables(queries, baseEnv));
            }
            EnvironmentCheck check = checkEnvironment(tools, commands);
            if (check != null) {
                aborted = runPhases(check, tools);
            }
        } catch (IOException | RuntimeException e) {
            RunLease.Superseded superseded = superseded(e);
            if (superseded != null) {
                throw superseded;
            }
            reasons.add(Reason.error("runner", runnerFailure(e)));
        }
        lease.check();
        writeBack(aborted);
        try {
            journal.write(true);
        } catch (IOException e) {
            reasons.add(Reason.error("runner", "cannot write " + RunLayout.RUN_JSON + ": " + e.getMessage()));
        }
        Report report = new RunReport(spec, dir, progress, secrets).write(journal.record(true), reasons, policy);
        if (aborted) {
            Thread.currentThread().interrupt();
        }
        return report;
    }

    /** What went wrong, said plainly where it is the workspace cleaned under a running gate. */
    private String runnerFailure(Exception e) {
        if (!Files.isDirectory(dir.root())) {
            return "the run directory " + dir.root() + " was deleted while the run went on (a workspace cleanup?):"
                    + " its phases were stopped and nothing they wrote is left; " + e;
        }
        return "the runner failed: " + e;
    }

    /**
     * The phases, once the GPUs are this run's; the first may start before the environment check answered
     * ({@link RunPlan#besideCheck}), the others start after it.
     *
     * @return true when aborted
     */
    private boolean runPhases(EnvironmentCheck check, ToolLocator tools) throws IOException {
        String unfit = workspaces().check();
        if (unfit != null) {
            check.end();
            reasons.add(Reason.error("workspace", unfit));
            progress.say(unfit + ": no phase run");
            return false;
        }
        try {
            List<String> runs =
                    RunPlan.of(spec).runs().stream().map(RunPlan.Planned::name).toList();
            workspaces().prepare(runs).forEach(progress::say);
        } catch (IOException e) {
            check.end();
            reasons.add(Reason.error("workspace", e.getMessage()));
            progress.say(e.getMessage() + ": no phase run");
            return false;
        }
        boolean aborted;
        try {
            aborted = phasesOnceChecked(check, tools);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            aborted = true;
        } finally {
            // its answer is in the record whatever happened; an abort stops it rather than leave it writing
            check.end();
        }
        if (aborted || Thread.currentThread().isInterrupted()) {
            return true;
        }
        check.rethrowFailure(); // a lost lease among them
        return false;
    }

    private boolean phasesOnceChecked(EnvironmentCheck check, ToolLocator tools)
            throws IOException, InterruptedException {
        if (!RunPlan.of(spec).besideCheck() && !EnvironmentCheck.usable(check.await())) {
            progress.say("environment incompatible: no phase run");
            return false;
        }
        reference.fromSpec(spec, reasons);
        // released on every way out of here; a killed JVM's lock the OS drops
        try (GpuLock gpus = takeGpus(check.partial())) {
            if (gpus == null) {
                return Thread.currentThread().isInterrupted();
            }
            if (check.stopReason() != null) {
                progress.say("environment incompatible: no phase run"); // known while waiting for the GPU
                return false;
            }
            journal.gpuLock(gpus.directory(), gpus.gpus());
            return new PhaseScheduler(context(check, tools), journal).run();
        }
    }

    /**
     * The run's GPUs, exclusively on this machine, before any phase starts (a resumed run takes them again:
     * the lock went with the old runner's process). Null, with the reason, when they could not be taken.
     */
    private GpuLock takeGpus(Environment devices) {
        if (!spec.gpuLock()) {
            return GpuLock.none();
        }
        Path lockDir = GpuLock.directory(baseEnv);
        try {
            return GpuLock.take(
                    lockDir,
                    cards(devices),
                    GpuLock.Holder.of(baseEnv, dir.root()),
                    spec.gpuLockTimeoutSeconds(),
                    progress,
                    GpuLock.Identity.current(baseEnv));
        } catch (GpuLock.NotTaken e) {
            reasons.add(Reason.error(e.code, e.getMessage()));
        } catch (InterruptedException e) {
            reasons.add(Reason.error("aborted", "aborted while waiting for GPU(s) " + spec.gpus() + " to be free"));
            Thread.currentThread().interrupt();
        }
        return null;
    }

    /**
     * The run's cards, each locked by its UUID from nvidia-smi's list whatever spelling selected it (an index, a
     * UUID), so that two runs on one card never hold two locks; by the spelling given, said in one line, when the
     * UUID is not known.
     */
    private List<GpuLock.Card> cards(Environment devices) {
        List<GpuLock.Card> cards = new ArrayList<>();
        for (String want : spec.gpus()) {
            String uuid = devices == null
                    ? null
                    : devices.gpus().stream()
                            .filter(g -> want.equals(g.index()) || want.equals(g.uuid()))
                            .map(Environment.Gpu::uuid)
                            .filter(u -> u != null && !u.isBlank())
                            .findFirst()
                            .orElse(null);
            if (uuid == null && want.matches("(?i)(GPU|MIG)-[0-9a-f-]+")) {
                uuid = want; // a UUID is its own name
            }
            if (uuid == null) {
                progress.say("GPU " + want + ": its UUID is not known, locked as '" + want
                        + "' (another spelling of the same card would not wait for this run)");
                uuid = want;
            }
            cards.add(new GpuLock.Card(want, uuid));
        }
        return cards;
    }

    private static RunLease.Superseded superseded(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof RunLease.Superseded superseded) {
                return superseded;
            }
        }
        return null;
    }

    private PhaseContext context(EnvironmentCheck environment, ToolLocator tools) throws IOException {
        PhaseLauncher launcher =
                new PhaseLauncher(spec, baseEnv, secrets, dir, progress, runId, starter, owner, lease, workspaces());
        PhaseProbe probe = new PhaseProbe(spec, baseEnv, new ProbeInstaller(dir.root()), reasons);
        return new PhaseContext(
                spec,
                Map.copyOf(baseEnv),
                dir,
                launcher,
                progress,
                reasons,
                reference,
                environment,
                probe,
                tools,
                new BlockingEnd());
    }

    private RunWorkspaces workspaces;

    /** The runs' workspaces: copies of the working directory ({@link RunWorkspaces}), made as the gate starts. */
    private RunWorkspaces workspaces() throws IOException {
        if (workspaces == null) {
            Path work = Path.of(spec.workDir() == null ? "" : spec.workDir()).toAbsolutePath();
            try {
                workspaces = new RunWorkspaces(spec.isolation(), work, dir.root(), jobEnv);
            } catch (IllegalArgumentException e) {
                throw new RunException(e.getMessage());
            }
        }
        return workspaces;
    }

    /**
     * The working directory the build goes on with holds what one plain run of the job left: the regression run's
     * changes, else the blocking run's (the sanitizer run ran under the tool, often a shorter command). Only a run
     * that ended by itself with exit 0: a run timed out, stopped or killed (inside {@code torch.save}) is no run of the
     * job to go on from.
     */
    private void writeBack(boolean aborted) {
        if (aborted || workspaces == null || !workspaces.isolated()) {
            return;
        }
        List<PhaseJson> phases = journal.record(false).execution().phases();
        for (Phase plain : List.of(Phase.REGRESSION, Phase.BLOCKING)) {
            // the last attempt of the run decides: one set aside and run again left its copy in RUN
            PhaseJson last = phases.stream()
                    .filter(p -> plain.id().equals(p.name()))
                    .reduce((first, second) -> second)
                    .orElse(null);
            if (last != null && PhaseResult.PASSED.equals(last.status())) {
                writeBack(plain.id());
                return;
            }
        }
        progress.say("no plain run of the job ended by itself with exit 0: the working directory is as it was before"
                + " the gate (a run that timed out, was stopped or failed is not written back)");
    }

    private void writeBack(String run) {
        try {
            WriteBackReport said = workspaces.writeBack(run);
            if (said == null) {
                return;
            }
            progress.say(said.summary());
            for (String line : java.util.Arrays.asList(said.conflictLine(), said.othersLine())) {
                if (line != null) {
                    progress.say(line);
                }
            }
            if (said.conflictLine() != null) {
                reasons.add(Reason.warning("workspace-conflict", said.conflictLine()));
            }
            if (said.failedLine() != null) {
                progress.say(said.failedLine());
                reasons.add(Reason.error("workspace", said.failedLine()));
            }
            if (said.othersLine() != null) {
                reasons.add(Reason.info("workspace-others", said.othersLine()));
            }
        } catch (IOException e) {
            reasons.add(Reason.error(
                    "workspace",
                    "could not give the working directory what the " + run + " run left: " + e.getMessage()
                            + " (its copy is in " + RunWorkspaces.FOLDER + "/" + run + ")"));
        }
    }

    private void prepareDirectory() {
        Path root = dir.root();
        RunRootClaim.claim(root);
        try {
            Files.createDirectories(dir.env());
            // a later gate in the same working directory never copies this one (its copies with it)
            Files.writeString(
                    root.resolve(RunWorkspaces.RUN_MARKER),
                    "a gpu-sanitize run directory: never copied into a run's workspace\n",
                    java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new RunException("cannot create run directory " + root + ": " + e.getMessage());
        }
    }

    /**
     * The environment check, started: the quick commands have answered, the job's Python answers on a thread of its
     * own. Null (with the reason) when the quick part failed: no GPU, a missing tool.
     */
    private EnvironmentCheck checkEnvironment(ToolLocator tools, ShortCommands commands) {
        EnvironmentProbe probe = new EnvironmentProbe(tools, baseEnv, dir.env(), commands);
        try {
            EnvironmentProbe.Devices devices = probe.devices(spec, EnvironmentProbe.needsSanitizer(spec));
            return EnvironmentCheck.start(probe, spec, devices, new EnvironmentCheck.Settler() {
                @Override
                public void known(Environment environment) {
                    settle(environment);
                }

                @Override
                public void failed(RunException e) {
                    environmentFailed(e);
                }
            });
        } catch (RunLease.Superseded e) {
            throw e;
        } catch (RunException e) {
            environmentFailed(e);
            return null;
        }
    }

    private void environmentFailed(RunException e) {
        reasons.add(Reason.error("environment", e.getMessage()));
        progress.say(e.getMessage());
    }

    private void settle(Environment environment) {
        journal.environment(environment);
        progress.say("environment: driver " + environment.driverVersion() + " (CUDA "
                + environment.driverCudaVersion() + "), "
                + environment.gpus().size() + " GPU(s), "
                + (environment.torchVersion() == null
                        ? "torch not found by "
                                + (environment.pythonPath() == null ? "the job's Python" : environment.pythonPath())
                        : "torch " + environment.torchVersion() + " (CUDA "
                                + (environment.torchCuda() == null ? "none" : environment.torchCuda()) + ")")
                + (environment.computeSanitizerVersion() == null
                        ? ""
                        : ", compute-sanitizer " + environment.computeSanitizerVersion())
                + ": " + environment.compatibility());
        environmentReasons(environment);
    }

    private void environmentReasons(Environment environment) {
        for (String message : environment.messages()) {
            if ("error".equals(environment.compatibility())
                    && (message.contains("supports up to") || message.contains("is_available() is False"))) {
                reasons.add(Reason.error("environment", message));
            } else if (message.contains("differ in major")
                    || message.contains("minor-version")
                    || message.startsWith(CardFault.MARK)) {
                reasons.add(Reason.warning("environment", message));
            } else {
                reasons.add(Reason.info("environment", message));
            }
        }
    }
}
