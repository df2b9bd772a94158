package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What the write-back did, kept in the run directory ({@link RunWorkspaces#WRITE_BACK_FILE}) and said on the console:
 * the paths given the plain run's state, the conflicts left alone, what could not be written, and what changed in the
 * working directory meanwhile by another hand (kept).
 *
 * @param run          the run whose changes were written back
 * @param tree         the tree written to
 * @param bytesWritten the bytes of the run's new and changed files
 */
public record WriteBackReport(
        String run,
        String tree,
        long bytesWritten,
        List<String> written,
        List<WriteBack.Problem> conflicts,
        List<WriteBack.Problem> failed,
        List<String> others) {
    /** Paths a console line names before it says how many more. */
    static final int NAMED = 5;

    WriteBackReport(String run, String tree, long bytesWritten, WriteBack.Outcome outcome) {
        this(run, tree, bytesWritten, outcome.written(), outcome.conflicts(), outcome.failed(), outcome.others());
    }

    /** The file: counts, and the first {@link WorkspaceManifest#LISTED} paths of each list (it goes home with the build). */
    record Json(
            String run,
            String tree,
            long bytesWritten,
            int writtenCount,
            List<String> written,
            int conflictCount,
            List<WriteBack.Problem> conflicts,
            int failedCount,
            List<WriteBack.Problem> failed,
            int othersCount,
            List<String> others) {}

    void write(Path file) throws IOException {
        WorkspaceSnapshot.JSON
                .writerWithDefaultPrettyPrinter()
                .writeValue(
                        file.toFile(),
                        new Json(
                                run,
                                tree,
                                bytesWritten,
                                written.size(),
                                first(written),
                                conflicts.size(),
                                first(conflicts),
                                failed.size(),
                                first(failed),
                                others.size(),
                                first(others)));
    }

    private static <T> List<T> first(List<T> all) {
        return all.subList(0, Math.min(all.size(), WorkspaceManifest.LISTED));
    }

    /** The console's summary line. */
    public String summary() {
        return "the working directory now holds what the " + run + " run left: " + written.size()
                + " path(s) written back (" + WorkspaceSize.mib(bytesWritten) + " MiB)"
                + (conflicts.isEmpty() ? "" : ", " + conflicts.size() + " conflict(s) left alone")
                + (failed.isEmpty() ? "" : ", " + failed.size() + " path(s) not written")
                + " (" + RunWorkspaces.WRITE_BACK_FILE + ")";
    }

    /** One line naming the conflicts, or null when there were none. */
    public String conflictLine() {
        return conflicts.isEmpty()
                ? null
                : "the " + run + " run changed path(s) that also changed in the working directory " + tree
                        + " while the gate ran; left as the working directory has them: " + named(conflicts);
    }

    /** One line naming what could not be written back, or null. */
    public String failedLine() {
        return failed.isEmpty()
                ? null
                : "could not give the working directory " + tree + " what the " + run + " run left at " + named(failed);
    }

    /**
     * One line naming what changed in the working directory while the gate ran, not by the write-back, or null: kept;
     * a run that writes there through the workspace's absolute path in a file it reads is not isolated.
     */
    public String othersLine() {
        if (others.isEmpty()) {
            return null;
        }
        List<String> shown = new ArrayList<>(others.subList(0, Math.min(NAMED, others.size())));
        return others.size() + " path(s) changed in the working directory " + tree + " while the gate ran, not by"
                + " the write-back, kept: " + String.join(", ", shown)
                + (others.size() > NAMED ? " and " + (others.size() - NAMED) + " more" : "")
                + ". Another step's (a parallel branch), or a run writing through the workspace's absolute path"
                + " from a file it reads (a config file): give such paths relative to the working directory or"
                + " through $WORKSPACE, which each run sees as its copy";
    }

    private static String named(List<WriteBack.Problem> problems) {
        String shown = problems.stream()
                .limit(NAMED)
                .map(p -> p.path() + " (" + p.why() + ")")
                .collect(Collectors.joining(", "));
        return shown + (problems.size() > NAMED ? " and " + (problems.size() - NAMED) + " more" : "");
    }
}
