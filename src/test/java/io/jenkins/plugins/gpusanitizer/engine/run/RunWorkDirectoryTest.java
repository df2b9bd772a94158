package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.report.ExecutionJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * run.json and the report say the working directory the phases ran in (the Jenkins workspace): check
 * annotations are given relative to it (CheckRunTest).
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class RunWorkDirectoryTest {
    @TempDir
    Path dir;

    @Test
    void theRunRecordsTheWorkingDirectoryItsPhasesRanIn() throws Exception {
        Path workspace = Files.createDirectories(dir.resolve("workspace/job"));
        FakeGpu gpu = new FakeGpu(dir).clean();
        RunSpec spec = FakeGpu.farOobSpec(dir.resolve("run"))
                .command(List.of("python3", "train.py"))
                // as given, with a '.' segment: recorded absolute and normalised
                .workDir(workspace.resolve(".").toString());
        Report r = new Runner(spec, gpu.env(), line -> {}).run();
        assertThat(r.execution().workDirectory()).isEqualTo(workspace.toString());
        ExecutionJson recorded =
                new RunDirectory(dir.resolve("run")).readRecord().execution();
        assertThat(recorded.workDirectory()).isEqualTo(workspace.toString());
    }

    @Test
    void withoutOneTheProcesssOwnDirectoryIsRecorded() {
        assertThat(RunJournal.workDirectory(null))
                .isEqualTo(Path.of(System.getProperty("user.dir"))
                        .toAbsolutePath()
                        .normalize()
                        .toString());
        assertThat(RunJournal.workDirectory("/srv/ci/../ci/job")).isEqualTo("/srv/ci/job");
    }
}
