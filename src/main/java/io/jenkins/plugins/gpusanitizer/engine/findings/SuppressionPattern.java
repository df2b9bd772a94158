package io.jenkins.plugins.gpusanitizer.engine.findings;

import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The regex of a suppression's kernel, message or frame. An empty one ({@code kernel=$UNSET} in CI)
 * or one that finds a match in any text ({@code x*}, {@code .*}, {@code |a}) would suppress every
 * defect and turn a failing gate into a PASS, so both are refused like a malformed spec. A regex
 * that matches the empty string and every sample below is taken to match everything; a wide but
 * meant pattern ({@code ^(?!at::native)}) fails on some sample and is kept.
 */
public final class SuppressionPattern {
    /** Kernel names, messages and frames of the recorded runs, and texts unlike any of them. */
    private static final List<String> SAMPLES = List.of(
            "",
            "x",
            "Q",
            "0",
            " ",
            "\n",
            "#;~",
            "_Z11scale_shiftPfS_ii",
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, T2, T3)",
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
            "Invalid __global__ write of size 4 bytes",
            "Uninitialized __global__ memory read of size 4 bytes",
            "train.py",
            "/usr/lib/x86_64-linux-gnu/libcudnn_engines_precompiled.so.9",
            "libtorch_cuda.so",
            "at::native::index_select_out_cuda_impl");

    private SuppressionPattern() {}

    /**
     * @param key   kernel, message or frame: named in the message
     * @param value the regex as given
     * @throws IllegalArgumentException (one line, without the spec) when it is empty, malformed or
     *     matches everything
     */
    public static Pattern compile(String key, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(
                    key + " is empty (an unset variable?): it would suppress every defect; give a regex or leave " + key
                            + " out");
        }
        Pattern pattern;
        try {
            pattern = Pattern.compile(value.trim());
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("bad regex for " + key + ": " + e.getDescription());
        }
        if (SAMPLES.stream().allMatch(s -> pattern.matcher(s).find())) {
            throw new IllegalArgumentException(key + " '" + value.trim() + "' matches every " + key
                    + ": it would suppress every defect;" + " narrow it");
        }
        return pattern;
    }
}
