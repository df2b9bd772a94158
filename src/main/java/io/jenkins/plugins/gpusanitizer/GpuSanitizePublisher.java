package io.jenkins.plugins.gpusanitizer;

import hudson.AbortException;
import hudson.EnvVars;
import hudson.FilePath;
import hudson.model.Run;
import hudson.model.TaskListener;
import hudson.slaves.WorkspaceList;
import io.jenkins.plugins.gpusanitizer.engine.report.HtmlReport;
import io.jenkins.plugins.gpusanitizer.engine.report.ReferenceComparison;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.engine.run.RunDirectory;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * The controller side of one {@code gpuSanitize}: sends the run to the agent, copies the run
 * directory (raw outputs and report) into the build folder with the build's secrets masked — also
 * after an abort or a failed run, nothing is lost — and attaches the build action.
 */
final class GpuSanitizePublisher {
    static final String BUILD_FOLDER = "gpu-sanitizer";
    /** After the agent's own kill and write graces: time for the stop request and the answer to travel. */
    static final int STOP_MARGIN_SECONDS = 30;

    private final String id;
    private final String name;

    GpuSanitizePublisher(String id, String name) {
        this.id = id;
        this.name = name;
    }

    /** The build folder of this step's results. */
    static File resultDir(File buildRoot, String id) {
        return new File(new File(buildRoot, BUILD_FOLDER), id);
    }

    /**
     * Runs the step. After an abort that {@code stop} took charge of, it returns normally with the
     * partial results attached; the caller then ends the step with the abort's cause.
     */
    VerdictResult perform(
            GpuSanitizeStep step,
            Run<?, ?> run,
            FilePath ws,
            EnvVars env,
            Set<String> sensitive,
            TaskListener listener,
            StopControl stop)
            throws IOException, InterruptedException {
        if (run.getActions(GpuSanitizeAction.class).stream()
                .anyMatch(a -> a.getId().equals(id))) {
            throw new AbortException(
                    name + ": a gpuSanitize with id '" + id + "' already ran in this build: give each call its own id");
        }
        String agent = env.getOrDefault("NODE_NAME", "the agent");
        FilePath tmp = WorkspaceList.tempDir(ws);
        if (tmp == null) {
            throw new AbortException(name + ": the workspace " + ws.getRemote() + " has no temporary directory");
        }
        String runDir = AgentRun.runDirectory(tmp, id, run.getNumber());
        RunSpec spec;
        try {
            spec = step.toSpec(runDir);
        } catch (IllegalArgumentException e) {
            throw new AbortException(name + ": " + e.getMessage());
        }
        References refs = References.find(run, id, env);
        if (refs.note() != null) {
            listener.getLogger().println("[gpu-sanitize] " + refs.note());
        }
        if (spec.referenceSeconds() == null && spec.regressionSeconds() == null && refs.failureSeconds() != null) {
            // the regression run lasts 2x the failure time of the last failing build, unless told otherwise
            spec.referenceSeconds(refs.failureSeconds());
            listener.getLogger()
                    .println("[gpu-sanitize] reference failure time " + refs.failureSeconds() + " s from "
                            + refs.failureBuild());
        }
        listener.getLogger().println("[gpu-sanitize] " + name + " on " + agent + ", run directory " + runDir);
        SecretMasker masker = SecretMasker.of(env, sensitive);
        FilePath agentDir = ws.child(runDir);
        File target = resultDir(run.getRootDir(), id);
        long grace = spec.killGraceSeconds() + spec.toolWriteGraceSeconds() + STOP_MARGIN_SECONDS;
        AgentSummary summary = null;
        InterruptedException interrupted = null;
        stop.onAgent(Thread.currentThread(), grace, () -> askToStop(ws, runDir, agent, grace, listener));
        try {
            summary = ws.act(new AgentRun(spec, env, listener));
        } catch (InterruptedException e) {
            interrupted = e; // the grace ran out, or the channel was interrupted: still copy what is there
        } catch (AbortException e) {
            stop.offAgent();
            copyBack(agentDir, target, masker, listener);
            throw new AbortException(e.getMessage() + " (on " + agent + ")");
        } finally {
            stop.offAgent();
        }
        copyBack(agentDir, target, masker, listener);
        if (summary == null) {
            summary = fromCopiedReport(target, runDir);
        }
        if (summary == null) {
            if (stop.cause() != null) {
                listener.getLogger().println("[gpu-sanitize] aborted before " + agent + " wrote a report");
                return new VerdictResult(hudson.model.Result.ABORTED, true, name + ": aborted");
            }
            if (interrupted != null) {
                throw interrupted;
            }
            throw new AbortException(name + ": no report from " + agent);
        }
        summary = Summaries.masked(summary, masker);
        if (refs.report() != null) {
            summary = compare(target, refs, step.isFailOnNewOnly(), summary, listener);
        }
        GpuSanitizeAction action = new GpuSanitizeAction(id, name, summary);
        run.addAction(action);
        boolean aborted = stop.cause() != null || summary.aborted() || interrupted != null;
        if (aborted) {
            listener.getLogger()
                    .println("[gpu-sanitize] aborted: the results found until then are attached (" + summary.verdict()
                            + ", " + summary.defects() + " defect(s))");
            if (stop.cause() == null && interrupted != null) {
                throw interrupted;
            }
            if (stop.cause() == null) {
                throw new AbortException(name + ": the run on " + agent + " was aborted");
            }
            return new VerdictResult(hudson.model.Result.ABORTED, true, name + ": aborted");
        }
        Report finalReport = action.getReport();
        if (finalReport != null) {
            ChecksPublishing.publish(run, listener, finalReport, name);
        }
        VerdictResult v = VerdictResult.of(summary, name);
        listener.getLogger().println("[gpu-sanitize] " + v.message());
        if ("ERROR".equals(summary.verdict())) {
            return new VerdictResult(v.result(), true, v.message() + " (on " + agent + ")");
        }
        return v;
    }

