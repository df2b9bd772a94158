package io.jenkins.plugins.gpusanitizer.engine.findings;

/**
 * Kernel names come demangled with parameter lists in the text ({@code oob_write(int *, int)}) and
 * without them in the XML ({@code oob_write}); grouping uses the simple name.
 */
public final class KernelNames {
    private KernelNames() {}

    /** A C++ kernel or function without its namespaces, template and parameters: {@code elementwise_kernel}. */
    public static String bare(String name) {
        String simple = simple(name);
        if (simple == null) {
            return null;
        }
        int template = simple.indexOf('<');
        String unqualified = template > 0 ? simple.substring(0, template) : simple;
        int namespace = unqualified.lastIndexOf("::");
        return namespace >= 0 ? unqualified.substring(namespace + 2) : unqualified;
    }

    public static String simple(String kernel) {
        if (kernel == null) {
            return null;
        }
        String k = kernel.trim();
        int plus = k.lastIndexOf("+0x");
        if (plus > 0 && k.indexOf(')', plus) < 0) {
            k = k.substring(0, plus);
        }
        if (k.startsWith("void ")) {
            k = k.substring(5);
        }
        if (k.endsWith(")")) {
            int depth = 0;
            for (int i = k.length() - 1; i >= 0; i--) {
                char c = k.charAt(i);
                if (c == ')') {
                    depth++;
                } else if (c == '(') {
                    depth--;
                    if (depth == 0) {
                        k = k.substring(0, i);
                        break;
                    }
                }
            }
        }
        int clone = k.indexOf(" [clone");
        if (clone > 0) {
            k = k.substring(0, clone);
        }
        return k.trim();
    }
}
