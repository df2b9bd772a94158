package io.jenkins.plugins.gpusanitizer.engine.model;

/**
 * One host stack frame as compute-sanitizer prints it: a native frame (function, optional file:line,
 * module) or a Python frame appended by the tool ({@code func in file.py:line}, no module).
 * Any field but {@code python} may be null; {@code line} is 0 when unknown.
 */
public record Frame(String function, String file, int line, String module, boolean python) {

    public static Frame python(String function, String file, int line) {
        return new Frame(function, file, line, null, true);
    }

    public static Frame nativeFrame(String function, String file, int line, String module) {
        return new Frame(emptyToNull(function), file, line, module, false);
    }

    public String moduleBaseName() {
        return module == null ? "" : baseName(module);
    }

    public SourceLocation toLocation() {
        return file == null ? null : SourceLocation.of(file, line, function);
    }

    public static String baseName(String path) {
        if (path == null) {
            return "";
        }
        int slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
        return slash < 0 ? path : path.substring(slash + 1);
    }

    private static String emptyToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(function == null ? "??" : function);
        if (file != null) {
            sb.append(" in ").append(file).append(':').append(line);
        }
        if (module != null) {
            sb.append(" [").append(moduleBaseName()).append(']');
        }
        return sb.toString();
    }
}
