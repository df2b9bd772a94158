package io.jenkins.plugins.gpusanitizer.steps;

import hudson.AbortException;
import hudson.EnvVars;
import hudson.FilePath;
import hudson.model.Run;
import hudson.model.TaskListener;
import hudson.slaves.WorkspaceList;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.engine.run.ReferenceBuild;
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
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
    /** In the build folder: what the copy home left out (symbolic links, special files), one line each. */
    static final String NOT_COPIED = "not-copied.txt";

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
        ReferenceBuild.handTo(spec, references.report());
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
        Set<String> maskedNames = new java.util.TreeSet<>(sensitiveVariables);
        maskedNames.addAll(RunSpecMapping.maskNames(step));
        SecretMasker masker = SecretMasker.of(env, maskedNames, commands);
        if (workspace != null) {
            FilePath agentDirectory = workspace.child(runDirectory);
            boolean runEnded = ended != null;
            boolean complete = copyBack(agentDirectory, reporter.folder().directory(), masker, runEnded, listener);
            settle(agentDirectory, complete, runEnded, agent, listener);
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
     * Best effort even while aborting: the raw outputs are the evidence. On the agent, {@link
     * AgentRunFolder.Seal} masks the build's secrets in the run directory in place (once the run ended), makes it
     * private and lists its regular files; each is read from the agent without following a link ({@link
     * AgentRunFolder.Read}) and written here with the secrets masked again (the raw pages serve them). Symbolic
     * links and other special files are never copied: each is named in the build log and in {@link #NOT_COPIED}.
     *
     * @param runEnded whether the run on the agent ended (its files may be rewritten in place)
     * @return whether every regular file came home (then the agent's copy may go)
     */
    static boolean copyBack(
            FilePath agentDirectory, File target, SecretMasker masker, boolean runEnded, TaskListener listener) {
        boolean interrupted = Thread.interrupted();
        try {
            AgentRunFolder.Sealed sealed = agentDirectory.act(new AgentRunFolder.Seal(masker.secrets(), runEnded));
            if (!sealed.exists()) {
                return true;
            }
            Path root = target.toPath().toAbsolutePath().normalize();
            Files.createDirectories(root);
            boolean complete = true;
            if (!sealed.skipped().isEmpty()) {
                List<String> lines = new java.util.ArrayList<>();
                for (String skipped : sealed.skipped()) {
                    String line = masker.mask(skipped);
                    lines.add(line);
                    listener.getLogger().println("[gpu-sanitize] not copied from the run directory: " + line);
                }
                Files.write(
                        root.resolve(NOT_COPIED),
                        lines,
                        java.nio.charset.StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE,
                        LinkOption.NOFOLLOW_LINKS);
            }
            for (String relative : sealed.files()) {
                Path copy = inside(root, relative);
                Path parent = copy == null ? null : copy.getParent();
                if (parent == null) {
                    listener.error("[gpu-sanitize] not copied (outside the run directory): " + relative);
                    complete = false;
                    continue;
                }
                try {
                    Files.createDirectories(parent);
                    try (InputStream in = new AgentFileInput(agentDirectory, relative);
                            OutputStream out = Files.newOutputStream(
                                    copy,
                                    StandardOpenOption.CREATE,
                                    StandardOpenOption.TRUNCATE_EXISTING,
                                    StandardOpenOption.WRITE,
                                    LinkOption.NOFOLLOW_LINKS)) {
                        masker.copy(in, out);
                    }
                } catch (IOException e) {
                    listener.error("[gpu-sanitize] not copied: " + relative + ": " + e.getMessage());
                    complete = false;
                }
            }
            return complete;
        } catch (IOException | InterruptedException e) {
            listener.error("[gpu-sanitize] could not copy the run directory from the agent: " + e.getMessage());
            return false;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * After the copy home: the agent's run directory goes when everything came home from an ended run; else it
     * stays (masked, once the run ended) and the log says where.
     */
    static void settle(
            FilePath agentDirectory, boolean complete, boolean runEnded, String agent, TaskListener listener) {
        boolean interrupted = Thread.interrupted();
        try {
            if (complete && runEnded) {
                if (agentDirectory.act(new AgentRunFolder.Delete())) {
                    return;
                }
                log(listener, "could not delete the run directory on " + agent + ": " + agentDirectory.getRemote());
                return;
            }
            log(
                    listener,
                    "the run directory stays on " + agent + (runEnded ? ", its secrets masked" : "")
                            + (complete ? "" : " (not everything was copied home)")
                            + (runEnded ? "" : " (the run had not ended there)") + ": " + agentDirectory.getRemote());
        } catch (IOException | InterruptedException e) {
            listener.error("[gpu-sanitize] could not delete the run directory on " + agent + " ("
                    + agentDirectory.getRemote() + "): " + e.getMessage());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Where a file of the run directory (relative, with '/') lands in the build folder, or null outside it. */
    static Path inside(Path root, String relative) {
        if (relative.isEmpty() || relative.startsWith("/") || relative.contains("\\")) {
            return null;
        }
        Path copy = root.resolve(relative).normalize();
        return copy.startsWith(root) && !copy.equals(root) ? copy : null;
    }

    /** One agent file, read piece by piece through {@link AgentRunFolder.Read}. */
    private static final class AgentFileInput extends InputStream {
        private final FilePath directory;
        private final String relative;
        private long offset;
        private byte[] chunk = new byte[0];
        private int at;
        private boolean eof;

        AgentFileInput(FilePath directory, String relative) {
            this.directory = directory;
            this.relative = relative;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int from, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            if (at == chunk.length) {
                if (eof) {
                    return -1;
                }
                try {
                    chunk = directory.act(new AgentRunFolder.Read(relative, offset));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted reading " + relative);
                }
                at = 0;
                offset += chunk.length;
                eof = chunk.length < AgentRunFolder.CHUNK;
                if (chunk.length == 0) {
                    return -1;
                }
            }
            int n = Math.min(length, chunk.length - at);
            System.arraycopy(chunk, at, buffer, from, n);
            at += n;
            return n;
        }
    }

    /** Where an agent file lands in the build folder, or null for a path that would leave it. */
    static Path inside(Path root, String agentBase, String agentFile) {
        String base = agentBase.replace('\\', '/');
        String file = agentFile.replace('\\', '/');
        if (!file.startsWith(base + "/")) {
            return null;
        }
        return inside(root, file.substring(base.length() + 1));
    }

    private static void log(TaskListener listener, String message) {
        listener.getLogger().println("[gpu-sanitize] " + message);
    }
}
