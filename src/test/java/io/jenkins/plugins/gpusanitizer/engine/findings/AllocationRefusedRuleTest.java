package io.jenkins.plugins.gpusanitizer.engine.findings;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.analysis.AnalysisInput;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.analysis.SanitizerInput;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #48, 1: memcheck's record of an allocation the card refused (karpathy/nanoGPT under the tool ran out of the
 * H100's memory at step 21; the gate read "cudaErrorMemoryAllocation on CUDA API call to cudaMalloc, launched from
 * model.py:56" as a defect and failed the job) is no memory access.
 */
class AllocationRefusedRuleTest {
    @TempDir
    Path tmp;

    /** An API-error record in compute-sanitizer 2025.3's text layout, made from PyTorch's allocator at a job's line. */
    private static String apiRecord(String error, int code, String reason, String api) {
        return "========= Program hit " + error + " (error " + code + ") due to \"" + reason
                + "\" on CUDA API call to " + api + ".\n"
                + "=========     Saved host backtrace up to driver entry point at error\n"
                + "=========         Host Frame:  [0x4cb045] in libcuda.so.1\n"
                + "=========         Host Frame: " + api + " [0x6bc17] in libcudart.so.13\n"
                + "=========         Host Frame: c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::"
                + "malloc(signed char, unsigned long, CUstream_st*) [0x2f1c0] in libc10_cuda.so\n"
                + "=========         Host Frame: at::native::empty_cuda(c10::ArrayRef<long>) [0x31a4a2] in"
                + " libtorch_cuda.so\n"
                + "=========         Host Frame: _PyEval_EvalFrameDefault [0x1d710e] in python3\n"
                + "=========         Host Frame: forward in /ws/model.py:56\n"
                + "========= \n";
    }

    private List<Defect> judged(String log) throws IOException {
        return JudgedLog.defects(tmp, log);
    }

    @Test
    void aRefusedAllocationIsListedNotBlamed() throws IOException {
        List<Defect> d = judged(apiRecord("cudaErrorMemoryAllocation", 2, "out of memory", "cudaMalloc"));
        assertThat(d).singleElement().satisfies(x -> {
            assertThat(x.suppressed()).isTrue();
            assertThat(x.suppressedBy().rule()).isEqualTo(AllocationRefusedRule.ID);
        });
    }

    @Test
    void otherApiErrorsAtTheSameLineStillCount() throws IOException {
        List<Defect> d = judged(apiRecord("cudaErrorInvalidValue", 1, "invalid argument", "cudaMemcpyAsync")
                + apiRecord("cudaErrorIllegalAddress", 700, "an illegal memory access was encountered", "cudaMalloc"));
        assertThat(d).hasSize(2).allSatisfy(x -> assertThat(x.suppressed()).isFalse());
    }

    @Test
    void aRunWhoseOnlyRecordIsARefusedAllocationDoesNotFail() throws IOException {
        Path f = tmp.resolve("memcheck.log");
        Files.writeString(
                f,
                "========= COMPUTE-SANITIZER\n"
                        + apiRecord("cudaErrorMemoryAllocation", 2, "out of memory", "cudaMalloc")
                        + "========= ERROR SUMMARY: 1 error\n");
        var analysis = new Analyzer()
                .analyze(new AnalysisInput(
                        List.of(new SanitizerInput(f, false, Tool.MEMCHECK)),
                        Map.of(),
                        null,
                        null,
                        null,
                        GatePolicy.defaults()));
        assertThat(analysis.gate().verdict()).isNotEqualTo(Verdict.FAIL);
        assertThat(analysis.gate().reasons()).noneMatch(r -> r.level() == Reason.Level.FAIL);
        assertThat(analysis.gate().reasons())
                .anyMatch(r -> r.code().equals("suppressed") && r.message().startsWith("memcheck: 1 defect"));
    }
}
