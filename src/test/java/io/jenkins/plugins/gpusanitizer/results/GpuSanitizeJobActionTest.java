package io.jenkins.plugins.gpusanitizer.results;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import hudson.model.Job;
import hudson.model.Result;
import hudson.model.Run;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue #12, 6: the job page's trend comes from the last completed build with a report, whatever its
 * result (core's LastBuildActionFactory only looks at the last successful or unstable build), and its
 * URL has a page.
 */
class GpuSanitizeJobActionTest {
    private static GpuSanitizeBuildAction action(String id, Verdict verdict, int defects) {
        return new GpuSanitizeBuildAction(
                id,
                "GPU Sanitizer " + id,
                AgentSummary.builder()
                        .verdict(verdict)
                        .defects(defects)
                        .runDirectory("/r")
                        .build());
    }

    private static Run<?, ?> build(int number, Result result, Run<?, ?> previous, GpuSanitizeBuildAction... actions) {
        Run<?, ?> r = mock(Run.class);
        when(r.getNumber()).thenReturn(number);
        when(r.getResult()).thenReturn(result);
        when(r.getUrl()).thenReturn("job/train/" + number + "/");
        when(r.getDisplayName()).thenReturn("#" + number);
        when(r.getActions(GpuSanitizeBuildAction.class)).thenReturn(List.of(actions));
        doReturn(previous).when(r).getPreviousCompletedBuild();
        return r;
    }

    private static Job<?, ?> job(Run<?, ?> last) {
        Job<?, ?> job = mock(Job.class);
        doReturn(last).when(job).getLastCompletedBuild();
        return job;
    }

    @Test
    void aJobWhoseBuildsAllFailStillHasItsTrend() {
        Run<?, ?> first = build(1, Result.FAILURE, null, action("gpu-sanitizer", Verdict.FAIL, 2));
        Run<?, ?> second = build(2, Result.FAILURE, first, action("gpu-sanitizer", Verdict.FAIL, 1));
        Job<?, ?> job = job(second);
        List<GpuSanitizeJobAction> actions = GpuSanitizeJobAction.Factory.forJob(job);
        assertThat(actions).singleElement().satisfies(a -> {
            assertThat(a.getUrlName()).isEqualTo("gpu-sanitizer-trend-gpu-sanitizer");
            assertThat(a.getIconFileName()).isNull();
            assertThat(a.getJob()).isSameAs(job);
            assertThat(a.getLastAction().getDefects()).isEqualTo(1);
            assertThat(a.getBuilds())
                    .extracting(GpuSanitizeJobAction.Row::getBuildName)
                    .containsExactly("#2", "#1");
            assertThat(a.getTrendSvg()).contains("<svg", "#1", "#2");
        });
        assertThat(new GpuSanitizeJobAction.Factory().type()).isEqualTo(Job.class);
        assertThat(new GpuSanitizeJobAction.Factory().actionType()).isEqualTo(GpuSanitizeJobAction.class);
    }

    @Test
    void oneJobActionPerStepIdOfTheLastBuildWithAReport() {
        Run<?, ?> withReports = build(
                3, Result.UNSTABLE, null, action("memcheck", Verdict.UNSTABLE, 0), action("blocking", Verdict.PASS, 0));
        Run<?, ?> without = build(4, Result.ABORTED, withReports);
        List<GpuSanitizeJobAction> actions = GpuSanitizeJobAction.Factory.forJob(job(without));
        assertThat(actions).extracting(GpuSanitizeJobAction::getId).containsExactly("memcheck", "blocking");
        assertThat(actions.get(1).getDisplayName()).isEqualTo("GPU Sanitizer blocking");
    }

    @Test
    void noReportNoAction() {
        assertThat(GpuSanitizeJobAction.Factory.forJob(job(null))).isEmpty();
        assertThat(GpuSanitizeJobAction.Factory.forJob(job(build(1, Result.SUCCESS, null))))
                .isEmpty();
    }

    @Test
    void theBuildActionIsNoLongerALastBuildAction() {
        assertThat(GpuSanitizeBuildAction.class.getInterfaces())
                .extracting(Class::getName)
                .containsExactly("jenkins.model.RunAction2");
    }
}
