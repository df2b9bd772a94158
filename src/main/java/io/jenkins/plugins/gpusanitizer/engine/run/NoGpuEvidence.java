package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaUnavailable;
import java.nio.file.Path;

/**
 * Whether a phase's job saw no GPU: torch's "CUDA initialization: ..." warning in its stderr or stdout
 * ({@link CudaUnavailable}). The environment check asks torch outside the tool; under
 * compute-sanitizer CUDA can still fail to start, and the job then trains on the CPU, so a clean
 * summary checked nothing.
 */
final class NoGpuEvidence {
    private NoGpuEvidence() {}

    /** torch's warning and the file of the phase folder it is in. */
    record Found(String warning, String file) {}

    /** torch's warning in the phase folder's job output, or null. */
    static Found in(Path phaseDir) {
        for (String file : new String[] {RunLayout.STDERR, RunLayout.STDOUT}) {
            String w = CudaUnavailable.firstIn(phaseDir.resolve(file));
            if (w != null) {
                return new Found(w, file);
            }
        }
        return null;
    }
}
