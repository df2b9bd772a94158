package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The runs' copies of the working directory ({@code RUN_DIR/workspaces}) deleted once the run has ended, for the CLI:
 * a Jenkins agent deletes the whole run folder, but a CLI run directory is kept, and three copies of a large working
 * directory would stay in it (and in every later one). What each run changed stays listed in its {@code
 * workspace.json}; the plain run's changes are in the working directory.
 */
public final class DiscardedCopies {
    private DiscardedCopies() {}

    /** Deletes {@code runDir/workspaces} ({@link TreeDeletion}); null when there is none. */
    public static TreeDeletion.Outcome discard(Path runDir) {
        return TreeDeletion.delete(runDir.resolve(RunWorkspaces.FOLDER));
    }

    /** One console line on {@code folder}'s deletion. */
    public static String summary(TreeDeletion.Outcome outcome, Path folder) {
        String deleted = String.format(
                Locale.ROOT,
                "the runs' copies of the working directory deleted: %s (%d file(s), %.1f MiB; --keep-workspaces keeps"
                        + " them)",
                folder,
                outcome.files(),
                outcome.bytes() / (1024.0 * 1024.0));
        return outcome.failed().isEmpty()
                ? deleted
                : deleted + "; not deleted: " + String.join(", ", outcome.failed())
                        + (outcome.failed().size() >= TreeDeletion.MAX_NAMED ? ", ..." : "");
    }
}
