package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import io.jenkins.plugins.gpusanitizer.engine.parse.BoundedLineReader;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameOrigin;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads a PyTorch job's error output (stderr, or stdout+stderr): classifies the CUDA failure and
 * finds the innermost frame of the Python traceback that is the user's own code. Tracebacks that
 * Python prints under "Exception ignored in" (destructors failing after the real error, as cupy's
 * module unload does) are skipped. Streams the file; keeps only the chosen tracebacks.
 *
 * <p>Distributed jobs: lines carrying a rank prefix ({@code [rank0]: }, torchrun's
 * {@code [default0]:} template) are read per rank; the earliest failing rank's traceback is the
 * failure. The launcher's own traceback (torchrun's {@code ChildFailedError} with its "Root Cause
 * (first observed failure)" table, {@code mp.spawn}'s {@code ProcessRaisedException}) is context:
 * its rank and the tracebacks in its table are used, its frames are not. The traceback spawn prints
 * after "-- Process N terminated with the following error:" is rank N's.
 *
 * <p>CUDA error messages printed outside any traceback (a job that caught the error and printed it,
 * a C++ abort, NCCL's watchdog) are listed with their stream and line.
 *
 * <p>The parts: {@link DeviceAssertUntangler} separates the GPU's assert lines from traceback lines
 * they got mixed with; {@link JobOutput} splits the lines by rank and picks the root failure;
 * {@link ProcessOutput} reads one process's tracebacks ({@link TracebackFrames}) and CUDA lines
 * ({@link CudaMessages}, {@link DeviceAssertions}, {@link OutOfMemoryMessage}); {@link LauncherReport}
 * and {@link TorchrunFailureTable} read the launcher's report; {@link FrameOrigin} tells the user's
 * frames from library and generated code.
 */
public final class TracebackParser {
    /** Distinct CUDA messages kept per phase. */
    public static final int MAX_MESSAGES = 10;

    public CudaFailure parse(Path file) {
        return InputFiles.read(file, in -> parse(in, file.toString()));
    }

    public CudaFailure parse(InputStream in, String source) throws IOException {
        return parse(in, source, "stderr");
    }

    /** @param stream the stream's name for the messages found in it ({@code stderr}, {@code stdout}) */
    public CudaFailure parse(InputStream in, String source, String stream) throws IOException {
        // a log saved as UTF-16 (PowerShell's '>') reads the same as its UTF-8 copy
        BoundedLineReader lines = new BoundedLineReader(InputFiles.reader(in));
        JobOutput job = new JobOutput(stream);
        DeviceAssertUntangler untangler = new DeviceAssertUntangler(job::line);
        String line;
        while ((line = lines.readLine()) != null) {
            job.lineNo++;
            untangler.accept(InputFiles.withoutAnsi(line));
        }
        untangler.flush();
        return job.result(source);
    }

    /** The CUDA messages a job printed on its stdout (a job that caught an error and printed it). */
    public List<CudaFailure.CudaMessage> messages(Path stdout) {
        return InputFiles.read(stdout, in -> parse(in, stdout.toString(), "stdout"))
                .messages();
    }

    /** See {@link FrameOrigin#isUserFile}; kept here as the parser's published rule (its tests call it). */
    public static boolean isUserFile(String file) {
        return FrameOrigin.isUserFile(file);
    }

    /** See {@link FrameOrigin#isGeneratedFile}; kept here as the parser's published rule (its tests call it). */
    public static boolean isGeneratedFile(String file) {
        return FrameOrigin.isGeneratedFile(file);
    }
}
