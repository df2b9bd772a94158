package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A sanitizer run that checked only some launches says so: its PASS is not a full check (issue #49). */
class LaunchWindowTest {
    @TempDir
    Path dir;

    @Test
    void aRunWithTheUsersLaunchCountPassesAndSaysItWasNoFullCheck() {
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu")).clean();
        Report r = new Runner(
                        FakeGpu.farOobSpec(dir.resolve("run"))
                                .phases(List.of(Phase.SANITIZER))
                                .extraSanitizerArgs(List.of("--launch-count=300")),
                        gpu.env(),
                        line -> {})
                .run();

        assertThat(gpu.logged("calls.txt").lines().filter(l -> l.startsWith("compute-sanitizer --tool")))
                .singleElement()
                .satisfies(call -> assertThat(call).contains(" --launch-count=300 python3 train.py"));
        assertThat(r.verdict()).isEqualTo(Verdict.PASS);
        assertThat(r.reasons())
                .filteredOn(x -> x.code().equals(LaunchWindow.CODE))
                .singleElement()
                .satisfies(x -> {
                    assertThat(x.level()).isEqualTo("info");
                    assertThat(x.message())
                            .isEqualTo("sanitizer-memcheck checked only the first 300 kernel launches"
                                    + " (--launch-count 300): every later launch ran unchecked; a pass is not a full"
                                    + " check");
                });
    }

    /** The gate's own options as SanitizerPhase writes them, then the user's, then the job. */
    private static List<String> command(List<String> users, String... job) {
        List<String> c = new ArrayList<>(List.of(
                "/usr/local/cuda/bin/compute-sanitizer",
                "--tool",
                "memcheck",
                "--xml",
                "--save",
                "/run/sanitizer-memcheck/sanitizer.xml",
                "--log-file",
                "/run/sanitizer-memcheck/sanitizer.log",
                "--print-limit",
                "1000",
                "--error-exitcode",
                "86",
                "--strip-paths",
                "no",
                "--padding",
                "32"));
        c.addAll(users);
        c.addAll(List.of(job));
        return c;
    }

    @Test
    void theUsersLaunchCountIsSaidInBothSpellings() {
        String expected = "sanitizer-memcheck checked only the first 300 kernel launches (--launch-count 300): every"
                + " later launch ran unchecked; a pass is not a full check";
        assertThat(LaunchWindow.unchecked(
                        "sanitizer-memcheck", command(List.of("--launch-count=300"), "python3", "t.py")))
                .isEqualTo(expected);
        assertThat(LaunchWindow.unchecked("sanitizer-memcheck", command(List.of("-c", "300"), "python3", "t.py")))
                .isEqualTo(expected);
    }

    @Test
    void aSkipAndACountNameTheWindow() {
        assertThat(LaunchWindow.unchecked(
                        "sanitizer-memcheck",
                        command(List.of("--launch-skip", "1000", "--launch-count", "50"), "torchrun", "train.py")))
                .isEqualTo("sanitizer-memcheck checked only kernel launches 1001 to 1050 (--launch-skip 1000"
                        + " --launch-count 50): the first 1000 and every launch after 1050 ran unchecked; a pass is"
                        + " not a full check");
        assertThat(LaunchWindow.unchecked("sanitizer-memcheck", command(List.of("-s", "7"), "python3", "t.py")))
                .isEqualTo("sanitizer-memcheck did not check the first 7 kernel launches (--launch-skip 7): they ran"
                        + " unchecked; a pass is not a full check");
    }

    @Test
    void theJobsOwnFlagsAndAZeroCountAreNoWindow() {
        assertThat(LaunchWindow.unchecked(
                        "sanitizer-memcheck",
                        command(List.of(), "python3", "train.py", "--launch-count", "5", "-c", "3", "-s", "2")))
                .isNull();
        assertThat(LaunchWindow.unchecked("sanitizer-memcheck", command(List.of("--launch-count", "0"), "python3")))
                .as("0 is compute-sanitizer's default: every launch")
                .isNull();
        assertThat(LaunchWindow.unchecked("sanitizer-memcheck", command(List.of("--leak-check", "full"), "python3")))
                .isNull();
        assertThat(LaunchWindow.unchecked("sanitizer-memcheck", List.of())).isNull();
    }
}
