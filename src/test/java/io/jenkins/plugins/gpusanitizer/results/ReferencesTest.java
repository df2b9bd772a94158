package io.jenkins.plugins.gpusanitizer.results;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;

import hudson.model.Item;
import hudson.model.ItemGroup;
import hudson.model.Job;
import org.junit.jupiter.api.Test;
import org.springframework.security.access.AccessDeniedException;

/** Issue #12, 7: the target branch's job, looked up as branch-api names it and with the build's permissions. */
class ReferencesTest {
    @SuppressWarnings("unchecked")
    private static ItemGroup<Item> group() {
        return mock(ItemGroup.class);
    }

    @Test
    void branchNamesAreEncodedAsBranchApiNamesTheirJobs() {
        assertThat(References.encodeBranchName("main")).isEqualTo("main");
        assertThat(References.encodeBranchName("feature/gpu-oob")).isEqualTo("feature%2Fgpu-oob");
        assertThat(References.encodeBranchName("release/1.0#2?[x]\\%")).isEqualTo("release%2F1.0%232%3F%5Bx%5D%5C%25");
        assertThat(References.encodeBranchName("")).isEqualTo("%00");
        assertThat(References.encodeBranchName(".")).isEqualTo("%2E");
        assertThat(References.encodeBranchName("..")).isEqualTo("%2E.");
    }

    @Test
    void theEncodedNameFindsTheBranchJob() {
        ItemGroup<Item> mbp = group();
        Job<?, ?> branch = mock(Job.class);
        doReturn(branch).when(mbp).getItem("feature%2Fgpu-oob");
        References.Target t = References.targetJob(mbp, "feature/gpu-oob");
        assertThat(t.job()).isSameAs(branch);
        assertThat(t.note()).isNull();
    }

    @Test
    void aFolderOfPlainJobsIsSearchedByTheNameAsGiven() {
        ItemGroup<Item> folder = group();
        Job<?, ?> job = mock(Job.class);
        doReturn(job).when(folder).getItem("main");
        assertThat(References.targetJob(folder, "main").job()).isSameAs(job);
    }

    @Test
    void aJobTheBuildMayDiscoverButNotReadSkipsTheComparison() {
        ItemGroup<Item> mbp = group();
        doThrow(new AccessDeniedException("Please login to access job main"))
                .when(mbp)
                .getItem("main");
        References.Target t = References.targetJob(mbp, "main");
        assertThat(t.job()).isNull();
        assertThat(t.note()).contains("no comparison", "may not read", "main", "Please login to access job main");
    }

    @Test
    void noSuchBranchOrNoParentIsANoteToo() {
        assertThat(References.targetJob(group(), "gone").note()).contains("no job for the target branch gone");
        assertThat(References.targetJob(null, "main").note()).contains("no comparison");
    }
}
