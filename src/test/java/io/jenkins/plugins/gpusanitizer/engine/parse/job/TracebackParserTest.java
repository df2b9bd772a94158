package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class TracebackParserTest {
    private final TracebackParser parser = new TracebackParser();

    @Test
    void asyncRunBlamesTheInnocentLine() {
        CudaFailure f = parser.parse(Corpus.file("far-oob/async.stderr"));
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.ILLEGAL_ADDRESS);
        assertThat(f.exceptionType()).isEqualTo("torch.AcceleratorError");
        assertThat(f.message()).isEqualTo("CUDA error: an illegal memory access was encountered");
        assertThat(f.asyncWarning()).isTrue();
        assertThat(f.dsaNotCompiled()).isTrue();
        assertThat(f.userFrame().file()).isEqualTo("/home/ci/workspace/lab/train_lstm.py");
        assertThat(f.userFrame().line()).isEqualTo(99);
        assertThat(f.userFrame().code()).startsWith("print(f\"step {step} loss {loss.item()");
        assertThat(f.frames()).hasSize(1);
    }

    @Test
    void blockingRunNamesTheFaultingLaunchAndSkipsDestructorTracebacks() {
        CudaFailure f = parser.parse(Corpus.file("far-oob/blocking.stderr"));
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.ILLEGAL_ADDRESS);
        assertThat(f.asyncWarning()).isFalse();
        assertThat(f.exceptionType()).isEqualTo("cupy_backends.cuda.api.driver.CUDADriverError");
        assertThat(f.userFrame().line()).isEqualTo(32);
        assertThat(f.userFrame().function()).isEqualTo("buggy_scale");
        assertThat(f.userFrame().code()).startsWith("k(((n + 255) // 256,)");
        assertThat(f.frames()).hasSize(10);
        assertThat(f.frames().get(f.frames().size() - 1).file()).isEqualTo("cupy_backends/cuda/api/driver.pyx");
    }

    @Test
    void torchUseCudaDsaAtRunTimeChangesNothing() {
        CudaFailure dsa = parser.parse(Corpus.file("far-oob/dsa.stderr"));
        CudaFailure async = parser.parse(Corpus.file("far-oob/async.stderr"));
        assertThat(dsa.dsaNotCompiled()).isTrue();
        assertThat(dsa.userFrame()).isEqualTo(async.userFrame());
        assertThat(dsa.errorClass()).isEqualTo(async.errorClass());
    }

    @Test
    void outOfMemoryNumbers() {
        CudaFailure f = parser.parse(Corpus.file("oom/async.stderr"));
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.OUT_OF_MEMORY);
        assertThat(f.exceptionType()).isEqualTo("torch.OutOfMemoryError");
        assertThat(f.userFrame().line()).isEqualTo(97);
        assertThat(f.oom().gpu()).isEqualTo("0");
        assertThat(f.oom().triedBytes()).isEqualTo(Math.round(372.53 * (1L << 30)));
        assertThat(f.oom().totalBytes()).isEqualTo(Math.round(139.80 * (1L << 30)));
        assertThat(f.oom().freeBytes()).isEqualTo(Math.round(138.99 * (1L << 30)));
        assertThat(f.oom().allocatedByPyTorchBytes()).isEqualTo(Math.round(65.49 * (1L << 20)));
        assertThat(f.oom().reservedUnallocatedBytes()).isEqualTo(523L * 1024);
        assertThat(f.asyncWarning()).isFalse();
    }

    @Test
    void appKilledUnderMemcheckShowsLaunchFailure() {
        CudaFailure f = parser.parse(Corpus.file("far-oob/memcheck-app.stderr"));
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.LAUNCH_FAILURE);
        assertThat(f.userFrame().line()).isEqualTo(99);
    }

    @Test
    void cppTerminateWithoutPythonTraceback() {
        CudaFailure f = parser.parse(Corpus.file("near-oob/memcheck-nocache-app.stderr"));
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.LAUNCH_FAILURE);
        assertThat(f.message()).isEqualTo("CUDA error: unspecified launch failure");
        assertThat(f.userFrame()).isNull();
    }

    @Test
    void cleanRunHasNoFailure() {
        CudaFailure f = parser.parse(Corpus.file("near-oob/async.stdout"));
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.NONE);
        assertThat(f.userFrame()).isNull();
    }

    @Test
    void deviceAssertLinesAreGroupedWhereverTheyAppear() throws IOException {
        // the assert line's shape is the one seen on the H200 (torch 2.11, gather with a bad index)
        String line =
                "/pytorch/aten/src/ATen/native/cuda/ScatterGatherKernel.cu:163: operator(): block: [12,0,0], thread: [%d,0,0] "
                        + "Assertion `idx_dim >= 0 && idx_dim < index_size && \"scatter gather kernel index out of bounds\"` failed.\n";
        StringBuilder log = new StringBuilder();
        for (int i = 0; i < 40; i++) {
            log.append(String.format(line, i));
        }
        log.append(
                        "Traceback (most recent call last):\n  File \"/w/train.py\", line 70, in forward\n    f = torch.gather(f, 2, idx)\n")
                .append("torch.AcceleratorError: CUDA error: device-side assert triggered\n");
        log.append(String.format(line, 99));
        CudaFailure f = parser.parse(Corpus.stream(log.toString()), "assert.stderr");
        assertThat(f.errorClass()).isEqualTo(CudaErrorClass.DEVICE_ASSERT);
        assertThat(f.assertionLines()).isEqualTo(41);
        assertThat(f.assertions()).singleElement().satisfies(a -> {
            assertThat(a.line()).isEqualTo(163);
            assertThat(a.function()).isEqualTo("operator()");
            assertThat(a.count()).isEqualTo(41);
            assertThat(a.condition()).startsWith("idx_dim >= 0");
            assertThat(a.firstBlock()).isEqualTo("[12,0,0]");
        });
        assertThat(f.userFrame().line()).isEqualTo(70);
    }

    @Test
    void userFilesAreNotInstalledPackages() {
        assertThat(TracebackParser.isUserFile("/home/ci/workspace/lab/train_lstm.py"))
                .isTrue();
        assertThat(TracebackParser.isUserFile("train.py")).isTrue();
        assertThat(TracebackParser.isUserFile(
                        "/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/modules/module.py"))
                .isFalse();
        assertThat(TracebackParser.isUserFile("/usr/lib/python3.12/threading.py"))
                .isFalse();
        assertThat(TracebackParser.isUserFile("<frozen runpy>")).isFalse();
        assertThat(TracebackParser.isUserFile("cupy/_core/raw.pyx")).isFalse();
    }
}
