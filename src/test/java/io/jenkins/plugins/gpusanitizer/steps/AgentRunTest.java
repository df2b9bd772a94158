package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;

import hudson.model.TaskListener;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.results.AgentSummary;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent side of an abort (issue #12, 5), with real processes and the stand-in GPU tools: {@link
 * AgentRun.Stop} interrupts the run, the runner kills the job and writes its report, and the call
 * returns the summary marked aborted instead of throwing, so the controller can attach it.
 */
class AgentRunTest {
    @TempDir
    Path dir;

    @Test
    void stopEndsTheRunWithAPartialReport() throws Exception {
        FakeGpu gpu = new FakeGpu(dir).clean().hang("memcheck-app");
        String runDir = dir.resolve("ws@tmp/gpu-sanitize/1-gpu-sanitizer").toString();
        RunSpec spec = RunSpecMapping.toSpec(new GpuSanitizeStep("python3 train.py"), runDir)
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(2);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream logger = new PrintStream(log, true, StandardCharsets.UTF_8);
        TaskListener listener = () -> logger;
        Files.createDirectories(dir.resolve("ws"));
        AtomicReference<Object> result = new AtomicReference<>();
        Thread agent = new Thread(() -> {
            try {
                result.set(new AgentRun(spec, gpu.env(), listener, null, false)
                        .invoke(dir.resolve("ws").toFile(), null));
            } catch (Exception e) {
                result.set(e);
            }
        });
        agent.start();
        Path pid = dir.resolve("log/pid-memcheck-app.txt");
        for (int i = 0; i < 400 && !Files.isRegularFile(pid); i++) {
            Thread.sleep(25);
        }
        assertThat(pid).as("the job started").isRegularFile();
        assertThat(new AgentRun.Stop(runDir).invoke(null, null)).isTrue();
        agent.join(60_000);
        assertThat(result.get()).isInstanceOf(AgentSummary.class);
        AgentSummary s = (AgentSummary) result.get();
        assertThat(s.aborted()).isTrue();
        assertThat(s.verdict()).isEqualTo("ERROR");
        assertThat(Path.of(runDir, "report.json")).isNotEmptyFile();
        assertThat(Path.of(runDir, "report.css")).isNotEmptyFile();
        assertThat(Path.of(runDir, "sanitizer-memcheck", "stdout.log")).exists();
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("aborted");
        assertThat(AgentRun.running(runDir)).isFalse();
        assertThat(new AgentRun.Stop(runDir).invoke(null, null))
                .as("nothing left to stop")
                .isFalse();
    }
}
