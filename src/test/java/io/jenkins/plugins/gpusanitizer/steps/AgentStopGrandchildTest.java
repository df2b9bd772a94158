package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #26, 8, the Jenkins path: a build's abort reaches the agent as {@link AgentRun.Stop}, which interrupts the
 * runner; the runner asks each phase's supervisor to stop (its stop file), and the supervisor's sweep ends what the
 * job left, the grandchild started with {@code env -i} in a process group of its own included. The launcher's kill by
 * {@code JENKINS_SERVER_COOKIE} is the fallback for a supervisor that stopped answering only.
 */
@EnabledOnOs(OS.LINUX)
class AgentStopGrandchildTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private final PrintStream logger = new PrintStream(log, true, StandardCharsets.UTF_8);

    @AfterEach
    void agentForgets() {
        AgentRun.forgetForTests(dir);
    }

    @Test
    void anAbortOfTheStepEndsTheJobsGrandchildWithoutTheCookie() throws Exception {
        FakeGpu gpu =
                new FakeGpu(dir).clean().hang("blocking").hang("memcheck-app").put("blocking.grandchild", "own-group");
        String runDirectory =
                dir.resolve("workspace@tmp/gpu-sanitize/7-gpu-sanitizer").toString();
        RunSpec spec = RunSpecMapping.toSpec(new GpuSanitizeStep("python3 train.py"), runDirectory)
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(3)
                .samplerIntervalMs(100);
        AgentSide.Link link =
                new AgentSide.Link(dir.resolve("workspace").toFile(), spec, gpu.env(), new AgentSide.Controller());
        RunFollower follower = new RunFollower(runDirectory, false);
        assertThat(follower.tick(link, logger).ended()).isNull();
        String logged = FileWait.content(dir.resolve("log/grandchild-blocking.txt"), Duration.ofMinutes(2));
        assertThat(logged).as("the job started its grandchild; log:\n" + log).matches("\\d+");
        long grandchild = Long.parseLong(logged);

        follower.askToStop();
        assertThat(follower.tick(link, logger).ended()).isNull();
        assertThat(AgentRun.awaitEnd(runDirectory, 3, TimeUnit.MINUTES))
                .as("the run ended; log:\n" + log)
                .isTrue();
        AgentProgress ended = null;
        for (int i = 0; i < 100 && ended == null; i++) { // the lines left, then the end
            ended = follower.tick(link, logger).ended();
        }

        assertThat(ended).as("the follower saw the end; log:\n" + log).isNotNull();
        assertThat(ended.summary().aborted())
                .as("the summary says aborted: " + ended.summary() + "; log:\n" + log + "\nreport.json:\n"
                        + readIfAny(Path.of(runDirectory, "report.json")))
                .isTrue();
        assertThat(Processes.awaitGone(grandchild, Duration.ofSeconds(10)))
                .as("the grandchild " + grandchild + " outlived the aborted step")
                .isTrue();
        assertThat(Files.readString(Path.of(runDirectory, "blocking", "exit.status")))
                .contains("leftover process(es) of the phase killed: " + grandchild + " (sleep 300)");
    }

    private static String readIfAny(Path file) throws java.io.IOException {
        return Files.isRegularFile(file) ? Files.readString(file) : "(none)";
    }
}
