package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Kernels compiled at run time by CuPy through NVRTC. Their line information names CuPy's cache file,
 * {@code <sha1>.cubin.cu} ({@code <md5>_2.cubin.cu} in older CuPy), not a source the user knows. With
 * {@code CUPY_CACHE_SAVE_CUDA_SOURCE=1} CuPy writes the kernel's source under that very name into
 * {@code CUPY_CACHE_DIR} (only when it compiles the kernel, so the sanitizer phase gives it a fresh cache
 * directory beside its log): the device line then reads as that source's line, with its text. Without the
 * saved source it is said to be a run-time kernel's cache file, never presented as a source line.
 */
public final class RuntimeKernels {
    /** The cache directory the sanitizer phase gives CuPy, inside its phase directory. */
    public static final String CUPY_CACHE_DIR = "cupy-kernel-cache";

    static final Pattern CACHE_NAME = Pattern.compile("[0-9a-f]{32,64}(_\\d+)?\\.cubin\\.cu");
    static final int MAX_LINE_CHARS = 200;

    private RuntimeKernels() {}

    public static boolean isCacheFile(SourceLocation l) {
        return l != null && CACHE_NAME.matcher(l.baseName()).matches();
    }

    /** The defects with the text of their run-time kernel's source line, where CuPy saved it under {@code dir}. */
    public static List<Defect> withSource(List<Defect> defects, Path dir) {
        if (dir == null || !Files.isDirectory(dir)) {
            return defects;
        }
        List<Defect> out = new ArrayList<>(defects.size());
        for (Defect d : defects) {
            SourceLocation l = d.deviceLocation();
            String code = isCacheFile(l) && l.code() == null ? line(dir.resolve(l.baseName()), l.line()) : null;
            out.add(
                    code == null
                            ? d
                            : d.withDeviceLocation(new SourceLocation(l.file(), l.line(), l.function(), code)));
        }
        return out;
    }

    /** Line {@code n} (1-based) of a saved source, stripped and bounded; null when absent or unreadable. */
    static String line(Path file, int n) {
        if (n < 1 || !Files.isRegularFile(file)) {
            return null;
        }
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String s = null;
            for (int i = 0; i < n; i++) {
                s = r.readLine();
                if (s == null) {
                    return null;
                }
            }
            s = s.strip();
            return s.length() > MAX_LINE_CHARS ? s.substring(0, MAX_LINE_CHARS) + "..." : s;
        } catch (IOException | java.io.UncheckedIOException e) {
            return null; // not UTF-8, or gone: the location is said without its text
        }
    }

    /**
     * Where a device line is, for a sentence: {@code at oob.cu:10}; {@code at line 8 of the CuPy/NVRTC
     * kernel's source: `y[i] = x[i + 1];` (cache file ab12….cubin.cu)}; or {@code in a CuPy/NVRTC kernel
     * compiled at run time (cache file ab12….cubin.cu, line 8; its source was not saved)}.
     */
    public static String at(SourceLocation l) {
        return at(l, WorkPaths.UNKNOWN);
    }

    /** {@link #at(SourceLocation)}, a source file named by its path under the working directory. */
    public static String at(SourceLocation l, WorkPaths paths) {
        if (!isCacheFile(l)) {
            return "at " + paths.name(l.file()) + ":" + l.line();
        }
        if (l.code() != null) {
            return "at line " + l.line() + " of the CuPy/NVRTC kernel's source: `" + l.code() + "` (cache file "
                    + l.baseName() + ")";
        }
        return "in a CuPy/NVRTC kernel compiled at run time (cache file " + l.baseName() + ", line " + l.line()
                + "; its source was not saved)";
    }
}
