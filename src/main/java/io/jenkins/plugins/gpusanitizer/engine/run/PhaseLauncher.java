package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.run.lock.RunLease;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseProcess;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseScript;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseSettings;
import io.jenkins.plugins.gpusanitizer.engine.run.process.ProcessStarter;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.RunWorkspaces;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Starts a planned phase with the run's environment, waits for it and turns how it ended into a
 * {@link PhaseResult}: the command line and the variables changed are kept beside the outputs
 * ({@code command.txt}), with the job's secrets masked everywhere.
 */
final class PhaseLauncher {
    static final String MEMORY_SAMPLER_ERR = "nvidia-smi.err";
    private final RunSpec spec;
    private final Map<String, String> baseEnv;
    private final Secrets secrets;
    private final RunDirectory dir;
    private final ProgressLog progress;
    private final String runId;
    private final ProcessStarter starter;
    private final Path supervisor;
    private final PhaseProcess.Owner owner;
    private final RunLease lease;
    private final RunWorkspaces workspaces;

    PhaseLauncher(
            RunSpec spec,
            Map<String, String> baseEnv,
            Secrets secrets,
            RunDirectory dir,
            ProgressLog progress,
            String runId,
            ProcessStarter starter,
            PhaseProcess.Owner owner,
            RunLease lease,
            RunWorkspaces workspaces)
            throws IOException {
        this.lease = lease;
        this.workspaces = workspaces;
        this.spec = spec;
        this.baseEnv = Map.copyOf(baseEnv);
        this.secrets = secrets;
        this.dir = dir;
        this.progress = progress;
        this.runId = runId;
        this.starter = starter;
        this.owner = owner;
        this.supervisor = PhaseScript.installSupervisor(dir.root());
    }

    PhaseResult launch(PhaseCommand command) throws IOException {
        Map<String, String> env = new LinkedHashMap<>(baseEnv);
        env.putAll(spec.extraEnv());
        Path phaseDir = command.directory();
        lease.check();
        boolean resumed = PhaseProcess.started(phaseDir);
        // each run in its own copy of the working directory (issue #40): what another run wrote is not there; the
        // tree's absolute paths in its command line name its copy (issue #47)
        Path workspace = workspaces.forRun(command.name(), resumed);
        List<String> argv = workspaces.argv(command.argv(), workspace);
        if (!resumed) {
            Files.writeString(
                    phaseDir.resolve("command.txt"),
                    secrets.mask(String.join(" ", argv) + "\n" + describeEnv(command)) + "\n",
                    StandardCharsets.UTF_8);
            if (!command.sidecar().isEmpty()) {
                PhaseScript.writeSidecar(
                        phaseDir,
                        command.sidecar(),
                        phaseDir.resolve(RunLayout.MEMORY_CSV),
                        phaseDir.resolve(MEMORY_SAMPLER_ERR));
            }
        }
        progress.say(command.name() + (resumed ? " followed again (started before a restart)" : " started") + " on GPU "
                + command.gpu() + ": " + ProgressLog.abbreviate(String.join(" ", command.argv())));
        PhaseSettings settings = new PhaseSettings(
                command.timeoutSeconds(),
                command.stopAtSeconds(),
                command.toolWrapsTarget(),
                spec.killGraceSeconds(),
                spec.toolWriteGraceSeconds(),
                runId + "-" + command.name(),
                !command.sidecar().isEmpty(),
                spec.leftoverGraceSeconds());
        Map<String, String> jobEnv = workspaces.env(env, workspace);
        Map<String, String> set = command.set();
        if (set.containsKey(ProbeInstaller.OUT)) {
            // the probe's folders in front of the job's own PYTHONPATH and PATH as this copy sees them; the probe
            // names files opened outside this run's copy, and those in the original working directory
            set = ProbeInstaller.relocated(set, env, jobEnv);
            set.put(ProbeInstaller.ROOT, workspace.toString());
            set.put(ProbeInstaller.WORKSPACE, workspaces.original().toString());
        }
        PhaseProcess process = new PhaseProcess(
                        starter, supervisor, phaseDir, jobEnv, workspace.toString(), owner, lease)
                .silence(spec.supervisorSilenceSeconds() * 1000L);
        PhaseProcess.Outcome outcome = process.run(
                settings,
                Math.max(1, spec.progressIntervalSeconds()),
                command.onProgress(),
                command.stopEarly(),
                argv,
                set,
                command.removed());
        maskScript(phaseDir.resolve(PhaseScript.PHASE_SCRIPT));
        workspaces.record(workspace, phaseDir);
        return result(command, outcome);
    }

    /** The phase's script holds the job's command line as given: once it ran, only its masked form is kept. */
    private void maskScript(Path script) throws IOException {
        if (Files.isRegularFile(script)) {
            String text = Files.readString(script, StandardCharsets.UTF_8);
            String masked = secrets.mask(text);
            if (!masked.equals(text)) {
                Files.writeString(script, masked, StandardCharsets.UTF_8);
            }
        }
    }

    private PhaseResult result(PhaseCommand command, PhaseProcess.Outcome outcome) throws IOException {
        Integer exitCode = outcome.exitCode();
        Integer signal = exitCode != null && exitCode > 128 && exitCode <= 128 + 64 ? exitCode - 128 : null;
        Double timeToFailure = PhaseResult.FAILED.equals(outcome.status()) ? round(outcome.wallSeconds()) : null;
        Path phaseDir = command.directory();
        List<String> files = new ArrayList<>();
        try (var listing = Files.list(phaseDir)) {
            listing.sorted()
                    .forEach(file -> files.add(dir.root().relativize(file).toString()));
        }
        String note = outcome.note();
        if (command.toolWrapsTarget() && !RunDirectory.nonEmpty(phaseDir.resolve(RunLayout.SANITIZER_XML))) {
            note = (note == null ? "" : note + "; ") + "no --save XML written: records come from the text log";
        }
        Map<String, String> shown = new LinkedHashMap<>(command.set());
        command.removed().stream().filter(baseEnv::containsKey).forEach(name -> shown.put(name, "(removed)"));
        shown.replaceAll((name, value) -> secrets.mask(value));
        return new PhaseResult(
                command.name(),
                command.phase(),
                secrets.mask(command.argv()),
                shown,
                command.gpu(),
                outcome.status(),
                exitCode,
                signal,
                round(outcome.wallSeconds()),
                timeToFailure,
                dir.root().relativize(phaseDir).toString(),
                files,
                secrets.mask(note),
                false,
                outcome.killedPids());
    }

    private String describeEnv(PhaseCommand command) {
        StringBuilder text = new StringBuilder();
        command.set()
                .forEach((name, value) ->
                        text.append(name).append('=').append(value).append('\n'));
        command.removed().stream()
                .filter(baseEnv::containsKey)
                .forEach(name -> text.append("unset ").append(name).append('\n'));
        return text.toString();
    }

    private static double round(double value) {
        return Math.round(value * 100) / 100.0;
    }
}
