package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One process's output (a rank's, or the unprefixed rest): its tracebacks and the CUDA lines outside
 * them. The first traceback whose exception is a CUDA error is the failure; without one, a loose
 * CUDA line, else the first traceback. An NCCL or generic CUDA error takes the class of a memory fault
 * the same output names (in its message or beside it): the layer that reported it is not the fault. Tracebacks printed under "Exception ignored in" (destructors
 * failing after the real error) are skipped.
 */
final class ProcessOutput {
    private static final Pattern EXCEPTION =
            Pattern.compile("^([A-Za-z_][\\w.]*(?:Error|Exception|Exit|Interrupt|Warning)?): ?(.*)$");

    private final Integer rank;
    private final JobOutput job;
    /** The traceback being read, or null. */
    private TracebackFrames traceback;

    private long tracebackStart;
    private boolean ignoredTraceback;
    private boolean pendingIgnored;
    /** Lines after an exception line, until a blank line: its message. */
    private boolean inExceptionMessage;
    /** The first traceback whose exception is a CUDA error: the chosen one. */
    private List<SourceLocation> chosenFrames = List.of();

    private String chosenType;
    private String chosenMessage;
    private CudaErrorClass chosenClass;
    private long chosenSeq;
    /** First non-ignored traceback, as fallback. */
    private List<SourceLocation> firstFrames;

    private String firstType;
    private String firstMessage;
    private long firstSeq;
    private boolean asyncWarning;
    private boolean dsaNotCompiled;
    private CudaErrorClass loose;
    private String looseMessage;
    private long looseSeq;
    /** The first memory fault any line of this process names, inside an exception's message or outside. */
    private CudaErrorClass fault;

    private String faultText;
    private CudaFailure.OutOfMemory oom;
    private boolean awaitingException;

    ProcessOutput(Integer rank, JobOutput job) {
        this.rank = rank;
        this.job = job;
    }

    void line(String line) {
        if (line.startsWith("Traceback (most recent call last):")) {
            endTraceback();
            traceback = new TracebackFrames();
            tracebackStart = job.lineNo;
            ignoredTraceback = pendingIgnored;
            pendingIgnored = false;
            awaitingException = true;
            inExceptionMessage = false;
            return;
        }
        if (line.startsWith("Exception ignored in")) {
            pendingIgnored = true;
        }
        if (line.isBlank()) {
            inExceptionMessage = false;
        }
        if (traceback != null && awaitingException) {
            if (DeviceAssertions.isAssertion(line)) {
                job.assertions.line(line); // the GPU's assert text, printed into the traceback
                return;
            }
            if (traceback.line(line)) {
                return;
            }
            if (!line.isEmpty() && !Character.isWhitespace(line.charAt(0))) {
                Matcher e = EXCEPTION.matcher(line);
                traceback.flush();
                awaitingException = false;
                String type = e.matches() ? e.group(1) : null;
                String message = e.matches() ? e.group(2) : line;
                exception(type, message, line);
                generic(line, false);
                inExceptionMessage = true;
                return;
            }
        }
        generic(line, !inExceptionMessage && !(traceback != null && awaitingException));
    }

    private void exception(String type, String message, String line) {
        if (ignoredTraceback) {
            return;
        }
        List<SourceLocation> frames = traceback.frames();
        if (LauncherReport.isLauncherException(type)) {
            job.launcher.exception(type, message, frames);
            return;
        }
        CudaErrorClass c = CudaErrorClass.classify(line);
        if (firstFrames == null) {
            firstFrames = frames;
            firstType = type;
            firstMessage = message;
            firstSeq = tracebackStart;
        }
        if (c != null && chosenClass == null) {
            chosenClass = c;
            chosenFrames = frames;
            chosenType = type;
            chosenMessage = message;
            chosenSeq = tracebackStart;
        }
    }

    void endTraceback() {
        if (traceback != null) {
            traceback.flush();
        }
        traceback = null;
        awaitingException = false;
    }

    /** @param outside the line is neither in a traceback nor in an exception's message */
    private void generic(String line, boolean outside) {
        if (line.contains("might be asynchronously reported")) {
            asyncWarning = true;
        }
        if (line.contains("Compile with `TORCH_USE_CUDA_DSA`")) {
            dsaNotCompiled = true;
        }
        job.assertions.line(line);
        if (oom == null) {
            oom = OutOfMemoryMessage.parse(line);
        }
        CudaErrorClass c = CudaErrorClass.classify(line);
        if (c == null) {
            return;
        }
        String text = CudaMessages.text(line);
        if (outside && !CudaMessages.isHint(text)) {
            job.messages.add(job.lineNo, rank, text, c);
        }
        if (fault == null && c.isMemoryFault()) {
            fault = c;
            faultText = text;
        }
        if (loose == null
                || loose == CudaErrorClass.OTHER_CUDA && c != CudaErrorClass.OTHER_CUDA
                || reportsOthers(loose) && c.isMemoryFault()) {
            loose = c;
            looseMessage = text;
            looseSeq = job.lineNo;
        }
    }

    /**
     * NCCL ({@code ncclUnhandledCudaError ... Cuda failure 700 'an illegal memory access was
     * encountered'}) and generic CUDA errors pass on a failure of the GPU: their own class says
     * nothing of what the kernel did.
     */
    private static boolean reportsOthers(CudaErrorClass c) {
        return c == CudaErrorClass.NCCL || c == CudaErrorClass.OTHER_CUDA;
    }

    ProcessOutcome outcome() {
        if (chosenClass != null) {
            // the layer that raised the exception is not the fault: an illegal access NCCL reports is an illegal access
            boolean passedOn = reportsOthers(chosenClass) && fault != null;
            return new ProcessOutcome(
                    passedOn ? fault : chosenClass,
                    chosenType,
                    passedOn ? faultText + " (reported as: " + chosenMessage + ")" : chosenMessage,
                    chosenFrames,
                    chosenSeq,
                    asyncWarning,
                    dsaNotCompiled,
                    oom);
        }
        if (loose != null) {
            return new ProcessOutcome(
                    loose,
                    firstFrames != null ? firstType : null,
                    looseMessage,
                    firstFrames != null ? firstFrames : List.of(),
                    firstFrames != null ? Math.min(firstSeq, looseSeq) : looseSeq,
                    asyncWarning,
                    dsaNotCompiled,
                    oom);
        }
        if (firstFrames != null) {
            return new ProcessOutcome(
                    CudaErrorClass.NON_CUDA,
                    firstType,
                    firstMessage,
                    firstFrames,
                    firstSeq,
                    asyncWarning,
                    dsaNotCompiled,
                    oom);
        }
        return new ProcessOutcome(
                CudaErrorClass.NONE, null, null, List.of(), Long.MAX_VALUE, asyncWarning, dsaNotCompiled, oom);
    }
}
