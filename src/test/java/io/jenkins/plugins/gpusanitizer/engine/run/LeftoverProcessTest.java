package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.ReasonJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Processes of a phase that go on after its main process ended by itself: a launcher that backgrounds the job and
 * exits ({@code nohup python train.py & exit 0}) left nothing to judge, an error; DataLoader workers that end
 * shortly after a normal end are no finding.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class LeftoverProcessTest {
    @TempDir
    Path dir;

    private final List<String> console = new ArrayList<>();

    private FakeGpu leftovers(String seconds) {
        FakeGpu gpu = new FakeGpu(dir).clean().put("async.sleep", "0");
        for (String mode : List.of("memcheck-app", "blocking", "async")) {
            gpu.put(mode + ".leftover", seconds);
        }
        return gpu;
    }

    /**
     * The phases one after the other: beside the sanitizer run, the blocking run is cut when the sanitizer run ends
     * clean while the blocking run still waits out its leftover (a stop: nothing is concluded of the leftover), which
     * on a loaded machine it sometimes does (1 build of 8 beside another); these tests are about the leftovers.
     */
    private Report run(FakeGpu gpu) {
        return new Runner(
                        FakeGpu.farOobSpec(dir.resolve("run"))
                                .leftoverGraceSeconds(2)
                                .overlapBlocking(false),
                        gpu.env(),
                        console::add)
                .run();
    }

    @Test
    void aLauncherThatExitsWhileItsJobGoesOnIsAnErrorNotAPass() {
        FakeGpu gpu = leftovers("1000");
        Report r = run(gpu);

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.ERROR);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals("outlived-main"))
                .extracting(ReasonJson::message)
                .hasSize(3)
                .allMatch(m -> m.contains("outlived its main process") && m.contains("killed unchecked"));
        for (String mode : List.of("memcheck-app", "blocking", "async")) {
            Arrays.stream(gpu.logged("leftover-" + mode + ".txt").split("\\s+"))
                    .filter(s -> !s.isBlank())
                    .mapToLong(Long::parseLong)
                    .forEach(pid -> assertThat(Processes.running(pid))
                            .as("the leftover " + pid + " of " + mode + " was killed")
                            .isFalse());
        }
    }

    /**
     * Issue #26, 8: a grandchild the job started with {@code env -i} (no cookie) that goes on after the job's end was
     * seen by nobody (the linger and the sweep looked for the cookie) and ran on after a PASS. The session finds it.
     */
    @Test
    void aGrandchildWithoutTheCookieThatOutlivesTheJobIsSeenNamedAndKilled() {
        FakeGpu gpu = new FakeGpu(dir).clean().put("async.sleep", "0");
        List<String> modes = List.of("memcheck-app", "blocking", "async");
        modes.forEach(mode -> gpu.put(mode + ".grandchild", "group"));
        Report r = run(gpu);

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.ERROR);
        List<String> outlived = r.reasons().stream()
                .filter(x -> x.code().equals("outlived-main"))
                .map(ReasonJson::message)
                .toList();
        assertThat(outlived).hasSize(3);
        for (String mode : modes) {
            long pid = Long.parseLong(gpu.logged("grandchild-" + mode + ".txt").trim());
            assertThat(outlived).as(mode).anyMatch(m -> m.contains(pid + " (sleep 300)"));
            assertThat(Processes.awaitGone(pid, Duration.ofSeconds(10)))
                    .as("the grandchild " + pid + " of " + mode + " was killed")
                    .isTrue();
        }
    }

    @Test
    void workersThatEndShortlyAfterANormalEndAreNoFinding() {
        Report r = run(leftovers("0.5"));

        assertThat(r.verdict()).as(r.reasons().toString()).isEqualTo(Verdict.PASS);
        assertThat(r.reasons()).noneMatch(x -> x.code().equals("outlived-main"));
        assertThat(r.execution().phases())
                .allSatisfy(p -> assertThat(p.note() == null ? "" : p.note()).doesNotContain("leftover"));
    }
}
