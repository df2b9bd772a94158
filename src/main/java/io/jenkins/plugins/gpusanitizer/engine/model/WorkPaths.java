package io.jenkins.plugins.gpusanitizer.engine.model;

import java.util.ArrayDeque;

/**
 * How a file is named to a reader, against the working directory the job ran in: by its path under it
 * ({@code examples/cupy_pkg/trainer/ops.py}: two {@code ops.py} of one repository stay apart, and the name
 * leads to the file); by its base name when it lies outside ({@code site-packages}, {@code /usr/lib}), is a
 * relative path (native debug info; compute-sanitizer's text output strips paths) or the working directory
 * is unknown ({@code analyze} of loose files). Only for reading: the report's JSON keeps the full path, and
 * fingerprints and {@link SourceLocation#sameLine} compare base names, stable across machines and checkouts.
 *
 * <p>With isolation on, each run worked in its own copy of the working directory ({@code RUN_DIR/workspaces/RUN},
 * taken as it started): the job's frames name files in that copy. A file in a copy is the working directory's
 * file at the same path, and is named so ({@link #inWorkspace}): the copy is gone or elsewhere once the build is
 * over, the checkout is what a reader and a check annotation lead to.
 */
public final class WorkPaths {
    /** No working directory known: every file by its base name. */
    public static final WorkPaths UNKNOWN = new WorkPaths(null, null, "");

    /** The working directory, normalised ({@link #normalize}), or null. */
    private final String root;

    /** The folder holding the runs' copies of the working directory (one folder per run), normalised, or null. */
    private final String copies;

    /** The working directory's path under each run's copy ("" when the copy is of the working directory itself). */
    private final String within;

    private WorkPaths(String root, String copies, String within) {
        this.root = root;
        this.copies = copies;
        this.within = within;
    }

    /** @param workDirectory the absolute directory the job ran in, or null when unknown */
    public static WorkPaths of(String workDirectory) {
        return of(workDirectory, null);
    }

    /**
     * @param workDirectory the absolute directory the job ran in, or null when unknown
     * @param copies        the absolute folder whose subfolders were the runs' copies of it, or null when the runs
     *                      worked in the working directory itself; {@code COPIES/* /WITHIN} (no space) when each copy
     *                      is of a tree the working directory lies in at WITHIN (a Jenkins {@code dir('training')})
     */
    public static WorkPaths of(String workDirectory, String copies) {
        String root = workDirectory == null ? null : normalize(workDirectory);
        if (root == null) {
            return UNKNOWN;
        }
        String within = "";
        String folder = copies;
        int star = copies == null ? -1 : copies.indexOf("/*/");
        if (star > 0) {
            within = copies.substring(star + 3).replaceAll("^/+|/+$", "");
            folder = copies.substring(0, star);
        }
        return new WorkPaths(root, folder == null ? null : normalize(folder), within);
    }

    /** Whether the runs worked in copies of the working directory (isolation on). */
    public boolean hasCopies() {
        return copies != null;
    }

    /**
     * The file as it is in the working directory: a file in a run's copy becomes the working directory's file at
     * the same path under it; any other file is returned as it is.
     */
    public String inWorkspace(String file) {
        String inCopy = inCopy(file);
        return inCopy == null ? file : root + (root.endsWith("/") ? "" : "/") + inCopy;
    }

    /** The path of {@code file} under the run's copy it lies in ({@code RUN/} left out), or null. */
    private String inCopy(String file) {
        if (copies == null || file == null) {
            return null;
        }
        String f = normalize(file);
        String under = f == null ? null : below(copies, f);
        int slash = under == null ? -1 : under.indexOf('/');
        if (slash <= 0 || slash == under.length() - 1) {
            return null;
        }
        String inRun = under.substring(slash + 1);
        if (within.isEmpty()) {
            return inRun;
        }
        return inRun.startsWith(within + "/") && inRun.length() > within.length() + 1
                ? inRun.substring(within.length() + 1)
                : null;
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
        String relative = inCopy(file);
        if (relative == null) {
            String f = normalize(file);
            relative = f == null ? null : below(root, f);
        }
        if (relative == null) {
            return null;
        }
        for (String segment : relative.split("/")) {
            if (segment.equals("site-packages") || segment.equals("dist-packages")) {
                return null;
            }
        }
        return relative;
    }

    /** The normalised {@code file} below the normalised {@code folder}, without it; null when not below it. */
    private static String below(String folder, String file) {
        String prefix = folder.endsWith("/") ? folder : folder + "/";
        boolean windows = Character.isLetter(folder.charAt(0));
        boolean inside = windows ? file.regionMatches(true, 0, prefix, 0, prefix.length()) : file.startsWith(prefix);
        return !inside || file.length() == prefix.length() ? null : file.substring(prefix.length());
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
        return root == null
                ? "working directory unknown"
                : copies == null ? root : root + " (runs' copies in " + copies + ")";
    }
}
