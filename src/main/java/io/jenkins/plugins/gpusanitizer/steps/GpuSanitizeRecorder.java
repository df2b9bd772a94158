package io.jenkins.plugins.gpusanitizer.steps;

import hudson.AbortException;
import hudson.EnvVars;
import hudson.FilePath;
import hudson.Launcher;
import hudson.model.Run;
import hudson.model.TaskListener;
import hudson.remoting.VirtualChannel;
import hudson.slaves.WorkspaceList;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.engine.run.ProcessStarter;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.results.AgentSummary;
import io.jenkins.plugins.gpusanitizer.results.BuildFolder;
import io.jenkins.plugins.gpusanitizer.results.GpuSanitizeBuildAction;
import io.jenkins.plugins.gpusanitizer.results.GpuSanitizeReporter;
import io.jenkins.plugins.gpusanitizer.results.References;
import io.jenkins.plugins.gpusanitizer.results.Summaries;
import io.jenkins.plugins.gpusanitizer.results.VerdictResult;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * The running half of one {@code gpuSanitize}: maps the step onto the engine's {@link RunSpec}, sends
 * the run to the agent ({@link AgentRun}), copies the run directory (raw outputs and report) into the
 * build folder with the build's secrets masked — also after an abort or a failed run, nothing is lost
 * — and hands the masked summary to the {@link GpuSanitizeReporter}, which publishes it.
 */
class GpuSanitizeRecorder {
    /** After the agent's own kill and write graces: time for the stop request and the answer to travel. */
    static final int STOP_MARGIN_SECONDS = 30;

    private final GpuSanitizeStep step;

    GpuSanitizeRecorder(GpuSanitizeStep step) {
        this.step = step;
    }

    /**
     * Runs the step. After an abort that {@code stop} took charge of, it returns normally with the
     * partial results attached; the caller then ends the step with the abort's cause.
     */
    VerdictResult perform(
            Run<?, ?> build,
            FilePath workspace,
            EnvVars env,
            Set<String> sensitiveVariables,
            TaskListener listener,
            Launcher launcher,
            boolean resume,
            StopControl stop)
            throws IOException, InterruptedException {
        String name = step.getName();
        GpuSanitizeReporter reporter = new GpuSanitizeReporter(step.getId(), name, build, listener);
        reporter.checkIdIsFree();
        String agent = env.getOrDefault("NODE_NAME", "the agent");
        FilePath tempDir = WorkspaceList.tempDir(workspace);
        if (tempDir == null) {
            throw new AbortException(name + ": the workspace " + workspace.getRemote() + " has no temporary directory");
        }
        String runDirectory = AgentRun.runDirectory(tempDir, step.getId(), build.getNumber());
        RunSpec spec;
        try {
            spec = RunSpecMapping.toSpec(step, runDirectory);
        } catch (IllegalArgumentException e) {
            throw new AbortException(name + ": " + e.getMessage());
        }
        References references = reporter.findReferences(env);
        if (spec.referenceSeconds() == null
                && spec.regressionSeconds() == null
                && references.failureSeconds() != null) {
            // the regression run lasts 2x the failure time of the last failing build, unless told otherwise
            spec.referenceSeconds(references.failureSeconds());
            log(
                    listener,
                    "reference failure time " + references.failureSeconds() + " s from " + references.failureBuild());
        }
        log(
                listener,
                name + (resume ? " resumed after a restart" : "") + " on " + agent + ", run directory " + runDirectory);
        SecretMasker masker = SecretMasker.of(env, sensitiveVariables);
        FilePath agentDirectory = workspace.child(runDirectory);
        File target = reporter.folder().directory();
        long grace = spec.killGraceSeconds() + spec.toolWriteGraceSeconds() + STOP_MARGIN_SECONDS;
        AgentSummary summary = null;
        InterruptedException interrupted = null;
        stop.onAgent(Thread.currentThread(), grace, () -> askToStop(workspace, runDirectory, agent, grace, listener));
        try {
            summary = runOnAgent(workspace, spec, env, listener, launcher, resume);
        } catch (InterruptedException e) {
            interrupted = e; // the grace ran out, or the channel was interrupted: still copy what is there
        } catch (AbortException e) {
            stop.offAgent();
            copyBack(agentDirectory, target, masker, listener);
            throw new AbortException(e.getMessage() + " (on " + agent + ")");
        } finally {
            stop.offAgent();
        }
        copyBack(agentDirectory, target, masker, listener);
        if (summary == null) {
            summary = fromCopiedReport(reporter.folder(), runDirectory);
        }
        if (summary == null) {
            if (stop.cause() != null) {
                log(listener, "aborted before " + agent + " wrote a report");
                return reporter.aborted();
            }
            if (interrupted != null) {
                throw interrupted;
            }
            throw new AbortException(name + ": no report from " + agent);
        }
        if (!masker.isEmpty()) {
            summary = Summaries.masked(summary, masker::mask);
        }
        summary = reporter.compareWithReference(summary, references, step.isFailOnNewOnly());
        GpuSanitizeBuildAction action = reporter.attach(summary);
        reporter.applyRetention(step.getKeepRawLogs());
        boolean aborted = stop.cause() != null || summary.aborted() || interrupted != null;
        if (aborted) {
            log(
                    listener,
                    "aborted: the results found until then are attached (" + summary.verdict() + ", "
                            + summary.defects() + " defect(s))");
            if (stop.cause() == null && interrupted != null) {
                throw interrupted;
            }
            if (stop.cause() == null) {
                throw new AbortException(name + ": the run on " + agent + " was aborted");
            }
            return reporter.aborted();
        }
        return reporter.publish(action, summary, agent);
    }

