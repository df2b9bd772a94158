package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.run.process.LocalProcessStarter;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseScript;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The run under a container-like launcher: every command goes through a prefix (as {@code docker
 * exec} or the Kubernetes container step's decorator does), and the GPU tools exist only behind it,
 * on the "image's" PATH, not on the build's. A run that started anything beside the launcher, or
 * looked for its tools on this side, could not find the bug.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class DecoratedStarterTest {
    @TempDir
    Path dir;

    @Test
    void everyProcessOfTheRunGoesThroughTheLauncherAndFindsTheToolsBehindIt() throws Exception {
        FakeGpu gpu = new FakeGpu(dir).farOob();
        Path image = Files.createDirectories(dir.resolve("image/usr/local/bin"));
        try (Stream<Path> tools = Files.list(gpu.tools)) {
            for (Path tool : tools.toList()) {
                Files.move(tool, image.resolve(tool.getFileName()));
            }
        }
        Path calls = dir.resolve("launcher-calls.txt");
        Path wrapper = dir.resolve("container-exec");
        Files.writeString(
                wrapper,
                String.join(
                        "\n",
                        "#!/bin/sh",
                        "# the container: its own PATH, its own variable, then the command",
                        "echo \"$*\" >> '" + calls + "'",
                        "PATH='" + image + "':$PATH",
                        "CONTAINER_NAME=pytorch",
                        "export PATH CONTAINER_NAME",
                        "exec \"$@\"",
                        ""),
                StandardCharsets.UTF_8);
        wrapper.toFile().setExecutable(true);
        Map<String, String> env = new LinkedHashMap<>(gpu.env());
        env.put("PATH", "/usr/bin:/bin"); // the build's PATH: no GPU tool on it
        RunSpec spec = new RunSpec()
                .command(List.of("python3", "train.py", "--bug", "far"))
                .outDir(dir.resolve("run").toString())
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(5)
                .progressIntervalSeconds(1)
                .samplerIntervalMs(100);
        List<String> console = new ArrayList<>();

        Report report =
                new Runner(spec, env, console::add, new LocalProcessStarter(List.of(wrapper.toString())), false).run();

        assertThat(report.verdict()).as(String.join("\n", console)).isEqualTo(Verdict.FAIL);
        assertThat(report.defects())
                .filteredOn(d -> !d.suppressed())
                .singleElement()
                .satisfies(d -> {
                    assertThat(d.kernel()).isEqualTo("scale_shift");
                    assertThat(d.hostLocation().line()).isEqualTo(32);
                });
        assertThat(report.diagnosis().faultAt().line()).isEqualTo(32);
        assertThat(report.execution().environment().torchVersion()).isEqualTo("2.11.0+cu130");
        assertThat(report.execution().phases())
                .extracting(PhaseJson::name)
                .containsExactly("sanitizer-memcheck", "blocking", "regression");
        assertThat(report.execution().phases().get(0).command().get(0))
                .as("compute-sanitizer as found inside the container")
                .isEqualTo(image.resolve("compute-sanitizer").toString());

        // every supervisor — each probe command, each tool lookup, each phase — was started through the launcher
        List<String> started = Files.readAllLines(calls);
        Path runDir = dir.resolve("run");
        List<String> supervised = new ArrayList<>();
        try (Stream<Path> files = Files.walk(runDir)) {
            files.filter(f -> f.getFileName().toString().equals(PhaseScript.CONF))
                    .forEach(f -> supervised.add(f.getParent().toString()));
        }
        assertThat(started)
                .allSatisfy(line -> assertThat(line).startsWith("sh " + runDir.resolve("bin/supervise.sh") + " "));
        assertThat(started.stream().map(line -> line.substring(line.lastIndexOf(' ') + 1)))
                .containsExactlyInAnyOrderElementsOf(supervised);
        // the environment check in three starts: every tool's lookup at once, the quick commands (nvidia-smi twice,
        // compute-sanitizer, nvcc) at once, the job's Python (on a thread of its own, beside the first phases)
        Path commands = runDir.resolve("env/commands");
        assertThat(supervised)
                .containsExactlyInAnyOrder(
                        commands.resolve("1-lookup").toString(),
                        commands.resolve("2-quick").toString(),
                        commands.resolve("3-python3").toString(),
                        runDir.resolve("sanitizer-memcheck").toString(),
                        runDir.resolve("blocking").toString(),
                        runDir.resolve("regression").toString());
        assertThat(commands.resolve("2-quick/phase.sh"))
                .content()
                .contains(
                        image.resolve("nvidia-smi").toString(),
                        image.resolve("compute-sanitizer").toString());
        // and the job itself ran in the container, in each of its three modes
        for (String mode : List.of("memcheck-app", "blocking", "async")) {
            assertThat(gpu.logged("env-" + mode + ".txt")).as(mode).contains("CONTAINER_NAME=pytorch");
        }
        assertThat(gpu.logged("calls.txt")).contains("nvidia-smi --query-gpu=timestamp");
    }

    @Test
    void aRunDirectoryTheContainerDoesNotSeeIsAClearErrorNotAWait() throws IOException {
        FakeGpu gpu = new FakeGpu(dir).clean();
        Path wrapper = dir.resolve("container-exec");
        // a container that mounts nothing of this side: the run directory's paths do not exist in it
        Files.writeString(wrapper, "#!/bin/sh\nexec \"$1\" \"/mnt/elsewhere$2\" \"/mnt/elsewhere$3\"\n");
        wrapper.toFile().setExecutable(true);
        RunSpec spec = new RunSpec()
                .command(List.of("python3", "train.py"))
                .outDir(dir.resolve("outside-the-workspace").toString())
                .supervisorSilenceSeconds(5); // a supervisor that never beat is known for absent then (15 s by default)
        List<String> console = new ArrayList<>();

        Report report = new Runner(
                        spec, gpu.env(), console::add, new LocalProcessStarter(List.of(wrapper.toString())), false)
                .run();

        assertThat(report.verdict()).isEqualTo(Verdict.ERROR);
        assertThat(report.execution().phases()).isEmpty();
        assertThat(report.reasons())
                .anyMatch(reason -> reason.code().equals("environment")
                        && reason.message().contains("never started in " + dir.resolve("outside-the-workspace"))
                        && reason.message().contains("must be visible where the job runs")
                        && !reason.message().contains("\n"));
    }
}
