package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --exclude-vendor-kernels}: compute-sanitizer is told to leave the vendor libraries' kernels out, and the
 * report says so, so a pass with it is never taken for a full check.
 */
class VendorKernelsTest {
    @TempDir
    Path dir;

    private Report run(FakeGpu gpu, boolean exclude) {
        return new Runner(
                        FakeGpu.farOobSpec(dir.resolve(exclude ? "excluded" : "all"))
                                .phases(List.of(Phase.SANITIZER))
                                .excludeVendorKernels(exclude),
                        gpu.env(),
                        line -> {})
                .run();
    }

    @Test
    void theExclusionReachesComputeSanitizersCommandLineAndTheReportSaysItWasOn() {
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu")).clean();
        Report r = run(gpu, true);

        String filter = "--kernel-name-exclude=kns=cublas,kns=xmma,kns=cutlass,kns=gemm,kns=gemv,kns=cudnn,kns=bn_fw,"
                + "kns=bn_bw,kns=LSTM,kns=RNN,kns=nchwToNhwc,kns=nhwcToNchw,kns=fft,kns=nccl,kns=flash,kns=fmha";
        assertThat(gpu.logged("calls.txt").lines().filter(l -> l.startsWith("compute-sanitizer --tool")))
                .singleElement()
                .satisfies(call -> assertThat(call).contains(" " + filter + " python3 train.py"));
        assertThat(RunnerTest.phase(r, "sanitizer-memcheck").command()).contains(filter);
        assertThat(r.verdict()).isEqualTo(Verdict.PASS);
        assertThat(r.reasons())
                .anyMatch(x -> x.code().equals("kernel-filter")
                        && x.level().equals("info")
                        && x.message()
                                .startsWith("sanitizer-memcheck did not check the vendor libraries' kernels"
                                        + " (--exclude-vendor-kernels: cuBLAS, cuDNN, cuFFT, NCCL, flash and"
                                        + " memory-efficient attention)")
                        && x.message().endsWith("a pass is not a full check"));
    }

    @Test
    void withoutItEveryKernelIsCheckedAndNothingIsSaid() {
        FakeGpu gpu = new FakeGpu(dir.resolve("gpu")).clean();
        Report r = run(gpu, false);

        assertThat(gpu.logged("calls.txt")).doesNotContain("--kernel-name");
        assertThat(r.reasons()).noneMatch(x -> x.code().equals("kernel-filter"));
        assertThat(r.verdict()).isEqualTo(Verdict.PASS);
    }

    @Test
    void aFilterOfTheUsersOwnIsSaidToo() {
        assertThat(VendorKernels.unchecked(
                        "sanitizer-memcheck",
                        List.of(
                                "compute-sanitizer",
                                "--tool",
                                "memcheck",
                                "--kernel-name",
                                "kns=my_kernel",
                                "python3")))
                .isEqualTo(
                        "sanitizer-memcheck checked only the kernels its filter left (--kernel-name kns=my_kernel): a"
                                + " pass is not a full check");
        assertThat(VendorKernels.unchecked("sanitizer-memcheck", List.of("compute-sanitizer", "python3")))
                .isNull();
    }
}
