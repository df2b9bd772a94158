package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.Isolation;
import io.jenkins.plugins.gpusanitizer.testing.RealPython;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Issue #47, 13 and 14 through the runner with real processes: a research repository's run script that does
 * {@code export PYTHONPATH=./} and then {@code python3 hand_train.py}, a job that updates its weights by hand (backward
 * passes, no optimizer step) and reads a checkpoint under /tmp. The interpreter shims put the probe back, so each run
 * counts its backward passes and names the state it read outside its copy; started by its absolute path, the
 * interpreter is past any shim and the probe is gone, which the runs' probe output shows (nothing at all).
 */
@Execution(ExecutionMode.CONCURRENT)
class ProbeCarriedTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** The last gate's runs that ran the job to its end (the blocking run may be cut: {@link RunnerTest#runsToTheEnd}). */
    private List<String> runs;

    private Path workspace() throws IOException, URISyntaxException {
        Path ws = Files.createDirectories(dir.resolve("ws"));
        for (String f : List.of("run.sh", "run_absolute.sh", "hand_train.py")) {
            try (InputStream in = ProbeCarriedTest.class.getResourceAsStream("/probe-carried/" + f)) {
                Files.copy(in, ws.resolve(f));
            }
        }
        // the job's torch in its checkout, where PYTHONPATH=./ finds it: the stand-in
        Path torch = Path.of(
                ProbeCarriedTest.class.getResource("/probe/fake-torch/torch").toURI());
        try (Stream<Path> files = Files.walk(torch)) {
            for (Path p : files.filter(Files::isRegularFile)
                    .filter(p -> p.toString().endsWith(".py"))
                    .toList()) {
                Path to = ws.resolve("torch").resolve(torch.relativize(p).toString());
                Files.createDirectories(to.getParent());
                Files.copy(p, to);
            }
        }
        return ws;
    }

    private Path run(String script) throws Exception {
        Path ws = workspace();
        Path state = Files.createDirectories(dir.resolve("tmp-state")).resolve("ckpt.json");
        Files.writeString(state, "{\"step\": 1}");
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu")).clean();
        // the agent's python3 first on the job's PATH, then the stand-in GPU tools (their python3 is the stand-in's)
        Path bin = Files.createDirectories(dir.resolve("agent-bin"));
        Files.createSymbolicLink(bin.resolve("python3"), Path.of(RealPython.path()));
        Map<String, String> env = new java.util.LinkedHashMap<>(gpu.env());
        env.put("PATH", bin + java.io.File.pathSeparator + env.getOrDefault("PATH", "/usr/bin:/bin"));
        RunSpec spec = new RunSpec()
                .command(List.of("sh " + script))
                .python(gpu.tools.resolve("python3").toString())
                .workDir(ws.toString())
                .isolation(Isolation.DEFAULT)
                .outDir(dir.resolve("run").toString())
                .extraEnv(Map.of("JOB_STATE", state.toString(), "JOB_PYTHON", RealPython.path()))
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(5)
                .samplerIntervalMs(100);
        runs = RunnerTest.runsToTheEnd(new Runner(spec, env, line -> {}).run());
        return dir.resolve("run");
    }

    private static List<JsonNode> records(Path file) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                out.add(JSON.readTree(line));
            }
        }
        return out;
    }

    private static List<JsonNode> of(List<JsonNode> records, String type) {
        return records.stream()
                .filter(r -> type.equals(r.path("type").asText()))
                .toList();
    }

    @Test
    void aRunScriptThatResetsPythonpathKeepsTheProbeAndEachRunCountsItsBackwardPasses() throws Exception {
        Path run = run("run.sh");
        for (String name : runs) {
            List<JsonNode> records = records(run.resolve(name).resolve("probe.jsonl"));
            assertThat(of(records, "probe-path"))
                    .as(name + ": the shim put the probe back in front of PYTHONPATH=./")
                    .singleElement()
                    .satisfies(r -> {
                        assertThat(r.path("event").asText()).isEqualTo("restored");
                        assertThat(r.path("program").asText()).isEqualTo("python3");
                    });
            assertThat(Files.readString(run.resolve(name).resolve("stdout.log")))
                    .contains("trained steps 1 to 3");
            assertThat(of(records, "probe")).as(name + ": " + records).hasSize(1);
            JsonNode exit = of(records, "work").stream()
                    .filter(r -> r.path("event").asText().equals("exit"))
                    .findFirst()
                    .orElseThrow();
            assertThat(exit.path("steps").asInt()).as(name + ": no optimizer").isZero();
            assertThat(exit.path("backward").asInt())
                    .as(name + ": resumed at step 1 of 4")
                    .isEqualTo(3);
            assertThat(of(records, "state"))
                    .as(name + ": the checkpoint it read outside its copy")
                    .anySatisfy(r -> {
                        assertThat(r.path("event").asText()).isEqualTo("read");
                        assertThat(r.path("path").asText())
                                .isEqualTo(dir.resolve("tmp-state/ckpt.json").toString());
                    });
        }
    }

    @Test
    void anInterpreterStartedByItsAbsolutePathAfterTheResetRunsWithoutTheProbe() throws Exception {
        Path run = run("run_absolute.sh");
        for (String name : runs) {
            assertThat(Files.readString(run.resolve(name).resolve("stdout.log")))
                    .contains("trained steps 1 to 3");
            assertThat(records(run.resolve(name).resolve("probe.jsonl")))
                    .as(name + ": nothing loaded the probe, nothing counted: the run's proof of work is absent")
                    .isEmpty();
        }
    }
}
