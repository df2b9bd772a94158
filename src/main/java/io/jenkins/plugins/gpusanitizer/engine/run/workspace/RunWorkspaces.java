package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The workspace each run of the job has. With isolation on (the default) every run — each sanitizer tool's, the
 * blocking run, the regression run, and any of them run again — starts in a fresh copy of the working directory
 * taken when it starts, from the working directory the gate leaves untouched until its end. So each sees the
 * workspace as it was before the gate: no checkpoint another run wrote to resume from, no model another run saved to
 * load, no cache another run is still writing. At the end the working directory is given what the plain run left
 * ({@link #writeBack}): the files the build's later stages archive. The copies stay in the run directory
 * ({@code workspaces/RUN}), each run's manifest ({@link WorkspaceManifest#FILE}) beside its outputs.
 */
public final class RunWorkspaces {
    /** The run directory's folder of the copies. */
    public static final String FOLDER = "workspaces";

    private final Isolation isolation;
    private final Path original;
    private final Path root;
    private final Set<Path> skip = new HashSet<>();
    private final Set<Path> shared = new HashSet<>();
    /** How long each run's copy took, seconds (said in its manifest: the isolation's cost, measured). */
    private final Map<Path, Double> copySeconds = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param workDir the job's working directory
     * @param runDir  the run directory (left out of the copies when it is inside the working directory)
     */
    public RunWorkspaces(Isolation isolation, Path workDir, Path runDir) throws IOException {
        this.isolation = isolation;
        this.original = workDir.toRealPath();
        Path run = runDir.toAbsolutePath().normalize();
        if (Files.exists(run)) {
            run = run.toRealPath();
        }
        this.root = run.resolve(FOLDER);
        if (run.startsWith(original)) {
            skip.add(run);
        }
        for (String s : isolation.shared()) {
            Path p = original.resolve(s).normalize();
            if (!p.startsWith(original) || p.equals(original)) {
                throw new IllegalArgumentException(
                        "the shared path '" + s + "' is not inside the working directory " + original);
            }
            shared.add(p);
        }
    }

    public boolean isolated() {
        return isolation.isolate();
    }

    public Path original() {
        return original;
    }

    /** The paths the copies leave out or link: ignored when runs' changes are compared. */
    private Set<Path> ignored() {
        Set<Path> all = new HashSet<>(skip);
        all.addAll(shared);
        return all;
    }

    /**
     * Before anything runs: the shared paths exist and what would be copied stays under the limit.
     *
     * @return null when it may go on, else a one-line reason naming the largest folders
     */
    public String check() throws IOException {
        if (!isolation.isolate()) {
            return null;
        }
        for (Path p : shared) {
            if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                return "the shared path " + original.relativize(p) + " does not exist in the working directory "
                        + original;
            }
        }
        if (isolation.limitMiB() == 0) {
            return null;
        }
        WorkspaceSize size = WorkspaceSize.of(original, ignored());
        long limit = isolation.limitMiB() * 1024 * 1024;
        if (size.bytes() <= limit) {
            return null;
        }
        return "the working directory " + original + " holds " + WorkspaceSize.mib(size.bytes())
                + " MiB to copy for each run, above the limit of " + isolation.limitMiB() + " MiB (largest: "
                + size.largest(3) + "): name folders the runs only read (a dataset) with --share PATH (the step's "
                + "sharedPaths), raise --workspace-limit-mb, or run every phase in the working directory itself "
                + "with --no-isolation";
    }

    /**
     * The folder a run works in. Isolated: a fresh copy of the working directory; a run started before a restart
     * goes on in the copy it had; an earlier attempt's copy (a run set aside and run again) is kept beside as
     * {@code RUN.N}.
     */
    public Path forRun(String run, boolean resumed) throws IOException {
        if (!isolation.isolate()) {
            return original;
        }
        Path copy = root.resolve(run);
        if (Files.exists(copy, LinkOption.NOFOLLOW_LINKS)) {
            if (resumed) {
                return copy;
            }
            int n = 1;
            while (Files.exists(root.resolve(run + "." + n), LinkOption.NOFOLLOW_LINKS)) {
                n++;
            }
            Files.move(copy, root.resolve(run + "." + n));
        }
        long start = System.nanoTime();
        new TreeCopy(skip, shared).copy(original, copy);
        copySeconds.put(copy, (System.nanoTime() - start) / 1e9);
        return copy;
    }

    /**
     * The job's variables as a run in {@code workspace} sees them: a value that is the working directory, or a path
     * inside it (alone or in a list such as PYTHONPATH), names the same place in the run's copy; PWD is the copy.
     */
    public Map<String, String> env(Map<String, String> env, Path workspace) {
        Map<String, String> out = new LinkedHashMap<>(env);
        if (workspace.equals(original)) {
            return out;
        }
        out.replaceAll((name, value) -> value == null ? null : relocate(value, workspace));
        out.put("PWD", workspace.toString());
        return out;
    }

    private String relocate(String value, Path workspace) {
        String[] parts = value.split(File.pathSeparator, -1);
        boolean changed = false;
        for (int i = 0; i < parts.length; i++) {
            String moved = relocatePath(parts[i], workspace);
            changed |= !moved.equals(parts[i]);
            parts[i] = moved;
        }
        return changed ? String.join(File.pathSeparator, parts) : value;
    }

    private String relocatePath(String part, Path workspace) {
        String base = original.toString();
        if (part.equals(base) || part.equals(base + "/")) {
            return workspace.toString();
        }
        if (part.startsWith(base + "/")) {
            Path inside = original.resolve(part.substring(base.length() + 1)).normalize();
            if (inside.startsWith(original) && ignored().stream().noneMatch(inside::startsWith)) {
                return workspace.resolve(original.relativize(inside)).toString();
            }
        }
        return part;
    }

    /**
     * After a run: what it changed in its workspace, written to the manifest in its phase folder. Null when it ran in
     * the working directory itself (nothing to compare with), or when its changes could not be read (the manifest
     * then says why).
     */
    public WorkspaceChanges record(Path workspace, Path phaseDir) throws IOException {
        if (workspace.equals(original) || !Files.isDirectory(workspace)) {
            return null;
        }
        long start = System.nanoTime();
        WorkspaceChanges changes;
        try {
            changes = WorkspaceChanges.between(original, workspace, ignored());
        } catch (IOException e) {
            Files.writeString(
                    phaseDir.resolve(WorkspaceManifest.FILE),
                    WorkspaceManifest.unread(workspace.toString(), e.getMessage()),
                    java.nio.charset.StandardCharsets.UTF_8);
            return null;
        }
        double compared = (System.nanoTime() - start) / 1e9;
        Double copied = copySeconds.get(workspace);
        changes.writeManifest(
                phaseDir.resolve(WorkspaceManifest.FILE),
                workspace.toString(),
                how()
                        + String.format(
                                java.util.Locale.ROOT,
                                "; copied in %s s, compared in %.3f s",
                                copied == null ? "?" : String.format(java.util.Locale.ROOT, "%.3f", copied),
                                compared));
        return changes;
    }

    private String how() {
        return (TreeCopy.gnuCp() ? "cp -a --reflink=auto" : "copied file by file")
                + (shared.isEmpty()
                        ? ""
                        : "; shared (linked, not copied): "
                                + String.join(
                                        ", ",
                                        shared.stream()
                                                .map(p -> original.relativize(p).toString())
                                                .sorted()
                                                .toList()));
    }

    /**
     * The working directory is given what the plain run left in its copy (its new and rewritten files, its removals),
     * so the build goes on with the workspace one plain run of the job leaves.
     *
     * @return what was written back, for the log; null when there was nothing to write back
     */
    public String writeBack(String run) throws IOException {
        Path copy = root.resolve(run);
        if (!isolation.isolate() || !Files.isDirectory(copy)) {
            return null;
        }
        WorkspaceChanges changes = WorkspaceChanges.between(original, copy, ignored());
        changes.applyTo(original, copy);
        return "the working directory now holds what the " + run + " run left: "
                + changes.entries().size() + " path(s) written back (" + WorkspaceSize.mib(changes.bytesWritten())
                + " MiB)";
    }
}
