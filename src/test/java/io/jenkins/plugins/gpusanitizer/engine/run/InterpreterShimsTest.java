package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The interpreter shims (issue #47, 14); PhaseScriptPrependTest: the phase script puts them in front of its PATH. */
class InterpreterShimsTest {
    @TempDir
    Path dir;

    /** An interpreter of {@code name} in {@code folder} that prints what it was started with. */
    private Path interpreter(String folder, String name) throws IOException {
        Path bin = Files.createDirectories(dir.resolve(folder));
        Path p = bin.resolve(name);
        Files.writeString(p, "#!/bin/sh\necho \"$0 $* PYTHONPATH=$PYTHONPATH\"\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return bin;
    }

    private static String run(Map<String, String> env, String... argv) throws Exception {
        return Processes.output(env, argv);
    }

    @Test
    void aShimPutsTheProbeBackInFrontOfAResetPythonpathAndStartsTheNextInterpreter() throws Exception {
        Path real = interpreter("agent", "python3");
        Path probe = Files.createDirectories(dir.resolve("run/probe"));
        Path shims = InterpreterShims.install(probe, real + ":/usr/bin:/bin");
        assertThat(shims).isEqualTo(probe.resolve("bin"));
        assertThat(shims.resolve("python3")).isExecutable();
        assertThat(shims.resolve("python3.99")).doesNotExist();
        Path out = dir.resolve("probe.jsonl");
        String path = shims + ":" + real + ":/usr/bin:/bin";

        String reset = run(
                Map.of("PATH", path, "PYTHONPATH", "./", "GPU_SANITIZE_PROBE_OUT", out.toString()),
                shims.resolve("python3").toString(),
                "train.py",
                "--lr",
                "a b");
        assertThat(reset).isEqualTo(real.resolve("python3") + " train.py --lr a b PYTHONPATH=" + probe + ":./\n");
        assertThat(Files.readString(out))
                .matches("\\{\"type\":\"probe-path\",\"event\":\"restored\",\"program\":"
                        + "\"python3\",\"pid\":\\d+}\n");

        String kept = run(
                Map.of("PATH", path, "PYTHONPATH", probe + ":/job/lib", "GPU_SANITIZE_PROBE_OUT", out.toString()),
                shims.resolve("python3").toString());
        assertThat(kept).endsWith("PYTHONPATH=" + probe + ":/job/lib\n");
        assertThat(Files.readAllLines(out))
                .as("nothing was reset: nothing to say")
                .hasSize(1);
    }

    @Test
    void aPathWithoutAnInterpreterGetsNoShims() throws IOException {
        Files.createDirectories(dir.resolve("empty"));
        assertThat(InterpreterShims.install(
                        dir.resolve("probe"), dir.resolve("empty").toString()))
                .isNull();
    }
}
