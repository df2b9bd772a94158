package io.jenkins.plugins.gpusanitizer;

import hudson.model.Action;
import hudson.model.Job;
import hudson.model.Run;
import io.jenkins.plugins.gpusanitizer.engine.report.TrendChart;
import java.util.ArrayList;
import java.util.List;

/** On the job page: the last report's verdict and the defects per build (an SVG from the engine). */
public class GpuSanitizeJobAction implements Action {
    static final int MAX_BUILDS = 30;

    private final Job<?, ?> job;
    private final String id;
    private final String name;

    GpuSanitizeJobAction(Job<?, ?> job, String id, String name) {
        this.job = job;
        this.id = id;
        this.name = name;
    }

    @Override
    public String getIconFileName() {
        return null; // shown as a floating box, not a side-panel link
    }

    @Override
    public String getDisplayName() {
        return name;
    }

    @Override
    public String getUrlName() {
        return "gpu-sanitizer-trend-" + id;
    }

    public GpuSanitizeAction getLastAction() {
        for (Run<?, ?> r = job.getLastCompletedBuild(); r != null; r = r.getPreviousBuild()) {
            GpuSanitizeAction a = actionOf(r);
            if (a != null) {
                return a;
            }
        }
        return null;
    }

    public String getTrendSvg() {
        List<TrendChart.Point> points = new ArrayList<>();
        int seen = 0;
        for (Run<?, ?> r = job.getLastCompletedBuild();
                r != null && seen < MAX_BUILDS;
                r = r.getPreviousBuild(), seen++) {
            GpuSanitizeAction a = actionOf(r);
            if (a != null) {
                points.add(
                        0,
                        new TrendChart.Point(
                                "#" + r.getNumber(),
                                a.getDefects(),
                                a.getSuppressed(),
                                a.getVerdict(),
                                a.getDefectsByTool()));
            }
        }
        return points.isEmpty() ? null : TrendChart.svg(points);
    }

    private GpuSanitizeAction actionOf(Run<?, ?> r) {
        return r.getActions(GpuSanitizeAction.class).stream()
                .filter(a -> a.getId().equals(id))
                .findFirst()
                .orElse(null);
    }
}
