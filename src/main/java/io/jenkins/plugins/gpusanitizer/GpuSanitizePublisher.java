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

/**
 * The controller side of one {@code gpuSanitize}: checks it runs on an agent with a workspace,
 * sends the run to the agent, copies the run directory (raw outputs and report) into the build
 * folder — also after an abort or a failed run, nothing is lost — and attaches the build action.
 */
final class GpuSanitizePublisher {
    static final String BUILD_FOLDER = "gpu-sanitizer";

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

    VerdictResult perform(GpuSanitizeStep step, Run<?, ?> run, FilePath ws, EnvVars env, TaskListener listener)
            throws IOException, InterruptedException {
        if (ws == null) {
            throw new AbortException(
                    name + ": gpuSanitize needs a workspace on a GPU agent: call it inside node('gpu') { ... }");
        }
        if (run.getAction(GpuSanitizeAction.class) != null
                && run.getActions(GpuSanitizeAction.class).stream()
                        .anyMatch(a -> a.getId().equals(id))) {
            throw new AbortException(
                    name + ": a gpuSanitize with id '" + id + "' already ran in this build: give each call its own id");
        }
        String agent = env.getOrDefault("NODE_NAME", "the agent");
        String runDir = AgentRun.runDirectory(WorkspaceList.tempDir(ws), id, run.getNumber());
        RunSpec spec;
        try {
            spec = step.toSpec(runDir);
        } catch (IllegalArgumentException e) {
            throw new AbortException(name + ": " + e.getMessage());
        }
        References refs = References.find(run, id, env);
        if (spec.referenceSeconds() == null && spec.regressionSeconds() == null && refs.failureSeconds() != null) {
            // the regression run lasts 2x the failure time of the last failing build, unless told otherwise
            spec.referenceSeconds(refs.failureSeconds());
            listener.getLogger()
                    .println("[gpu-sanitize] reference failure time " + refs.failureSeconds() + " s from "
                            + refs.failureBuild());
        }
        listener.getLogger().println("[gpu-sanitize] " + name + " on " + agent + ", run directory " + runDir);
        FilePath agentDir = ws.child(runDir);
        File target = resultDir(run.getRootDir(), id);
        AgentSummary summary;
        try {
            summary = ws.act(new AgentRun(spec, env, listener));
        } catch (InterruptedException e) {
            copyBack(agentDir, target, listener);
            throw e;
        } catch (AbortException e) {
            copyBack(agentDir, target, listener);
            throw new AbortException(e.getMessage() + " (on " + agent + ")");
        }
        copyBack(agentDir, target, listener);
        if (refs.report() != null) {
            summary = compare(target, refs, step.isFailOnNewOnly(), summary, listener);
        }
        GpuSanitizeAction action = new GpuSanitizeAction(id, name, summary);
        run.addAction(action);
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
            java.nio.file.Files.writeString(
                    new File(target, RunDirectory.REPORT_HTML).toPath(), new HtmlReport().page(compared));
            listener.getLogger()
                    .println("[gpu-sanitize] compared with " + refs.reportBuild() + ": "
                            + compared.reasons()
                                    .get(compared.reasons().size() - 1)
                                    .message());
            return Summaries.of(compared, summary.runDirectory());
        } catch (IOException | RuntimeException e) {
            listener.error("[gpu-sanitize] could not compare with " + refs.reportBuild() + ": " + e.getMessage());
            return summary;
        }
    }

    /** Best effort even while aborting: the raw outputs are the evidence. */
    private static void copyBack(FilePath agentDir, File target, TaskListener listener) {
        boolean interrupted = Thread.interrupted();
        try {
            if (agentDir.exists()) {
                FilePath dest = new FilePath(target);
                dest.mkdirs();
                agentDir.copyRecursiveTo(dest);
            }
        } catch (IOException | InterruptedException e) {
            listener.error("[gpu-sanitize] could not copy the run directory from the agent: " + e.getMessage());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
