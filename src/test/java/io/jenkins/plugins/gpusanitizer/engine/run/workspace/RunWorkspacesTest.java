package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runs' workspaces on their own (issue #47, review item 10): copies taken at the gate's start from one baseline, a
 * run again in a fresh copy with the earlier one kept, the Jenkins workspace copied for a {@code dir()} block, links
 * relocated, what the copies leave out said.
 */
class RunWorkspacesTest {
    @TempDir
    Path dir;

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    @Test
    void everyPlannedRunsCopyIsTakenAtTheStartAndARunAgainGetsAFreshOne() throws IOException {
        Path ws = dir.resolve("ws");
        write(ws.resolve("train.py"), "v1");
        RunWorkspaces workspaces = new RunWorkspaces(Isolation.DEFAULT, ws, ws.resolve("gpu-sanitize-run"), Map.of());
        assertThat(workspaces.check()).isNull();
        workspaces.prepare(List.of("blocking", "regression"));
        // what another step writes after the start is in no copy taken then
        write(ws.resolve("train.py"), "v2");

        Path blocking = workspaces.forRun("blocking", false);
        assertThat(blocking).isEqualTo(ws.toRealPath().resolve("gpu-sanitize-run/workspaces/blocking"));
        assertThat(blocking.resolve("train.py")).hasContent("v1");
        assertThat(workspaces.forRun("regression", false).resolve("train.py")).hasContent("v1");
        write(blocking.resolve("out.txt"), "first attempt");

        Path again = workspaces.forRun("blocking", false);
        assertThat(again).isEqualTo(blocking);
        assertThat(again.resolve("out.txt")).doesNotExist();
        assertThat(again.resolve("train.py")).hasContent("v2");
        assertThat(blocking.resolveSibling("blocking.1").resolve("out.txt")).hasContent("first attempt");
        assertThat(blocking.resolve("gpu-sanitize-run")).doesNotExist();
    }

    @Test
    void insideAJenkinsWorkspaceTheWholeWorkspaceIsCopiedAndTheRunWorksInItsFolder() throws IOException {
        Path ws = dir.resolve("ws");
        write(ws.resolve("training/train.py"), "x");
        write(ws.resolve("shared/config.yaml"), "c");
        // the step's run directory, made before the gate looks at the workspace (as the runner does)
        Path run = Files.createDirectories(ws.resolve("training@tmp/gpu-sanitize/1-x"));
        RunWorkspaces workspaces =
                new RunWorkspaces(Isolation.DEFAULT, ws.resolve("training"), run, Map.of("WORKSPACE", ws.toString()));
        workspaces.check();
        List<String> said = workspaces.prepare(List.of("regression"));

        Path folder = workspaces.forRun("regression", false);
        assertThat(folder).isEqualTo(run.toRealPath().resolve("workspaces/regression/training"));
        assertThat(folder.resolveSibling("shared/config.yaml")).hasContent("c");
        assertThat(folder.resolveSibling("training@tmp")).doesNotExist();
        assertThat(said)
                .contains("not copied into the runs' workspaces: training@tmp: a Jenkins temporary folder: "
                        + "never copied");
        Map<String, String> env = workspaces.env(
                Map.of(
                        "WORKSPACE",
                        ws.toString(),
                        "OUT",
                        ws.resolve("artifacts").toString()),
                folder);
        assertThat(env)
                .containsEntry("WORKSPACE", folder.getParent().toString())
                .containsEntry("OUT", folder.resolveSibling("artifacts").toString())
                .containsEntry("PWD", folder.toString());
    }

    @Test
    void linksLeadWhereTheyDidFromACopyAndDotDotReachesWhatLiesBeside() throws IOException {
        Path ws = dir.resolve("ws");
        write(ws.resolve("ckpt/a.bin"), "a");
        write(dir.resolve("datasets/coco128/labels.txt"), "person");
        Files.createSymbolicLink(ws.resolve("data"), Path.of("../datasets"));
        Files.createSymbolicLink(ws.resolve("best"), ws.resolve("ckpt/a.bin"));
        Files.createSymbolicLink(ws.resolve("latest"), Path.of("ckpt/a.bin"));
        RunWorkspaces workspaces = new RunWorkspaces(Isolation.DEFAULT, ws, dir.resolve("run"), Map.of());
        workspaces.check();
        workspaces.prepare(List.of("regression"));

        Path copy = workspaces.forRun("regression", false);
        assertThat(Files.readSymbolicLink(copy.resolve("best"))).isEqualTo(copy.resolve("ckpt/a.bin"));
        assertThat(Files.readSymbolicLink(copy.resolve("latest"))).isEqualTo(Path.of("ckpt/a.bin"));
        assertThat(copy.resolve("data/coco128/labels.txt")).hasContent("person");
        assertThat(copy.resolve("../datasets/coco128/labels.txt")).hasContent("person");
        // the copy's own name beside it is no way back to the original
        assertThat(copy.resolve("../ws")).doesNotExist();
    }
}
