package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #41, 4: a secret whose name gives no hint ({@code AUTH=hf_...}) is masked once the caller names it
 * ({@link RunSpec#maskEnv}: the step's {@code maskValues}, the CLI's {@code --mask-env}, a CI's credential bindings),
 * and shown, as before, when nobody does.
 */
class MaskEnvTest {
    private static final String AUTH = "hf_NoHintInTheName31";

    @TempDir
    Path dir;

    private String reportOf(String run, List<String> maskEnv) throws IOException {
        String quoted = "an illegal memory access was encountered while logged in as " + AUTH;
        FakeGpu gpu = new FakeGpu(dir.resolve(run + "-gpu"))
                .put(
                        "blocking.stderr",
                        Files.readString(Corpus.file("far-oob/blocking.stderr"), StandardCharsets.UTF_8)
                                .replace("an illegal memory access was encountered", quoted));
        Map<String, String> env = new LinkedHashMap<>(gpu.env());
        env.put("AUTH", AUTH);
        Path out = dir.resolve(run);
        RunSpec spec = new RunSpec()
                .command(List.of("python3", "train.py", "--auth", AUTH))
                .outDir(out.toString())
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(5)
                .progressIntervalSeconds(1)
                .samplerIntervalMs(100)
                .gpuLock(false)
                .phases(List.of(Phase.BLOCKING))
                .maskEnv(maskEnv);
        List<String> console = new ArrayList<>();
        new Runner(spec, env, console::add).run();
        return Files.readString(out.resolve("report.json"), StandardCharsets.UTF_8)
                + Files.readString(out.resolve("report.html"), StandardCharsets.UTF_8)
                + Files.readString(out.resolve("run.json"), StandardCharsets.UTF_8)
                + String.join("\n", console);
    }

    @Test
    void aVariableNamedByTheCallerIsMaskedWhateverItsNameLooksLike() throws IOException {
        assertThat(reportOf("unnamed", List.of()))
                .as("no hint, nobody named it")
                .contains(AUTH);
        String masked = reportOf("named", List.of("AUTH", "AUTH", "NOT_SET"));
        assertThat(masked).doesNotContain(AUTH).contains("while logged in as ****");
    }
}
