package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import java.util.List;

/**
 * What one process (or the unprefixed rest of the output) printed.
 *
 * @param seq the line where the failure began ({@link Long#MAX_VALUE}: none): the earliest rank is the root cause
 */
record ProcessOutcome(
        CudaErrorClass errorClass,
        String exceptionType,
        String message,
        List<SourceLocation> frames,
        long seq,
        boolean asyncWarning,
        boolean dsaNotCompiled,
        CudaFailure.OutOfMemory oom) {}
