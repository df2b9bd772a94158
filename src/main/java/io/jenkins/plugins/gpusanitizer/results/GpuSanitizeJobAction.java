package io.jenkins.plugins.gpusanitizer.results;

import edu.umd.cs.findbugs.annotations.NonNull;
import hudson.Extension;
import hudson.model.Action;
import hudson.model.Job;
import hudson.model.Run;
import io.jenkins.plugins.gpusanitizer.engine.report.TrendChart;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jenkins.model.TransientActionFactory;

/**
 * On the job page: the last report's verdict and the defects per build (an SVG from the engine), one
 * per step id; its page ({@code gpu-sanitizer-trend-ID/}) lists the recent builds with a link to each
 * report.
 */
public class GpuSanitizeJobAction implements Action {
    /** The trend's length (within {@link ByIdResultSelector#HISTORY_LIMIT}). */
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
        return null; // shown as a floating box on the job page, not a side-panel link
    }

    @Override
    public String getDisplayName() {
        return name;
    }

    @Override
    public String getUrlName() {
        return "gpu-sanitizer-trend-" + id;
    }

    public Job<?, ?> getJob() {
        return job;
    }

    public String getId() {
        return id;
    }

    public GpuSanitizeBuildAction getLastAction() {
        List<Row> rows = getBuilds();
        return rows.isEmpty() ? null : rows.get(0).action();
    }

    /** One build with a report of this id, newest first. */
    public record Row(Run<?, ?> build, GpuSanitizeBuildAction action) {
        public String getBuildUrl() {
            return build.getUrl();
        }

        public String getBuildName() {
            return build.getDisplayName();
        }

        public GpuSanitizeBuildAction getAction() {
            return action;
        }
    }

    /** The completed builds of the last {@link #MAX_BUILDS} with a report of this id, newest first. */
    public List<Row> getBuilds() {
        return new ByIdResultSelector(id)
                .history(job.getLastCompletedBuild(), MAX_BUILDS, ByIdResultSelector::previousCompletedBuild)
                .map(found -> new Row(found.build(), found.action()))
                .toList();
    }

    public String getTrendSvg() {
        List<TrendChart.Point> points = new ArrayList<>();
        for (Row row : getBuilds()) {
            GpuSanitizeBuildAction action = row.action();
            points.add(
                    0,
                    new TrendChart.Point(
                            "#" + row.build().getNumber(),
                            action.getDefects(),
                            action.getSuppressed(),
                            action.getVerdict(),
                            action.getDefectsByTool()));
        }
        return points.isEmpty() ? null : TrendChart.svg(points);
    }

    /**
     * One job action per step id of the last completed build that has a report, whatever its result.
     * Core's {@code SimpleBuildStep.LastBuildActionFactory} looks only at the last successful (or
     * unstable) build, so a job whose builds all fail — the ones that need the trend — would show none.
     */
    @Extension
    @SuppressWarnings("rawtypes") // core's own factories use the raw Job, as TransientActionFactory<T> needs Class<T>
    public static final class Factory extends TransientActionFactory<Job> {
        /** How far back to look for a build with a report (builds are loaded lazily; keep it short). */
        static final int LOOKBACK = 10;

        @Override
        public Class<Job> type() {
            return Job.class;
        }

        @Override
        public Class<? extends Action> actionType() {
            return GpuSanitizeJobAction.class;
        }

        @NonNull
        @Override
        public Collection<? extends Action> createFor(@NonNull Job target) {
            return forJob(target);
        }

        static List<GpuSanitizeJobAction> forJob(Job<?, ?> job) {
            int seen = 0;
            for (Run<?, ?> build = job.getLastCompletedBuild();
                    build != null && seen < LOOKBACK;
                    build = build.getPreviousCompletedBuild(), seen++) {
                List<GpuSanitizeBuildAction> actions = build.getActions(GpuSanitizeBuildAction.class);
                if (!actions.isEmpty()) {
                    Map<String, GpuSanitizeJobAction> byId = new LinkedHashMap<>();
                    for (GpuSanitizeBuildAction action : actions) {
                        byId.putIfAbsent(
                                action.getId(), new GpuSanitizeJobAction(job, action.getId(), action.getDisplayName()));
                    }
                    return List.copyOf(byId.values());
                }
            }
            return List.of();
        }
    }
}
