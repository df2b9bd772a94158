package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue #26, 10: the environment line when the check's Python has no torch. */
class RunnerConsoleTest {
    @TempDir
    Path dir;

    private final List<String> console = Collections.synchronizedList(new ArrayList<>());

    /** It said "torch null (CUDA null)". */
    @Test
    void aPythonWithoutTorchIsSaidSo() {
        FakeGpu gpu = new FakeGpu(dir.resolve("g"))
                .farOob()
                .put(
                        "torch-probe.json",
                        "{\"python\": \"3.12.3\", \"executable\": \"/usr/bin/python3\","
                                + " \"error\": \"ModuleNotFoundError: No module named 'torch'\"}");
        RunSpec spec = FakeGpu.farOobSpec(dir.resolve("run")).phases(List.of(Phase.BLOCKING));
        new Runner(spec, gpu.env(), console::add).run();
        String python = gpu.tools.resolve("python3").toString();
        assertThat(String.join("\n", console))
                .contains("torch not found by " + python)
                .doesNotContain("torch null", "CUDA null");
    }
}
