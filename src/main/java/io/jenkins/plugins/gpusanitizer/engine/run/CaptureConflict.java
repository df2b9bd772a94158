package io.jenkins.plugins.gpusanitizer.engine.run;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A job that captures CUDA graphs ({@code torch.cuda.graph}) works with PyTorch's caching allocator,
 * which serves allocations during capture from its own pool. The sanitizer phase turns the cache off
 * ({@code PYTORCH_NO_CUDA_MEMORY_CACHING=1}) so that small out-of-bounds accesses are visible, and then
 * every allocation inside the capture calls {@code cudaMalloc}, which a capturing stream refuses
 * ({@code cudaErrorStreamCaptureUnsupported}); the capture is invalidated and the job dies at its
 * {@code with torch.cuda.graph(g):} line. That is the gate's setting breaking the job, not a bug in it.
 */
public final class CaptureConflict {
    /** What CUDA, compute-sanitizer and PyTorch print when a capture is broken by a forbidden call. */
    static final List<String> SIGNS = List.of(
            "cudaErrorStreamCaptureUnsupported",
            "cudaErrorStreamCaptureInvalidated",
            "operation not permitted when stream is capturing",
            "operation failed due to a previous error during capture");

    /** Read at most this much of each file: the signs come early, before any flood of records. */
    private static final long MAX_BYTES = 64L << 20;

    private CaptureConflict() {}

    /** Whether the phase's outputs show a stream capture broken by a call the capture forbids. */
    public static boolean seenIn(Path phaseDir) {
        for (String file : List.of(RunDirectory.STDERR, RunDirectory.SANITIZER_LOG, RunDirectory.STDOUT)) {
            if (contains(phaseDir.resolve(file))) {
                return true;
            }
        }
        return false;
    }

    private static boolean contains(Path f) {
        if (!Files.isRegularFile(f)) {
            return false;
        }
        long read = 0;
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(Files.newInputStream(f), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null && read < MAX_BYTES) {
                read += line.length() + 1;
                for (String sign : SIGNS) {
                    if (line.contains(sign)) {
                        return true;
                    }
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }
}
