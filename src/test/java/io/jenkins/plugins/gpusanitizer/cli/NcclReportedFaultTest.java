package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #25, 11: an illegal memory access that NCCL reports ({@code DistBackendError ...
 * ncclUnhandledCudaError ... Cuda failure 700 'an illegal memory access was encountered'}) was graded
 * as an NCCL error: UNSTABLE. It is a crash, whatever layer reports it. The job output is the real
 * H200 torchrun run (h200-2026-12-03/ddp-scatter/blocking/stderr.log) with its device-assert failure
 * replaced by the exception NCCL raises (the form of pytorch/pytorch and NVIDIA/nccl reports), the
 * rest unchanged.
 */
class NcclReportedFaultTest {
    private static final String ASSERT_EXCEPTION =
            "[rank0]: torch.AcceleratorError: CUDA error: device-side assert triggered";
    private static final String NCCL_EXCEPTION = String.join(
            "\n",
            "[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
                    + "NCCLUtils.cpp:77, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.27.5",
            "[rank0]: ncclUnhandledCudaError: Call to CUDA function failed.",
            "[rank0]: Last error:",
            "[rank0]: Cuda failure 700 'an illegal memory access was encountered'");

    @TempDir
    Path dir;

    /** The recorded output with the device asserts gone (an illegal access prints none) and the exception NCCL's. */
    private Path ncclReported(String exception) throws IOException {
        List<String> lines =
                Files.readAllLines(Corpus.h200Dec03("ddp-scatter/blocking/stderr.log"), StandardCharsets.UTF_8);
        assertThat(lines).contains(ASSERT_EXCEPTION);
        String edited = lines.stream()
                .filter(l -> !l.contains("Assertion `") && !l.contains("device-side assert triggered (function"))
                .filter(l -> !l.contains("Search for `cudaErrorAssert'") && !l.contains("TORCH_USE_CUDA_DSA"))
                .map(l -> l.equals(ASSERT_EXCEPTION) ? exception : l)
                .collect(Collectors.joining("\n", "", "\n"));
        Path log = dir.resolve("blocking.stderr");
        Files.writeString(log, edited, StandardCharsets.UTF_8);
        return log;
    }

    private JsonNode analyze(int exit, Path blocking) {
        Path json = dir.resolve("report.json");
        CliRunner r = CliRunner.run("analyze", "--json", json.toString(), "--blocking-log", blocking.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(exit);
        return CliRunner.json(json);
    }

    private static List<String> reasons(JsonNode report) {
        return StreamSupport.stream(report.get("reasons").spliterator(), false)
                .map(x -> x.get("level").asText() + " " + x.get("code").asText() + ": "
                        + x.get("message").asText())
                .toList();
    }

    @Test
    void anIllegalAccessNcclReportsIsACrashNotAnNcclError() throws IOException {
        JsonNode report = analyze(1, ncclReported(NCCL_EXCEPTION));
        assertThat(report.get("verdict").asText()).isEqualTo("FAIL");
        assertThat(reasons(report))
                .contains("fail crash: blocking run crashed: an illegal memory access was encountered at "
                        + "ddp_train.py:82 (forward) on rank 0")
                .noneMatch(r -> r.contains(" nccl: "));
    }

    @Test
    void anNcclErrorWithoutAFaultStaysAnNcclError() throws IOException {
        String timeout = NCCL_EXCEPTION.replace(
                "Cuda failure 700 'an illegal memory access was encountered'", "Cuda failure 1 'invalid argument'");
        JsonNode report = analyze(2, ncclReported(timeout));
        assertThat(report.get("verdict").asText()).isEqualTo("UNSTABLE");
        assertThat(reasons(report)).anyMatch(r -> r.startsWith("unstable nccl: blocking run: NCCL error"));
    }

    @Test
    void anotherRanksIllegalAccessBehindAnNcclErrorIsACrash() throws IOException {
        // rank 0 fails first with NCCL's error of its own; rank 1, whose kernel faulted, says so later
        String twoRanks = NCCL_EXCEPTION.lines().limit(2).collect(Collectors.joining("\n"))
                + "\n\n[rank1]:[E1203 08:15:20.900000000 ProcessGroupNCCL.cpp:1896] [PG ID 0 PG GUID 0(default_pg) "
                + "Rank 1] Process group watchdog thread terminated with exception: CUDA error: an illegal memory "
                + "access was encountered";
        JsonNode report = analyze(1, ncclReported(twoRanks));
        assertThat(reasons(report))
                .contains("fail crash: blocking run hit a GPU error: an illegal memory access was encountered, "
                        + "reported as NCCL error at ddp_train.py:82 (forward) on rank 0")
                .noneMatch(r -> r.contains(" nccl: "));
    }
}
