package io.jenkins.plugins.gpusanitizer.engine.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Issue #25, 4: a location is named by its path under the job's working directory, a file outside it by its
 * base name. The paths are the shapes the recorded H200 runs hold (records/h200-2026-12-04c.zip.xz, far: the job
 * ran in /work/main; the tool's XML names native frames by relative debug-info paths).
 */
class WorkPathsTest {
    private static final WorkPaths MAIN = WorkPaths.of("/work/main");

    @Test
    void aFileUnderTheWorkingDirectoryIsNamedByItsPathThere() {
        assertThat(MAIN.name("/work/main/examples/lstm_job.py")).isEqualTo("examples/lstm_job.py");
        assertThat(MAIN.name("/work/main/examples/cupy_pkg/trainer/ops.py"))
                .isEqualTo("examples/cupy_pkg/trainer/ops.py");
        assertThat(WorkPaths.of("/work/main/").name("/work/main/./examples/../train.py"))
                .isEqualTo("train.py");
        assertThat(WorkPaths.of("/home/ci/my jobs").name("/home/ci/my jobs/trainer/ops.py"))
                .as("a working directory with a blank")
                .isEqualTo("trainer/ops.py");
    }

    @Test
    void anythingElseIsNamedByItsBaseName() {
        assertThat(MAIN.name("/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/modules/module.py"))
                .isEqualTo("module.py");
        assertThat(MAIN.name("/work/main/.venv/lib/python3.12/site-packages/torch/nn/functional.py"))
                .as("an installed package inside the workspace is a library, not the job's code")
                .isEqualTo("functional.py");
        assertThat(MAIN.name("/usr/lib/python3/dist-packages/numpy/core.py")).isEqualTo("core.py");
        assertThat(MAIN.name("/work/mainline/a.py")).isEqualTo("a.py");
        assertThat(MAIN.name("cupy/cuda/function.cpp")).as("native debug info").isEqualTo("function.cpp");
        assertThat(MAIN.name("train_lstm.py"))
                .as("compute-sanitizer's text output")
                .isEqualTo("train_lstm.py");
        assertThat(MAIN.name("<string>")).isEqualTo("<string>");
        assertThat(WorkPaths.UNKNOWN.name("/work/main/examples/lstm_job.py")).isEqualTo("lstm_job.py");
        assertThat(WorkPaths.of(null)).isSameAs(WorkPaths.UNKNOWN);
        assertThat(WorkPaths.of("relative/dir")).isSameAs(WorkPaths.UNKNOWN);
    }

    @Test
    void aLineReadsLikeTheLocationItselfWithTheFileNamedThere() {
        SourceLocation launch = SourceLocation.of("/work/main/examples/cupy_pkg/trainer/ops.py", 86, "jitter");
        assertThat(MAIN.at(launch)).isEqualTo("examples/cupy_pkg/trainer/ops.py:86 (jitter)");
        assertThat(WorkPaths.UNKNOWN.at(launch)).isEqualTo(launch.toString()).isEqualTo("ops.py:86 (jitter)");
    }

    @Test
    void windowsPathsCompareWithoutCase() {
        WorkPaths ws = WorkPaths.of("C:\\jenkins\\workspace\\job");
        assertThat(ws.name("c:\\Jenkins\\workspace\\job\\src\\train.py")).isEqualTo("src/train.py");
        assertThat(ws.name("D:\\jenkins\\workspace\\job\\a.py")).isEqualTo("a.py");
    }

    /**
     * Issue #42 on the card (records/h100-buffer-gate.zip.xz, cupy-oob): with isolation on the job's frames name
     * files in the sanitizer run's copy; they are the checkout's files at the same path.
     */
    @Test
    void aFileInARunsCopyIsTheWorkingDirectorysFileAtTheSamePath() {
        WorkPaths isolated = WorkPaths.of("/work/main", "/tmp/h200-buffer-bugs/cupy-oob/workspaces");
        String copied = "/tmp/h200-buffer-bugs/cupy-oob/workspaces/sanitizer-memcheck/examples/cupy_pkg/trainer/ops.py";
        assertThat(isolated.name(copied)).isEqualTo("examples/cupy_pkg/trainer/ops.py");
        assertThat(isolated.inWorkspace(copied)).isEqualTo("/work/main/examples/cupy_pkg/trainer/ops.py");
        assertThat(isolated.inWorkspace("/tmp/h200-buffer-bugs/cupy-oob/workspaces/blocking.1/train.py"))
                .as("an earlier attempt's copy")
                .isEqualTo("/work/main/train.py");
        assertThat(isolated.name("/work/main/examples/lstm_job.py")).isEqualTo("examples/lstm_job.py");
        assertThat(isolated.inWorkspace("/opt/torch/lib/module.py")).isEqualTo("/opt/torch/lib/module.py");
        assertThat(isolated.name("/tmp/h200-buffer-bugs/cupy-oob/workspaces/regression/.venv/lib/site-packages/x.py"))
                .as("an installed package in the copy")
                .isEqualTo("x.py");
        assertThat(isolated.inWorkspace("/tmp/h200-buffer-bugs/cupy-oob/workspaces/regression"))
                .as("the copy itself is no file in it")
                .isEqualTo("/tmp/h200-buffer-bugs/cupy-oob/workspaces/regression");
        assertThat(WorkPaths.of("/work/main").inWorkspace(copied))
                .as("copies unknown")
                .isEqualTo(copied);
    }

    @Test
    void aRunDirectoryInsideTheWorkspaceNamesTheCopysFileNotItsPathThrough() {
        WorkPaths ws = WorkPaths.of("/var/jenkins/ws/job", "/var/jenkins/ws/job/gpu-sanitize/workspaces");
        String copied = "/var/jenkins/ws/job/gpu-sanitize/workspaces/blocking/train.py";
        assertThat(ws.name(copied)).isEqualTo("train.py");
        assertThat(ws.relative(copied)).isEqualTo("train.py");
        assertThat(ws.inWorkspace(copied)).isEqualTo("/var/jenkins/ws/job/train.py");
    }

    /**
     * Issue #47: in a {@code dir('training')} block each run's copy is of the Jenkins workspace, the job working in
     * its {@code training} folder ({@code COPIES/* /training}): a file there is the working directory's file.
     */
    @Test
    void aCopyOfTheJenkinsWorkspaceNamesTheWorkingDirectorysFileUnderIt() {
        WorkPaths ws = WorkPaths.of(
                "/var/jenkins/ws/job/training", "/var/jenkins/ws/job/training@tmp/gs/workspaces/*/training");
        String copied = "/var/jenkins/ws/job/training@tmp/gs/workspaces/sanitizer-memcheck/training/model/ops.py";
        assertThat(ws.name(copied)).isEqualTo("model/ops.py");
        assertThat(ws.inWorkspace(copied)).isEqualTo("/var/jenkins/ws/job/training/model/ops.py");
        assertThat(ws.inWorkspace("/var/jenkins/ws/job/training@tmp/gs/workspaces/blocking/shared/util.py"))
                .as("beside the working directory in the copy: not a file of it")
                .isEqualTo("/var/jenkins/ws/job/training@tmp/gs/workspaces/blocking/shared/util.py");
    }
}
