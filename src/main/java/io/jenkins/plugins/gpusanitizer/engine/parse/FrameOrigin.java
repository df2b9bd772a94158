package io.jenkins.plugins.gpusanitizer.engine.parse;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Where a Python frame's code comes from: the user's own files, installed packages and the standard
 * library, or code that torch.compile (Inductor, Triton) generated. The traceback parser, the
 * sanitizer findings and the report all name the user's line by these rules, so they live in one
 * place.
 */
public final class FrameOrigin {
    /** Inductor names its modules {@code c} + a 51-character hash ({@code yg/cygem6uw...py}). */
    private static final Pattern INDUCTOR_HASHED = Pattern.compile("(?:^|/)c[a-z0-9]{50,}\\.py$");

    private FrameOrigin() {}

    /** A frame is the user's when it is a .py file outside installed packages, the standard library and generated code. */
    public static boolean isUserFile(String file) {
        if (file == null || file.startsWith("<") || !(file.endsWith(".py") || file.endsWith(".ipynb"))) {
            return false;
        }
        String f = forwardSlashes(file);
        if (f.contains("/site-packages/") || f.contains("/dist-packages/") || isGeneratedFile(f)) {
            return false;
        }
        if (isProbeFile(f)) {
            return false; // gpu-sanitize's own probe (engine/run/probe): a wrapper frame, never the user's line
        }
        int lib = f.indexOf("/lib/python");
        return lib < 0 || !(lib + 11 < f.length() && Character.isDigit(f.charAt(lib + 11)));
    }

    /** A module of gpu-sanitize's in-process probe ({@link RunLayout#PROBE_MODULES}), by its path. */
    static boolean isProbeFile(String file) {
        int slash = file.lastIndexOf('/');
        return slash >= 0 && RunLayout.PROBE_MODULES.contains(file.substring(slash + 1));
    }

    /**
     * Source that torch.compile (Inductor) or Triton generated: their cache directories
     * ({@code /tmp/torchinductor_USER/}, {@code ~/.triton/cache/}) or Inductor's hashed module names
     * ({@code yg/cygem6uw...py}) wherever {@code TORCHINDUCTOR_CACHE_DIR} puts them (and in
     * compute-sanitizer's text output, which gives base names only).
     */
    public static boolean isGeneratedFile(String file) {
        if (file == null) {
            return false;
        }
        String f = forwardSlashes(file);
        // the hashed name is 54 characters at least: most files are not searched
        return isCacheFile(f) || f.length() >= 54 && INDUCTOR_HASHED.matcher(f).find();
    }

    /** A file under an Inductor or Triton cache directory (what the runner may copy into the run directory). */
    public static boolean isCacheFile(String file) {
        if (file == null) {
            return false;
        }
        String f = forwardSlashes(file);
        return f.contains("/torchinductor_")
                || f.contains("/.triton/cache/")
                || f.contains("/triton/cache/")
                || f.contains("/inductor_cache/")
                || f.contains("/torch_compile_debug/");
    }

    /** Dynamo's frame evaluation; compute-sanitizer's text output gives base names only. */
    private static boolean isDynamoFile(String file) {
        if (file == null) {
            return false;
        }
        String f = forwardSlashes(file);
        return f.contains("/torch/_dynamo/") || f.equals("eval_frame.py");
    }

    /**
     * Python shows a frame that torch.compile replaced at its def line ({@code def forward(self, x):});
     * without the code, such a frame is recognised by what it called: Dynamo's frame evaluation
     * ({@code _fn in torch/_dynamo/eval_frame.py}), which runs the compiled graph.
     *
     * @param callee the next frame inwards, or null
     */
    public static boolean isCompiledFrame(SourceLocation frame, SourceLocation callee) {
        String code = frame.code();
        if (code != null) {
            return code.startsWith("def ") || code.startsWith("async def ");
        }
        return callee != null && isDynamoFile(callee.file());
    }

    /**
     * The innermost user frame of a traceback (outermost first), skipping generated code and frames
     * torch.compile replaced while an outer user frame (the call of the compiled module) exists.
     *
     * @return index into frames, or -1
     */
    public static int userFrameIndex(List<SourceLocation> frames) {
        boolean skipped = false;
        for (int i = frames.size() - 1; i >= 0; i--) {
            SourceLocation f = frames.get(i);
            if (!isUserFile(f.file())) {
                continue;
            }
            // only the innermost: the frame that called the compiled module also calls into Dynamo
            if (!skipped
                    && isCompiledFrame(f, i + 1 < frames.size() ? frames.get(i + 1) : null)
                    && hasUserFrame(frames, i)) {
                skipped = true;
                continue;
            }
            return i;
        }
        return -1;
    }

    private static boolean hasUserFrame(List<SourceLocation> frames, int before) {
        for (int i = before - 1; i >= 0; i--) {
            if (isUserFile(frames.get(i).file())) {
                return true;
            }
        }
        return false;
    }

    /** Windows paths read as POSIX ones, so one set of rules serves both. */
    private static String forwardSlashes(String file) {
        return file.indexOf('\\') >= 0 ? file.replace('\\', '/') : file;
    }
}
