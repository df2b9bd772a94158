package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.testing.ChildJvm;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import io.jenkins.plugins.gpusanitizer.testing.RealPython;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #47, situation 9: an {@code outputs/.cache} an earlier {@code docker run} step left owned by another user, which
 * the agent's user cannot read. The plain job never reads it; the gate copies around it, says so in one line, and
 * passes. The denial is made real: as another user than the folder's owner; run as root (where a mode denies nothing),
 * the CLI goes into a user namespace of its own ({@code unshare --user --map-root-user}), where a folder of an unmapped
 * owner is as closed to it as to any agent user.
 */
class UnreadableWorkspaceEntryTest {
    /** A user that is not the agent's: the owner docker left the folder to. */
    private static final int OTHER_UID = 12345;

    @TempDir
    Path dir;

    @Test
    void aFolderTheAgentCannotReadIsLeftOutWithOneLineAndTheCleanJobPasses() throws Exception {
        boolean root = "root".equals(System.getProperty("user.name"));
        assumeTrue(
                !root || Processes.succeeds("unshare", "--user", "--map-root-user", "true"),
                "running as root without unprivileged user namespaces: nothing denies");
        Path ws = Files.createDirectories(dir.resolve("ws"));
        try (InputStream in = getClass().getResourceAsStream("/workspace-jobs/clm_job.py")) {
            Files.copy(in, ws.resolve("clm_job.py"), StandardCopyOption.REPLACE_EXISTING);
        }
        Path cache = Files.createDirectories(ws.resolve("outputs/.cache"));
        Files.writeString(cache.resolve("blob"), "docker's", StandardCharsets.UTF_8);
        if (root) {
            Files.setAttribute(cache.resolve("blob"), "unix:uid", OTHER_UID);
            Files.setAttribute(cache, "unix:uid", OTHER_UID);
            Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rwx------"));
        } else {
            Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("---------"));
        }
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).clean();
        Path console = dir.resolve("console.txt");

        List<String> cmd = new ArrayList<>(root ? List.of("unshare", "--user", "--map-root-user") : List.of());
        cmd.addAll(ChildJvm.java());
        cmd.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                GpuSanitizeCli.class.getName(),
                "run",
                "--out",
                dir.resolve("run").toString(),
                "--workdir",
                ws.toString(),
                "--no-gpu-lock",
                "--kill-grace",
                "1",
                "--tool-write-grace",
                "3",
                "--",
                python() + " clm_job.py"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.redirectOutput(console.toFile());
        pb.environment().clear();
        pb.environment().putAll(gpu.env());
        pb.environment().put("PYTHONPATH", RealPython.fakeTorch());
        Process p = pb.start();
        try {
            assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
            String out = Files.readString(console);

            assertThat(p.exitValue()).as(out).isEqualTo(ExitCodes.PASS);
            assertThat(out)
                    .contains(
                            "not copied into the runs' workspaces: outputs/.cache: cannot be listed (permission denied")
                    .doesNotContain("cp failed")
                    .doesNotContain("IOException");
            assertThat(ws.resolve("outputs/checkpoint-8/model.bin")).hasContent("trained 8 steps");
            // the runs' copies go once the report is written (--keep-workspaces keeps them); their manifests stay
            assertThat(out)
                    .contains("the runs' copies of the working directory deleted: " + dir.resolve("run/workspaces"));
            assertThat(dir.resolve("run/workspaces")).doesNotExist();
            assertThat(dir.resolve("run/regression/workspace.json")).isNotEmptyFile();
        } finally {
            Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rwx------"));
        }
        assertThat(cache.resolve("blob")).hasContent("docker's");
    }

    private static String python() throws IOException, InterruptedException {
        Process p =
                new ProcessBuilder("python3", "-c", "import os, sys; print(os.path.realpath(sys.executable))").start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        p.waitFor();
        return out;
    }
}
