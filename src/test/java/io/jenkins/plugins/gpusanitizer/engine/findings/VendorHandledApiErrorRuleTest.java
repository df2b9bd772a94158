package io.jenkins.plugins.gpusanitizer.engine.findings;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VendorHandledApiErrorRuleTest {
    @TempDir
    Path tmp;

    /** One API-error record in compute-sanitizer 2025.3's text layout, with the given API, error and caller module. */
    private static String apiRecord(String error, int code, String api, String callerModule) {
        return "========= Program hit " + error + " (error " + code + ") due to \"some reason\" on CUDA API call to "
                + api + ".\n"
                + "=========     Saved host backtrace up to driver entry point at error\n"
                + "=========         Host Frame:  [0x4cb045] in libcuda.so.1\n"
                + "=========         Host Frame: " + api + " [0x6bc17] in " + callerModule + "\n"
                + "=========         Host Frame: ncclInitKernelsForDevice(int, unsigned long*) [0x7a1c2] in "
                + callerModule + "\n"
                + "=========         Host Frame: c10d::ProcessGroupNCCL::allreduce(std::vector<at::Tensor>&) [0x11c2a5] in libtorch_cuda.so\n"
                + "=========         Host Frame: _PyEval_EvalFrameDefault [0x1d710e] in python3\n"
                + "=========         Host Frame: train in /ws/ddp_train.py:71\n"
                + "========= \n";
    }

    private List<Defect> judged(String log) throws IOException {
        return JudgedLog.defects(tmp, log);
    }

    @Test
    void ncclKernelProbingIsSuppressedAndListed() throws IOException {
        List<Defect> d =
                judged(apiRecord("cudaErrorNoKernelImageForDevice", 209, "cudaFuncGetAttributes", "libnccl.so.2")
                        + apiRecord("cudaErrorNoKernelImageForDevice", 209, "cudaGetLastError", "libnccl.so.2"));
        assertThat(d).hasSize(2).allSatisfy(x -> {
            assertThat(x.vendorModule()).isEqualTo("libnccl.so.2");
            assertThat(x.suppressedBy()).isNotNull();
            assertThat(x.suppressedBy().rule()).isEqualTo(VendorHandledApiErrorRule.ID);
        });
    }

    @Test
    void stickyErrorsInsideAVendorLibraryAreNeverExcused() throws IOException {
        List<Defect> d = judged(apiRecord("cudaErrorIllegalAddress", 700, "cudaStreamSynchronize", "libnccl.so.2")
                + apiRecord("cudaErrorLaunchFailure", 719, "cudaMemcpyAsync", "libcublasLt.so.13"));
        assertThat(d).hasSize(2).allSatisfy(x -> assertThat(x.suppressed()).isFalse());
    }

    @Test
    void anApiErrorReturnedToTheUsersOwnCodeIsKept() throws IOException {
        List<Defect> d = judged(apiRecord("cudaErrorInvalidValue", 1, "cudaMemcpy", "my_extension.so"));
        assertThat(d).singleElement().satisfies(x -> {
            assertThat(x.vendorModule()).isNull();
            assertThat(x.suppressed()).isFalse();
        });
    }
}
