package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
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

    private static final String TRACEBACK = "Traceback (most recent call last):";

    /** Read at most this much of stderr: a job's own error output, not a flood. */
    private static final long MAX_BYTES = 64L << 20;

    private CaptureConflict() {}

    /**
     * Whether the job died of a broken capture: the phase failed and the last Python traceback on its stderr, the
     * one it died of, names the capture error. Words of it anywhere else (a log line, stdout, a caught error) are
     * not enough: the rerun it triggers is judged less finely.
     */
    static boolean brokeTheJob(PhaseResult phase, Path phaseDir) {
        return PhaseResult.FAILED.equals(phase.status()) && lastTracebackNamesIt(phaseDir.resolve(RunLayout.STDERR));
    }

    private static boolean lastTracebackNamesIt(Path stderr) {
        if (!Files.isRegularFile(stderr)) {
            return false;
        }
        boolean inTraceback = false;
        boolean named = false;
        long read = 0;
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(Files.newInputStream(stderr), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null && read < MAX_BYTES) {
                read += line.length() + 1;
                if (line.startsWith(TRACEBACK)) {
                    inTraceback = true;
                    named = false; // a later traceback is the one the job died of
                } else if (inTraceback && SIGNS.stream().anyMatch(line::contains)) {
                    named = true;
                }
            }
        } catch (IOException e) {
            return false; // fail closed: no rerun, the uncached run's own verdict stands
        }
        return named;
    }
}
