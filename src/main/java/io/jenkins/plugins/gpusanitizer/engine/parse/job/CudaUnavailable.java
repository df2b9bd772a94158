package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import io.jenkins.plugins.gpusanitizer.engine.parse.BoundedLineReader;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * torch's warning that it could not initialise CUDA. c10/cuda/CUDAFunctions.cpp catches the error of
 * {@code cudaGetDeviceCount} and says {@code TORCH_WARN("CUDA initialization: ", ...)}, which Python
 * shows as a {@code UserWarning} from torch/cuda/__init__.py ({@code return
 * torch._C._cuda_getDeviceCount() > 0}); a C++ program shows {@code Warning: CUDA initialization: ...}.
 * torch then reports no GPU, and a job written the usual way ({@code "cuda" if
 * torch.cuda.is_available() else "cpu"}) trains on the CPU: a sanitizer's "0 errors" then checked
 * nothing.
 */
public final class CudaUnavailable {
    /** The words every form of the warning starts with; a tool failure that starts with them is this warning. */
    public static final String MARK = "CUDA initialization: ";

    private static final Pattern WARNING =
            Pattern.compile("Warning: (" + MARK + ".*?)(?:\\s*\\(Triggered internally at .*)?\\s*$");
    private static final int MAX_WORDS = 300;

    private CudaUnavailable() {}

    /** The warning's words from {@code CUDA initialization:} on, without torch's source location; else null. */
    public static String warning(String line) {
        if (!line.contains(MARK)) {
            return null;
        }
        Matcher m = WARNING.matcher(line);
        if (!m.find()) {
            return null;
        }
        String words = m.group(1).trim();
        return words.length() <= MAX_WORDS ? words : words.substring(0, MAX_WORDS) + "...";
    }

    /** The first such warning in a job's output file, or null when there is none or the file cannot be read. */
    public static String firstIn(Path file) {
        if (!Files.isRegularFile(file)) {
            return null;
        }
        try {
            return InputFiles.read(file, in -> {
                try (BoundedLineReader lines = new BoundedLineReader(InputFiles.reader(in))) {
                    String line;
                    while ((line = lines.readLine()) != null) {
                        String w = warning(InputFiles.withoutAnsi(line));
                        if (w != null) {
                            return w;
                        }
                    }
                    return null;
                }
            });
        } catch (InputException e) {
            // the phase's own output only adds evidence; the phase was judged from its exit and the tool's log
            return null;
        }
    }
}
