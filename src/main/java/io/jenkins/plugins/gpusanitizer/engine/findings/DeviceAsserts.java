package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * memcheck names the device function a warp stopped in, which for every CUDA {@code assert()} is the
 * runtime's {@code __assertfail}: "Warp assert in kernel __assertfail" says nothing. The operator that
 * asserted is in the host stack saved at launch: PyTorch's dispatcher frames
 * ({@code at::_ops::embedding::call}) name the ATen operators from the one the user called down to the
 * one whose kernel asserted, and the innermost ATen frame that launches a kernel names that kernel.
 */
public final class DeviceAsserts {
    private static final Pattern OP = Pattern.compile("^at::_ops::(\\w+)::(call|redispatch)$");

    private DeviceAsserts() {}

    /** Whether memcheck named the assert runtime instead of a kernel. */
    public static boolean isAssertRuntime(String kernel) {
        String k = KernelNames.simple(kernel);
        return "__assertfail".equals(k) || "__assert_fail".equals(k);
    }

    /**
     * The record's headline: for a device assert stopped in {@code __assertfail}, "Device assert in
     * aten::embedding (via aten::index_select, kernel launched by vectorized_gather_kernel_launch)"; the
     * record's own message otherwise.
     */
    public static String message(SanitizerRecord r) {
        if (r.kind() != Kind.DEVICE_ASSERT || !isAssertRuntime(r.kernel())) {
            return r.message();
        }
        String called = null;
        String innermost = null;
        String launcher = null;
        for (Frame f : r.hostFrames()) {
            if (f.python()) {
                break;
            }
            String fn = f.function() == null ? null : KernelNames.simple(f.function());
            if (fn == null) {
                continue;
            }
            Matcher m = OP.matcher(fn);
            if (m.matches()) {
                innermost = innermost == null ? m.group(1) : innermost;
                called = m.group(1);
            } else if (innermost == null
                    && launcher == null
                    && fn.startsWith("at::native::")
                    && fn.contains("kernel")) {
                launcher = shortName(fn);
            }
        }
        if (called == null && launcher == null) {
            return r.message();
        }
        StringBuilder sb = new StringBuilder("Device assert");
        if (called != null) {
            sb.append(" in aten::").append(called);
        }
        List<String> parts = new java.util.ArrayList<>();
        if (innermost != null && !innermost.equals(called)) {
            parts.add("via aten::" + innermost);
        }
        if (launcher != null) {
            parts.add("kernel launched by " + launcher);
        }
        if (!parts.isEmpty()) {
            sb.append(" (").append(String.join(", ", parts)).append(')');
        }
        return sb.toString();
    }

    /** {@code at::native::_cuda_scatter_gather_internal_kernel<false, ...>::operator} → {@code _cuda_scatter_gather_internal_kernel}. */
    static String shortName(String function) {
        String s = function;
        int depth = 0;
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '<') {
                depth++;
            } else if (c == '>') {
                depth--;
            } else if (depth == 0) {
                out.append(c);
            }
        }
        String plain = out.toString();
        if (plain.endsWith("::operator")) {
            plain = plain.substring(0, plain.length() - "::operator".length());
        }
        int colon = plain.lastIndexOf("::");
        return colon < 0 ? plain : plain.substring(colon + 2);
    }
}
