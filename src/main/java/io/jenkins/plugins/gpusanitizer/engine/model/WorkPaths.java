package io.jenkins.plugins.gpusanitizer.engine.model;

import java.util.ArrayDeque;

/**
 * How a file is named to a reader, against the working directory the job ran in: by its path under it
 * ({@code examples/cupy_pkg/trainer/ops.py}: two {@code ops.py} of one repository stay apart, and the name
 * leads to the file); by its base name when it lies outside ({@code site-packages}, {@code /usr/lib}), is a
 * relative path (native debug info; compute-sanitizer's text output strips paths) or the working directory
 * is unknown ({@code analyze} of loose files). Only for reading: the report's JSON keeps the full path, and
 * fingerprints and {@link SourceLocation#sameLine} compare base names, stable across machines and checkouts.
 */
public final class WorkPaths {
    /** No working directory known: every file by its base name. */
    public static final WorkPaths UNKNOWN = new WorkPaths(null);

    /** The working directory, normalised ({@link #normalize}), or null. */
    private final String root;

    private WorkPaths(String root) {
        this.root = root;
    }

    /** @param workDirectory the absolute directory the job ran in, or null when unknown */
    public static WorkPaths of(String workDirectory) {
        String root = workDirectory == null ? null : normalize(workDirectory);
        return root == null ? UNKNOWN : new WorkPaths(root);
    }

    /**
     * {@code file} relative to the working directory, with '/' separators; null when either is not an
     * absolute path, the file is not below the working directory, or it lies in an installed package there
     * ({@code site-packages}, {@code dist-packages}: a virtual environment in the workspace). A relative file
     * is not trusted: native debug info gives source paths relative to where a library was built. Windows
     * paths ({@code C:\ws\a.py}) compare without case. Symbolic links are not resolved.
     */
    public String relative(String file) {
        if (root == null || file == null) {
            return null;
        }
        String f = normalize(file);
        if (f == null) {
            return null;
        }
        String prefix = root.endsWith("/") ? root : root + "/";
        boolean windows = Character.isLetter(root.charAt(0));
        boolean inside = windows ? f.regionMatches(true, 0, prefix, 0, prefix.length()) : f.startsWith(prefix);
        if (!inside || f.length() == prefix.length()) {
            return null;
        }
        String relative = f.substring(prefix.length());
        for (String segment : relative.split("/")) {
            if (segment.equals("site-packages") || segment.equals("dist-packages")) {
                return null;
            }
        }
        return relative;
    }

    /** A file as a sentence or a page names it: its path under the working directory, else its base name. */
    public String name(String file) {
        String relative = relative(file);
        return relative != null ? relative : Frame.baseName(file);
    }

    /** {@code examples/cupy_pkg/trainer/ops.py:21 (jitter)}: {@link SourceLocation#toString} with {@link #name}. */
    public String at(SourceLocation l) {
        return name(l.file()) + ":" + l.line() + (l.function() == null ? "" : " (" + l.function() + ")");
    }

    /**
     * An absolute path with '/' separators, '.' and '..' resolved, no empty segment; null for a relative
     * path, a pseudo-file such as Python's {@code <string>}, or one whose '..' climbs above its root.
     */
    public static String normalize(String path) {
        String p = path.replace('\\', '/');
        String top;
        if (p.startsWith("//")) {
            top = "//";
        } else if (p.startsWith("/")) {
            top = "/";
        } else if (p.length() >= 3 && Character.isLetter(p.charAt(0)) && p.charAt(1) == ':' && p.charAt(2) == '/') {
            top = p.substring(0, 3);
        } else {
            return null;
        }
        ArrayDeque<String> segments = new ArrayDeque<>();
        for (String segment : p.substring(top.length()).split("/")) {
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                if (segments.pollLast() == null) {
                    return null;
                }
            } else {
                segments.addLast(segment);
            }
        }
        return top + String.join("/", segments);
    }

    @Override
    public String toString() {
        return root == null ? "working directory unknown" : root;
    }
}
