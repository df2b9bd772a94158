package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jenkins.plugins.gpusanitizer.engine.model.CoverageMode;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Issue #28: where the regression run goes on one GPU, and the vendor kernels left out of the sanitizer runs. */
class RunCommandBesideTest {
    private static RunSpec spec(String... args) {
        RunCommand run = new RunCommand();
        CommandLine cl = new CommandLine(run);
        cl.parseArgs(args);
        return run.toSpec(cl);
    }

    @Test
    void theRegressionRunMayGoBesideAndEveryKernelIsCheckedUnlessAsked() {
        RunSpec byDefault = spec("--", "python3", "train.py");
        assertThat(byDefault.regressionBeside()).isTrue();
        assertThat(byDefault.overlapBlocking()).isTrue();
        assertThat(byDefault.excludeVendorKernels()).isFalse();
        RunSpec asked = spec("--regression-after", "--exclude-vendor-kernels", "--", "python3", "train.py");
        assertThat(asked.regressionBeside()).isFalse();
        assertThat(asked.overlapBlocking())
                .as("the blocking run still goes beside")
                .isTrue();
        assertThat(asked.excludeVendorKernels()).isTrue();
    }

    @Test
    void theCoverageModeIsKernelsUnlessAskedAndABadOneIsRefusedNamingTheChoices() {
        assertThat(spec("--", "python3", "train.py").coverage()).isEqualTo(CoverageMode.KERNELS);
        assertThat(spec("--coverage", "full", "--", "python3", "train.py").coverage())
                .isEqualTo(CoverageMode.FULL);
        assertThat(spec("--coverage", "Kernels", "--", "python3", "train.py").coverage())
                .isEqualTo(CoverageMode.KERNELS);
        assertThatThrownBy(() -> spec("--coverage", "some", "--", "python3", "train.py"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("--coverage 'some': use one of kernels, full");
    }
}
