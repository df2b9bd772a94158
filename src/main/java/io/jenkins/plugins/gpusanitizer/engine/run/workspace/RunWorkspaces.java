package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The workspace each run of the job has. With isolation on (the default) every run — each sanitizer tool's, the
 * blocking run, the regression run — starts in a copy of the tree it works in, all taken when the gate starts from one
 * baseline ({@link #prepare}); a run set aside and run again gets a fresh copy then. So no run reads what another
 * wrote: no checkpoint another run wrote to resume from, no model another run saved to load, no cache another run is
 * still writing. At the end the working directory is given what the plain run changed ({@link #writeBack}), and
 * nothing else. The copies stay in the run directory ({@code workspaces/RUN}), each run's manifest ({@link
 * WorkspaceManifest#FILE}) beside its outputs.
 *
 * <p>The tree copied is the Jenkins workspace ({@code $WORKSPACE}) when the working directory lies inside it (a
 * {@code dir('training')} block), so that {@code ../artifacts} stays inside the copy; else the working directory.
 * The copies' parent folder holds links to what lies beside that tree ({@code ../datasets}), so reads beside the
 * checkout work from a copy. Paths naming the tree — either spelling, the logical {@code $WORKSPACE} through a
 * symbolic link and the real one — name the copy in the run's variables and command line ({@link PathRelocation}).
 */
public final class RunWorkspaces {
    /** The run directory's folder of the copies. */
    public static final String FOLDER = "workspaces";

    /** The file in each gate's run directory that marks it as one: never copied into a run's workspace. */
    public static final String RUN_MARKER = ".gpu-sanitize-run";

    /** The folder, under {@link #FOLDER}, of the snapshots the write-back compares. */
    static final String STATE = ".gpu-sanitize";

    /** The run directory's record of the write-back (what was written, the conflicts, what others wrote). */
    public static final String WRITE_BACK_FILE = "workspace-writeback.json";

    private final Isolation isolation;
    private final WorkTree tree;
    private final Path root;
    private final Path runDir;
    private final Set<Path> skip = new HashSet<>();
    private final Set<Path> shared = new HashSet<>();
    private final PathRelocation relocation;
    /** Copies made at the gate's start and not yet given to a run. */
    private final Set<String> fresh = ConcurrentHashMap.newKeySet();
    /** How long each run's copy took, seconds (said in its manifest: the isolation's cost, measured). */
    private final Map<String, Double> copySeconds = new ConcurrentHashMap<>();

    private WorkspaceSnapshot baseline;

    /**
     * @param workDir the job's working directory
     * @param runDir  the run directory (left out of the copies when it is inside the tree)
     * @param env     the job's variables: {@code WORKSPACE}, when the working directory lies inside it, is the tree
     *                copied
     */
    public RunWorkspaces(Isolation isolation, Path workDir, Path runDir, Map<String, String> env) throws IOException {
        this.isolation = isolation;
        this.tree = WorkTree.of(workDir, env.get("WORKSPACE"));
        Path run = runDir.toAbsolutePath().normalize();
        if (Files.exists(run)) {
            run = run.toRealPath();
        }
        this.runDir = run;
        this.root = run.resolve(FOLDER);
        if (run.startsWith(tree.real())) {
            skip.add(run);
        }
        for (String s : isolation.shared()) {
            Path p = tree.work().resolve(s).normalize();
            if (!p.startsWith(tree.real()) || p.equals(tree.real())) {
                throw new IllegalArgumentException(
                        "the shared path '" + s + "' is not inside the working directory " + tree.work());
            }
            shared.add(p);
        }
        this.relocation = new PathRelocation(tree, ignored());
    }

    public boolean isolated() {
        return isolation.isolate();
    }

    /** The working directory (its real path). */
    public Path original() {
        return tree.work();
    }

    /** The paths the copies leave out or link: ignored when runs' changes are compared. */
    private Set<Path> ignored() {
        Set<Path> all = new HashSet<>(skip);
        all.addAll(shared);
        return all;
    }

    /** Whether a folder is a gate's run directory: marked, or laid out as one by a release before the mark. */
    public static boolean isRunDirectory(Path dir) {
        return Files.exists(dir.resolve(RUN_MARKER), LinkOption.NOFOLLOW_LINKS)
                || (Files.isRegularFile(dir.resolve("run.json"), LinkOption.NOFOLLOW_LINKS)
                        && Files.isRegularFile(dir.resolve("runner.lease"), LinkOption.NOFOLLOW_LINKS));
    }

    private WorkspaceSnapshot snapshot(Path of) throws IOException {
        return WorkspaceSnapshot.of(of, ignoredIn(of), RunWorkspaces::neverCopied);
    }

    /** Why a folder is never copied into a run's workspace, or null when it is copied. */
    static String neverCopied(Path dir) {
        if (isRunDirectory(dir)) {
            return "a gate's run directory: never copied";
        }
        // Jenkins' own beside a dir('sub') block's folder: its steps' scripts, this gate's run directory
        return String.valueOf(dir.getFileName()).endsWith("@tmp") ? "a Jenkins temporary folder: never copied" : null;
    }

    /** The ignored paths as they lie in {@code tree} (the original or a copy). */
    private Set<Path> ignoredIn(Path of) {
        Set<Path> in = new HashSet<>();
        for (Path p : ignored()) {
            in.add(of.resolve(tree.real().relativize(p).toString()));
        }
        return in;
    }

    private Path statePath(String name) {
        return root.resolve(STATE).resolve(name + ".json");
    }

    /** The working directory as the gate started: read once, kept in the run directory for a resumed run. */
    private WorkspaceSnapshot baseline() throws IOException {
        if (baseline == null) {
            Path file = statePath("baseline");
            if (Files.isRegularFile(file)) {
                baseline = WorkspaceSnapshot.read(file);
            } else {
                baseline = snapshot(tree.real());
                baseline.write(file);
            }
        }
        return baseline;
    }

    /**
     * Before anything runs: the shared paths exist and what would be copied stays under the limit. Takes the
     * baseline.
     *
     * @return null when it may go on, else a one-line reason naming the largest folders
     */
    public String check() throws IOException {
        if (!isolation.isolate()) {
            return null;
        }
        for (Path p : shared) {
            if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                return "the shared path " + tree.real().relativize(p) + " does not exist in the working directory "
                        + tree.work();
            }
        }
        WorkspaceSnapshot base = baseline();
        if (isolation.limitMiB() == 0) {
            return null;
        }
        WorkspaceSize size = WorkspaceSize.of(base);
        long limit = isolation.limitMiB() * 1024 * 1024;
        if (size.bytes() <= limit) {
            return null;
        }
        return "the working directory " + tree.real() + " holds " + WorkspaceSize.mib(size.bytes())
                + " MiB to copy for each run, above the limit of " + isolation.limitMiB() + " MiB (largest: "
                + size.largest(3) + "): name folders the runs only read (a dataset) with --share PATH (the step's "
                + "sharedPaths), raise --workspace-limit-mb, or run every phase in the working directory itself "
                + "with --no-isolation";
    }

    /**
     * At the gate's start: a copy for each planned run, all from the baseline's working directory, and the links
     * beside them. A run directory that has them already (a resumed run) keeps them.
     *
     * @return lines for the console: what was left out of the copies and why
     */
    public List<String> prepare(List<String> runs) throws IOException {
        if (!isolation.isolate()) {
            return List.of();
        }
        WorkspaceSnapshot base = baseline();
        Files.createDirectories(root);
        List<String> lines = new ArrayList<>(BesideLinks.link(tree.real(), root, runs, STATE));
        for (String run : runs) {
            if (!Files.exists(root.resolve(run), LinkOption.NOFOLLOW_LINKS)) {
                copy(run, base);
                fresh.add(run);
            }
        }
        for (WorkspaceSnapshot.Skipped s : base.skipped()) {
            lines.add("not copied into the runs' workspaces: " + s.path() + ": " + s.reason());
        }
        return lines;
    }

    /** One copy of the tree for a run, its links relocated, and its snapshot as it starts. */
    private void copy(String run, WorkspaceSnapshot source) throws IOException {
        Path copy = root.resolve(run);
        long start = System.nanoTime();
        Set<Path> leftOut = new HashSet<>(skip);
        for (WorkspaceSnapshot.Skipped s : source.skipped()) {
            leftOut.add(tree.real().resolve(s.path()));
        }
        try {
            new TreeCopy(leftOut, shared).copy(tree.real(), copy);
        } catch (IOException e) {
            throw new IOException(
                    "could not copy the working directory " + tree.real() + " for the " + run + " run: "
                            + e.getMessage(),
                    e);
        }
        relocation.relocateLinks(source, copy);
        copySeconds.put(run, (System.nanoTime() - start) / 1e9);
        snapshot(copy).write(statePath(run + ".start"));
    }

    /**
     * The folder a run works in: its copy of the tree (the working directory's place in it). A run started before a
     * restart goes on in the copy it had; a run again (set aside and run again) gets a fresh copy from the working
     * directory as it is then, the earlier one kept beside as {@code RUN.N}.
     */
    public Path forRun(String run, boolean resumed) throws IOException {
        if (!isolation.isolate()) {
            return tree.work();
        }
        Path copy = root.resolve(run);
        if (fresh.remove(run) || (resumed && Files.isDirectory(copy))) {
            return copy.resolve(tree.within());
        }
        if (Files.exists(copy, LinkOption.NOFOLLOW_LINKS)) {
            int n = 1;
            while (Files.exists(root.resolve(run + "." + n), LinkOption.NOFOLLOW_LINKS)) {
                n++;
            }
            Files.move(copy, root.resolve(run + "." + n));
        }
        Files.createDirectories(root);
        copy(run, snapshot(tree.real()));
        return copy.resolve(tree.within());
    }

    /** The run a workspace folder belongs to, or null for the working directory itself. */
    private String runOf(Path workspace) {
        if (!workspace.startsWith(root) || workspace.equals(root)) {
            return null;
        }
        return root.relativize(workspace).getName(0).toString();
    }

    /**
     * The job's variables as a run in {@code workspace} sees them: a value that names the tree or a path inside it
     * (alone or in a list such as PYTHONPATH), in either spelling, names the same place in the run's copy; PWD is the
     * run's folder.
     */
    public Map<String, String> env(Map<String, String> env, Path workspace) {
        Map<String, String> out = new LinkedHashMap<>(env);
        String run = runOf(workspace);
        if (run == null) {
            return out;
        }
        Path copy = root.resolve(run);
        out.replaceAll((name, value) -> value == null ? null : relocation.inValue(value, copy));
        out.put("PWD", workspace.toString());
        return out;
    }

    /** The command line as a run in {@code workspace} runs it: the tree's paths in it name the run's copy. */
    public List<String> argv(List<String> argv, Path workspace) {
        String run = runOf(workspace);
        if (run == null) {
            return argv;
        }
        Path copy = root.resolve(run);
        return argv.stream().map(a -> relocation.inText(a, copy)).toList();
    }

    /**
     * After a run: what it changed in its copy, written to the manifest in its phase folder. Null when it ran in the
     * working directory itself, or when its changes could not be read (the manifest then says why).
     */
    public WorkspaceChanges record(Path workspace, Path phaseDir) throws IOException {
        String run = runOf(workspace);
        if (run == null || !Files.isDirectory(workspace)) {
            return null;
        }
        long start = System.nanoTime();
        WorkspaceChanges changes;
        try {
            changes = changes(run);
        } catch (IOException e) {
            WorkspaceManifest.unread(workspace.toString(), root.toString(), tree.within(), e.getMessage())
                    .write(phaseDir.resolve(WorkspaceManifest.FILE));
            return null;
        }
        double compared = (System.nanoTime() - start) / 1e9;
        WorkspaceManifest.of(
                        workspace.toString(),
                        root.toString(),
                        tree.within(),
                        how(),
                        copySeconds.get(run),
                        compared,
                        changes)
                .write(phaseDir.resolve(WorkspaceManifest.FILE));
        return changes;
    }

    private WorkspaceChanges changes(String run) throws IOException {
        return WorkspaceChanges.between(WorkspaceSnapshot.read(statePath(run + ".start")), snapshot(root.resolve(run)));
    }

    private String how() {
        return (TreeCopy.gnuCp() ? "cp -a --reflink=auto" : "copied file by file")
                + (tree.within().isEmpty()
                        ? ""
                        : "; the tree copied: " + tree.real() + " (the working directory is " + tree.within()
                                + " in it)")
                + (shared.isEmpty()
                        ? ""
                        : "; shared (linked, not copied): "
                                + String.join(
                                        ", ",
                                        shared.stream()
                                                .map(p -> tree.real()
                                                        .relativize(p)
                                                        .toString())
                                                .sorted()
                                                .toList()));
    }

    /**
     * The working directory is given what the plain run changed in its copy: its new, changed and removed paths,
     * where the working directory still holds what it held when the gate started; the rest is left and listed in
     * {@link #WRITE_BACK_FILE}.
     *
     * @return what was done, for the console and the reasons; null when there was nothing to write back
     */
    public WriteBackReport writeBack(String run) throws IOException {
        Path copy = root.resolve(run);
        if (!isolation.isolate() || !Files.isDirectory(copy)) {
            return null;
        }
        WorkspaceChanges changes = changes(run);
        WorkspaceSnapshot now = snapshot(tree.real());
        WriteBack.Outcome outcome =
                new WriteBack(tree.real(), copy, List.of(copy), tree.real()).apply(changes, baseline(), now);
        WriteBackReport report = new WriteBackReport(run, tree.real().toString(), changes.bytesWritten(), outcome);
        report.write(runDir.resolve(WRITE_BACK_FILE));
        return report;
    }
}
