package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

/**
 * Links in the copies' parent folder to what lies beside the tree, so that {@code ../datasets/coco128} read from a
 * copy leads where it did (Ultralytics' layout: the dataset beside the checkout). What the runs write there they share,
 * as they would without the gate. Not the tree itself (a copy reaching its original by name), nor a name a copy or the
 * gate's state takes; made once per run directory.
 */
final class BesideLinks {
    /** Most entries beside the tree that are linked: beyond, none is (a home folder, /tmp). */
    static final int MOST = 1000;

    private BesideLinks() {}

    /**
     * @param tree   the tree copied (its real path)
     * @param copies the copies' folder
     * @param runs   the runs' names (their copies' names)
     * @param state  the gate's state folder's name in {@code copies}
     * @return what could not be linked, a line each for the console
     */
    static List<String> link(Path tree, Path copies, List<String> runs, String state) throws IOException {
        Path parent = tree.getParent();
        Path done = copies.resolve(state).resolve("beside-linked");
        if (parent == null || Files.exists(done)) {
            return List.of();
        }
        List<Path> beside;
        try (var listing = Files.list(parent)) {
            beside = listing.limit(MOST + 1L).toList();
        } catch (IOException e) {
            return List.of("what lies beside " + tree + " cannot be listed (" + e.getMessage()
                    + "): ../ paths from a copy lead nowhere");
        }
        if (beside.size() > MOST) {
            return List.of(parent + " holds over " + MOST + " entries: none is linked beside the copies, ../ paths"
                    + " from a copy lead nowhere (give such paths absolutely)");
        }
        for (Path p : beside) {
            String name = String.valueOf(p.getFileName());
            boolean taken = runs.stream().anyMatch(run -> name.equals(run) || name.startsWith(run + "."));
            if (p.equals(tree)
                    || taken
                    || name.equals(state)
                    || Files.exists(copies.resolve(name), LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            Files.createSymbolicLink(copies.resolve(name), p);
        }
        Files.createDirectories(copies.resolve(state));
        Files.writeString(done, parent + "\n");
        return List.of();
    }
}