    /** On a timer thread, after an abort: the agent's runner stops, kills the job's tree and writes its report. */
    private static void askToStop(FilePath ws, String runDir, String agent, long grace, TaskListener listener) {
        listener.getLogger()
                .println("[gpu-sanitize] abort: stopping the run on " + agent + " (waiting up to " + grace
                        + " s for compute-sanitizer to write what it found)");
        try {
            if (!ws.act(new AgentRun.Stop(runDir))) {
                listener.getLogger().println("[gpu-sanitize] the run on " + agent + " had already ended");
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            listener.error("[gpu-sanitize] could not reach " + agent + " to stop the run: " + e);
        }
    }

    /** When the agent's answer was lost (interrupted wait): the summary of the report it wrote, if any. */
    private static AgentSummary fromCopiedReport(File target, String runDir) {
        File json = new File(target, RunDirectory.REPORT_JSON);
        if (!json.isFile()) {
            return null;
        }
        try {
            return Summaries.of(ReportJson.read(json.toPath()), runDir, true);
        } catch (RuntimeException e) { // InputException: a report cut short by the abort
            return null;
        }
    }

    /** Marks defects new / outstanding against the reference build and lists the fixed ones; rewrites report.json. */
    private static AgentSummary compare(
            File target, References refs, boolean newOnly, AgentSummary summary, TaskListener listener) {
        File json = new File(target, RunDirectory.REPORT_JSON);
        if (!json.isFile()) {
            return summary;
        }
        try {
            Report compared = ReferenceComparison.apply(
                    ReportJson.read(json.toPath()), refs.report(), refs.reportBuild(), newOnly);
            ReportJson.write(compared, json.toPath());
            new HtmlReport().writePage(compared, new File(target, RunDirectory.REPORT_HTML).toPath());
            listener.getLogger()
                    .println("[gpu-sanitize] compared with " + refs.reportBuild() + ": "
                            + compared.reasons()
                                    .get(compared.reasons().size() - 1)
                                    .message());
            // report.json came through the masked copy-back: what the summary takes from it is masked too
            return Summaries.of(compared, summary.runDirectory(), summary.aborted());
        } catch (IOException | RuntimeException e) {
            listener.error("[gpu-sanitize] could not compare with " + refs.reportBuild() + ": " + e.getMessage());
            return summary;
        }
    }

    /**
     * Best effort even while aborting: the raw outputs are the evidence. Each file is read from the agent
     * and written here with the build's secrets masked (the raw pages serve them to every reader of the
     * job); without secrets to mask, one archive stream.
     */
    static void copyBack(FilePath agentDir, File target, SecretMasker masker, TaskListener listener) {
        boolean interrupted = Thread.interrupted();
        try {
            if (!agentDir.exists()) {
                return;
            }
            FilePath dest = new FilePath(target);
            dest.mkdirs();
            if (masker.isEmpty()) {
                agentDir.copyRecursiveTo(dest);
                return;
            }
            Path root = target.toPath().toAbsolutePath().normalize();
            String base = agentDir.getRemote();
            for (FilePath f : agentDir.list("**", null, false)) {
                Path out = inside(root, base, f.getRemote());
                if (out == null || out.getParent() == null) {
                    listener.error("[gpu-sanitize] not copied (outside the run directory): " + f.getRemote());
                    continue;
                }
                Files.createDirectories(out.getParent());
                try (InputStream in = f.read();
                        OutputStream o = Files.newOutputStream(out)) {
                    masker.copy(in, o);
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
        String b = agentBase.replace('\\', '/');
        String f = agentFile.replace('\\', '/');
        if (!f.startsWith(b + "/")) {
            return null;
        }
        String rel = f.substring(b.length() + 1);
        if (rel.isEmpty() || rel.startsWith("/")) {
            return null;
        }
        Path out = root.resolve(rel).normalize();
        return out.startsWith(root) && !out.equals(root) ? out : null;
    }
}
