package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** compute-sanitizer's own options end at the job's command; the job's own flags are the job's. */
class SanitizerOptionsTest {
    private static List<String> names(List<String> command) {
        return SanitizerOptions.of(command).stream()
                .map(SanitizerOptions.Option::name)
                .toList();
    }

    @Test
    void optionsWithValuesInBothSpellingsAndFlagsEndAtTheJobsCommand() {
        List<String> command = List.of(
                "/usr/local/cuda/bin/compute-sanitizer",
                "--tool",
                "initcheck",
                "--xml",
                "--save",
                "/run/s.xml",
                "--kernel-name-exclude=kns=foo",
                "python3",
                "train.py",
                "--kernel-name",
                "bar");
        assertThat(names(command)).containsExactly("--tool", "--xml", "--save", "--kernel-name-exclude");
        assertThat(SanitizerOptions.of(command).get(3).text()).isEqualTo("--kernel-name-exclude=kns=foo");
        assertThat(SanitizerOptions.tool(command)).isEqualTo("initcheck");
    }

    /**
     * A flag of the tool's that takes no value, last before a launcher whose own options follow: read as a value,
     * it would swallow "torchrun" and take torchrun's options for the tool's.
     */
    @Test
    void aValuelessFlagBeforeALauncherDoesNotTakeTheLaunchersOptions() {
        List<String> command = List.of(
                "compute-sanitizer",
                "--tool",
                "memcheck",
                "--force-blocking-launches",
                "torchrun",
                "--standalone",
                "--launch-count",
                "3",
                "train.py");
        assertThat(names(command)).containsExactly("--tool", "--force-blocking-launches");
        assertThat(LaunchWindow.unchecked("sanitizer-memcheck", command)).isNull();
    }

    @Test
    void aJobsOwnKernelNameFlagIsNoFilterOfTheTools() {
        List<String> command =
                List.of("compute-sanitizer", "--tool", "initcheck", "python3", "bench.py", "--kernel-name", "gemm");
        assertThat(VendorKernels.unchecked("sanitizer-initcheck", command)).isNull();
        assertThat(InitcheckKernelFilter.unchecked("sanitizer-initcheck", command))
                .isNull();
        assertThat(InitcheckKernelFilter.unchecked(
                        "sanitizer-initcheck",
                        List.of("compute-sanitizer", "--tool=initcheck", "--kernel-name", "kns=mine", "python3")))
                .contains("ran with a kernel filter (--kernel-name kns=mine)");
    }
}
