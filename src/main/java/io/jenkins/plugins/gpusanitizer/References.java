package io.jenkins.plugins.gpusanitizer;

import hudson.EnvVars;
import hudson.model.Item;
import hudson.model.ItemGroup;
import hudson.model.Job;
import hudson.model.Run;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.io.File;

/**
 * What earlier builds tell this one: the reference report to compare defects with (for a pull
 * request the last completed build of its target branch, {@code CHANGE_TARGET} in the same
 * multibranch project; else the previous build with a report of the same id), and the failure time
 * of the last build whose run recorded one (the regression run's reference).
 */
record References(Report report, String reportBuild, Double failureSeconds, String failureBuild) {
    static final int MAX_BUILDS = 50;

    static References find(Run<?, ?> run, String id, EnvVars env) {
        Report report = null;
        String reportBuild = null;
        String target = env.get("CHANGE_TARGET");
        if (target != null) {
            ItemGroup<? extends Item> parent = run.getParent().getParent();
            Item item = parent == null ? null : parent.getItem(target);
            if (item instanceof Job<?, ?> job) {
                Run<?, ?> last = job.getLastCompletedBuild();
                GpuSanitizeAction a = last == null ? null : actionOf(last, id);
                if (a != null && a.getReport() != null) {
                    report = a.getReport();
                    reportBuild = target + " #" + last.getNumber();
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
        return new References(report, reportBuild, failure, failureBuild);
    }

    private static GpuSanitizeAction actionOf(Run<?, ?> r, String id) {
        return r.getActions(GpuSanitizeAction.class).stream()
                .filter(a -> a.getId().equals(id))
                .findFirst()
                .orElse(null);
    }
}
