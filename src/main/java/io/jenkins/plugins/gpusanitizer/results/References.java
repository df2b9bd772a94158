package io.jenkins.plugins.gpusanitizer.results;

import edu.umd.cs.findbugs.annotations.CheckForNull;
import hudson.EnvVars;
import hudson.model.Item;
import hudson.model.ItemGroup;
import hudson.model.Job;
import hudson.model.Run;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.util.Iterator;
import org.springframework.security.access.AccessDeniedException;

/**
 * What earlier builds tell this one: the reference report to compare defects with (for a pull
 * request the last completed build of its target branch, {@code CHANGE_TARGET} in the same
 * multibranch project; else the previous build with a report of the same id), and the failure time
 * of the last build whose run recorded one (the regression run's reference). {@code note}: why the
 * comparison was skipped, for the build log.
 */
public record References(Report report, String reportBuild, Double failureSeconds, String failureBuild, String note) {
    /** How many earlier builds are searched for the reference report and failure time. */
    static final int MAX_BUILDS = ByIdResultSelector.HISTORY_LIMIT;

    /** The target branch's job, or why there is none. */
    record Target(@CheckForNull Job<?, ?> job, @CheckForNull String note) {}

    static References find(Run<?, ?> build, String id, EnvVars env) {
        ByIdResultSelector selector = new ByIdResultSelector(id);
        Report report = null;
        String reportBuild = null;
        String note = null;
        String target = env.get("CHANGE_TARGET");
        if (target != null) {
            Target targetJob = targetJob(build.getParent().getParent(), target);
            note = targetJob.note();
            Job<?, ?> job = targetJob.job();
            if (job != null) {
                Run<?, ?> last = job.getLastCompletedBuild();
                Report targetReport = selector.select(last)
                        .map(GpuSanitizeBuildAction::getReport)
                        .orElse(null);
                if (targetReport != null) {
                    report = targetReport;
                    reportBuild = target + " #" + last.getNumber();
                } else {
                    note = "no comparison: the target branch " + target + " has no completed build with a '" + id
                            + "' report";
                }
            }
        }
        Double failure = null;
        String failureBuild = null;
        Iterator<ByIdResultSelector.Found> earlier = selector.history(
                        build.getPreviousBuild(), MAX_BUILDS, ByIdResultSelector::previousBuild)
                .iterator();
        while (earlier.hasNext() && (report == null || failure == null)) {
            ByIdResultSelector.Found found = earlier.next();
            if (!found.action().getFolder().hasReport()) {
                continue;
            }
            Report earlierReport = found.action().getReport();
            if (earlierReport == null) {
                continue;
            }
            if (report == null && target == null) {
                report = earlierReport;
                reportBuild = "build #" + found.build().getNumber();
            }
            if (failure == null
                    && earlierReport.execution() != null
                    && earlierReport.execution().referenceFailureSeconds() != null) {
                failure = earlierReport.execution().referenceFailureSeconds();
                failureBuild = "build #" + found.build().getNumber();
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
        StringBuilder encoded = new StringBuilder(name.length() + 16);
        for (char c : name.toCharArray()) {
            switch (c) {
                case '#' -> encoded.append("%23");
                case '%' -> encoded.append("%25");
                case '/' -> encoded.append("%2F");
                case '?' -> encoded.append("%3F");
                case '[' -> encoded.append("%5B");
                case ']' -> encoded.append("%5D");
                case '\\' -> encoded.append("%5C");
                default -> encoded.append(c);
            }
        }
        return encoded.toString();
    }
}
