package io.jenkins.plugins.gpusanitizer;

import edu.umd.cs.findbugs.annotations.CheckForNull;
import hudson.EnvVars;
import hudson.model.Item;
import hudson.model.ItemGroup;
import hudson.model.Job;
import hudson.model.Run;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.io.File;
import org.springframework.security.access.AccessDeniedException;

/**
 * What earlier builds tell this one: the reference report to compare defects with (for a pull
 * request the last completed build of its target branch, {@code CHANGE_TARGET} in the same
 * multibranch project; else the previous build with a report of the same id), and the failure time
 * of the last build whose run recorded one (the regression run's reference). {@code note}: why the
 * comparison was skipped, for the build log.
 */
record References(Report report, String reportBuild, Double failureSeconds, String failureBuild, String note) {
    static final int MAX_BUILDS = 50;

    /** The target branch's job, or why there is none. */
    record Target(@CheckForNull Job<?, ?> job, @CheckForNull String note) {}

    static References find(Run<?, ?> run, String id, EnvVars env) {
        Report report = null;
        String reportBuild = null;
        String note = null;
        String target = env.get("CHANGE_TARGET");
        if (target != null) {
            Target t = targetJob(run.getParent().getParent(), target);
            note = t.note();
            if (t.job() != null) {
                Run<?, ?> last = t.job().getLastCompletedBuild();
                GpuSanitizeAction a = last == null ? null : actionOf(last, id);
                if (a != null && a.getReport() != null) {
                    report = a.getReport();
                    reportBuild = target + " #" + last.getNumber();
                } else {
                    note = "no comparison: the target branch " + target + " has no completed build with a '" + id
                            + "' report";
                }
            }
        }
        Double failure = null;
        String failureBuild = null;
        int seen = 0;
        for (Run<?, ?> r = run.getPreviousBuild(); r != null && seen < MAX_BUILDS; r = r.getPreviousBuild(), seen++) {
            GpuSanitizeAction a = actionOf(r, id);
            if (a == null || !new File(a.resultDir(), "report.json").isFile()) {
                continue;
            }
            Report rep = a.getReport();
            if (rep == null) {
                continue;
            }
            if (report == null && target == null) {
                report = rep;
                reportBuild = "build #" + r.getNumber();
            }
            if (failure == null && rep.execution() != null && rep.execution().referenceFailureSeconds() != null) {
                failure = rep.execution().referenceFailureSeconds();
                failureBuild = "build #" + r.getNumber();
            }
            if (report != null && failure != null) {
                break;
            }
        }
        return new References(report, reportBuild, failure, failureBuild, note);
    }

    /**
     * The job of a branch in the same multibranch project (or folder). Branch jobs are named by
     * branch-api's {@code NameEncoder} ({@code feature/x} is the job {@code feature%2Fx}); the name as
     * given is tried too, for folders of plain jobs. {@link ItemGroup#getItem} throws {@link
     * AccessDeniedException} when the build's authentication may discover the job but not read it: the
     * comparison is then skipped with a note rather than failing the build.
     */
    static Target targetJob(@CheckForNull ItemGroup<? extends Item> parent, String branch) {
        if (parent == null) {
            return new Target(null, "no comparison: the job has no parent to find " + branch + " in");
        }
        String encoded = encodeBranchName(branch);
        try {
            Item item = parent.getItem(encoded);
            if (item == null && !encoded.equals(branch)) {
                item = parent.getItem(branch);
            }
            if (item instanceof Job<?, ?> job) {
                return new Target(job, null);
            }
            return new Target(null, "no comparison: no job for the target branch " + branch);
        } catch (AccessDeniedException e) {
            return new Target(
                    null,
                    "no comparison: this build may not read the job of the target branch " + branch + " ("
                            + e.getMessage() + ")");
        }
    }

    /** branch-api's {@code jenkins.branch.NameEncoder.encode} (2.1280): the job name of a branch. */
    static String encodeBranchName(String name) {
        if (name.isEmpty()) {
            return "%00";
        }
        if (name.equals(".")) {
            return "%2E";
        }
        if (name.equals("..")) {
            return "%2E.";
        }
        StringBuilder b = new StringBuilder(name.length() + 16);
        for (char c : name.toCharArray()) {
            switch (c) {
                case '#' -> b.append("%23");
                case '%' -> b.append("%25");
                case '/' -> b.append("%2F");
                case '?' -> b.append("%3F");
                case '[' -> b.append("%5B");
                case ']' -> b.append("%5D");
                case '\\' -> b.append("%5C");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    private static GpuSanitizeAction actionOf(Run<?, ?> r, String id) {
        return r.getActions(GpuSanitizeAction.class).stream()
                .filter(a -> a.getId().equals(id))
                .findFirst()
                .orElse(null);
    }
}
