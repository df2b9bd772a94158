package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #26, 4: the card a CI assigned through CUDA_VISIBLE_DEVICES is the run's unless --gpu says otherwise;
 * the console says which card and why; an empty assignment is one line, never GPU 0.
 */
class RunnerGpuChoiceTest {
    @TempDir
    Path dir;

    private final List<String> console = Collections.synchronizedList(new ArrayList<>());

    private RunSpec spec(String out) {
        return FakeGpu.farOobSpec(dir.resolve(out)).phases(List.of(Phase.BLOCKING));
    }

    private Map<String, String> env(FakeGpu gpu, String assigned) {
        Map<String, String> env = new LinkedHashMap<>(gpu.env());
        env.put("CUDA_VISIBLE_DEVICES", assigned);
        return env;
    }

    @Test
    void theInheritedAssignmentIsUsedAndSaid() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).farOob().put("gpu-count", "2");
        RunSpec spec = spec("run");
        new Runner(spec, env(gpu, "1"), console::add).run();
        assertThat(spec.gpus()).containsExactly("1");
        assertThat(console).contains("[gpu-sanitize] GPU 1 from CUDA_VISIBLE_DEVICES");
        assertThat(gpu.logged("env-blocking.txt")).contains("CUDA_VISIBLE_DEVICES=1\n");
        assertThat(Files.readString(dir.resolve("run/run.json"))).contains("\"gpu\" : \"1\"");
    }

    @Test
    void gpuOverridesTheInheritedAssignment() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).farOob().put("gpu-count", "2");
        RunSpec spec = spec("run").gpus(List.of("0"));
        new Runner(spec, env(gpu, "1"), console::add).run();
        assertThat(console).contains("[gpu-sanitize] GPU 0 from --gpu");
        assertThat(gpu.logged("env-blocking.txt")).contains("CUDA_VISIBLE_DEVICES=0\n");
    }

    @Test
    void severalCardsAndUuidsAreTakenAsAssigned() {
        RunSpec spec = new RunSpec().command(List.of("python3", "train.py"));
        assertThat(spec.selectGpus(Map.of("CUDA_VISIBLE_DEVICES", "1, 3")))
                .isEqualTo("GPUs 1,3 from CUDA_VISIBLE_DEVICES");
        assertThat(spec.gpus()).containsExactly("1", "3");
        RunSpec uuid = new RunSpec().command(List.of("python3", "train.py"));
        uuid.selectGpus(Map.of("CUDA_VISIBLE_DEVICES", "GPU-0000-1111"));
        assertThat(uuid.gpus()).containsExactly("GPU-0000-1111");
        assertThat(new RunSpec().selectGpus(Map.of()))
                .isEqualTo("GPU 0 from the default (no --gpu, no CUDA_VISIBLE_DEVICES)");
    }

    @Test
    void anEmptyAssignmentIsAOneLineErrorBeforeAnythingRuns() {
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).farOob();
        for (String none : List.of("", "-1")) {
            assertThatThrownBy(() -> new Runner(spec("run"), env(gpu, none), console::add).run())
                    .isInstanceOf(RunException.class)
                    .hasMessage("CUDA_VISIBLE_DEVICES='" + none
                            + "' assigns this job no GPU: choose one with --gpu (the step's gpus)");
        }
        assertThat(gpu.logged("calls.txt")).isEmpty();
    }
}