    /**
     * What runs on the agent: the engine's run in one call on a remoting thread, its progress lines
     * streamed to the build log, every process of it started through the step context's launcher
     * (so inside the build's container), exported to the agent as a {@link ProcessStarter}. The phases
     * run detached: after a restart the call is made again with {@code resume}, and the runner follows
     * them from the run directory.
     */
    AgentSummary runOnAgent(
            FilePath workspace, RunSpec spec, EnvVars env, TaskListener listener, Launcher launcher, boolean resume)
            throws IOException, InterruptedException {
        VirtualChannel channel = workspace.getChannel();
        ProcessStarter starter = new LauncherStarter(launcher, listener);
        ProcessStarter exported = channel == null ? starter : channel.export(ProcessStarter.class, starter);
        return workspace.act(new AgentRun(spec, env, listener, exported, resume));
    }

    /** On a timer thread, after an abort: the agent's runner stops, kills the job's tree and writes its report. */
    private static void askToStop(
            FilePath workspace, String runDirectory, String agent, long grace, TaskListener listener) {
        log(
                listener,
                "abort: stopping the run on " + agent + " (waiting up to " + grace
                        + " s for compute-sanitizer to write what it found)");
        try {
            if (!workspace.act(new AgentRun.Stop(runDirectory))) {
                log(listener, "the run on " + agent + " had already ended");
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            listener.error("[gpu-sanitize] could not reach " + agent + " to stop the run: " + e);
        }
    }

    /** When the agent's answer was lost (interrupted wait): the summary of the report it wrote, if any. */
    private static AgentSummary fromCopiedReport(BuildFolder folder, String runDirectory) {
        if (!folder.hasReport()) {
            return null;
        }
        try {
            return Summaries.of(ReportJson.read(folder.reportJson().toPath()), runDirectory, true);
        } catch (RuntimeException e) { // InputException: a report cut short by the abort
            return null;
        }
    }

    /**
     * Best effort even while aborting: the raw outputs are the evidence. Each file is read from the agent
     * and written here with the build's secrets masked (the raw pages serve them to every reader of the
     * job); without secrets to mask, one archive stream.
     */
    static void copyBack(FilePath agentDirectory, File target, SecretMasker masker, TaskListener listener) {
        boolean interrupted = Thread.interrupted();
        try {
            if (!agentDirectory.exists()) {
                return;
            }
            FilePath destination = new FilePath(target);
            destination.mkdirs();
            if (masker.isEmpty()) {
                agentDirectory.copyRecursiveTo(destination);
                return;
            }
            Path root = target.toPath().toAbsolutePath().normalize();
            String base = agentDirectory.getRemote();
            for (FilePath agentFile : agentDirectory.list("**", null, false)) {
                Path copy = inside(root, base, agentFile.getRemote());
                if (copy == null || copy.getParent() == null) {
                    listener.error("[gpu-sanitize] not copied (outside the run directory): " + agentFile.getRemote());
                    continue;
                }
                Files.createDirectories(copy.getParent());
                try (InputStream in = agentFile.read();
                        OutputStream out = Files.newOutputStream(copy)) {
                    masker.copy(in, out);
                }
            }
        } catch (IOException | InterruptedException e) {
            listener.error("[gpu-sanitize] could not copy the run directory from the agent: " + e.getMessage());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Where an agent file lands in the build folder, or null for a path that would leave it. */
    static Path inside(Path root, String agentBase, String agentFile) {
        String base = agentBase.replace('\\', '/');
        String file = agentFile.replace('\\', '/');
        if (!file.startsWith(base + "/")) {
            return null;
        }
        String relative = file.substring(base.length() + 1);
        if (relative.isEmpty() || relative.startsWith("/")) {
            return null;
        }
        Path copy = root.resolve(relative).normalize();
        return copy.startsWith(root) && !copy.equals(root) ? copy : null;
    }

    private static void log(TaskListener listener, String message) {
        listener.getLogger().println("[gpu-sanitize] " + message);
    }
}
