package io.jenkins.plugins.gpusanitizer.steps;

import hudson.AbortException;
import hudson.EnvVars;
import hudson.FilePath;
import hudson.model.Run;
import hudson.model.TaskListener;
import hudson.slaves.WorkspaceList;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
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
import java.util.List;
import java.util.Set;

/**
 * The controller's work of one {@code gpuSanitize}, before and after the run on the agent (warnings-ng's
 * IssuesRecorder shape): {@link #prepare} maps the step onto the engine's {@link RunSpec} in the
 * agent's run directory and takes the reference failure time from earlier builds; {@link #collect}
 * copies the run directory (raw outputs and report) into the build folder with the build's secrets
 * masked, also after an abort or a failed run (nothing is lost), and hands the masked summary to the
 * {@link GpuSanitizeReporter}, which publishes it. The run itself is followed by {@link RunFollower}.
 */
class GpuSanitizeRecorder {
    private final GpuSanitizeStep step;

    GpuSanitizeRecorder(GpuSanitizeStep step) {
        this.step = step;
    }

    /** The run to start: its spec, in the agent's run directory. */
    RunSpec prepare(Run<?, ?> build, FilePath workspace, EnvVars env, TaskListener listener)
            throws IOException, InterruptedException {
        String name = step.getName();
        GpuSanitizeReporter reporter = new GpuSanitizeReporter(step.getId(), name, build, listener);
        reporter.checkIdIsFree();
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
        log(listener, name + " on " + agentName(env) + ", run directory " + runDirectory);
        return spec;
    }

    /**
     * After the run ended on the agent (or could not be followed to its end): copies the evidence back,
     * attaches the result and says how it lands on the build. Runs once per run; a second time (a restart
     * during the collection) replaces what the first attached.
     *
     * @param workspace the live workspace, or null when the agent is gone (then only what is known is attached)
     * @param ended     the agent's last answer, or null when there is none (an abort that could not wait)
     * @param aborted   whether the user aborted the step
     */
    VerdictResult collect(
            Run<?, ?> build,
            FilePath workspace,
            EnvVars env,
            Set<String> sensitiveVariables,
            TaskListener listener,
            String runDirectory,
            AgentProgress ended,
            boolean aborted)
            throws IOException, InterruptedException {
        String name = step.getName();
        String agent = agentName(env);
        GpuSanitizeReporter reporter = new GpuSanitizeReporter(step.getId(), name, build, listener);
        List<List<String>> commands = new java.util.ArrayList<>();
        commands.add(List.of(step.getCommand()));
        if (step.getSanitizerCommand() != null) {
            commands.add(List.of(step.getSanitizerCommand()));
        }
        SecretMasker masker = SecretMasker.of(env, sensitiveVariables, commands);
        if (workspace != null) {
            copyBack(workspace.child(runDirectory), reporter.folder().directory(), masker, listener);
        }
        AgentSummary summary = ended == null ? null : ended.summary();
        if (summary == null) {
            summary = fromCopiedReport(reporter.folder(), runDirectory);
        }
        if (summary == null) {
            if (aborted) {
                log(listener, "aborted before " + agent + " wrote a report");
                return reporter.aborted();
            }
            String failure = ended == null ? null : ended.failure();
            throw new AbortException(
                    (failure == null ? name + ": no report from " + agent : failure) + " (on " + agent + ")");
        }
        if (!masker.isEmpty()) {
            summary = Summaries.masked(summary, masker::mask);
        }
        References references = reporter.findReferences(env);
        summary = reporter.compareWithReference(summary, references, step.isFailOnNewOnly());
        GpuSanitizeBuildAction action = reporter.attach(summary);
        reporter.applyRetention(step.getKeepRawLogs());
        if (aborted || summary.aborted()) {
            log(
                    listener,
                    "aborted: the results found until then are attached (" + summary.verdict() + ", "
                            + summary.defects() + " defect(s))");
            if (!aborted) {
                throw new AbortException(name + ": the run on " + agent + " was aborted");
            }
            return reporter.aborted();
        }
        return reporter.publish(action, summary, agent);
    }

    static String agentName(EnvVars env) {
        return env.getOrDefault("NODE_NAME", "the agent");
    }

    /** When the agent's answer was lost: the summary of the report it wrote, if any. */
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
                Path folder = copy == null ? null : copy.getParent();
                if (folder == null) {
                    listener.error("[gpu-sanitize] not copied (outside the run directory): " + agentFile.getRemote());
                    continue;
                }
                Files.createDirectories(folder);
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
