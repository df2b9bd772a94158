package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The tree each run gets a copy of, and the working directory's place in it. The Jenkins workspace when the working
 * directory lies inside it (a {@code dir('training')} block writing {@code ../artifacts}), else the working directory.
 *
 * @param work    the working directory, its real path
 * @param logical the tree as the job's variables spell it ({@code $WORKSPACE}, through a symbolic link
 *                {@code /var/lib/jenkins -> /data/jenkins})
 * @param real    the tree's real path
 * @param within  the working directory's path under the tree ("" when it is the tree)
 */
record WorkTree(Path work, Path logical, Path real, String within) {
    static WorkTree of(Path workDir, String workspace) throws IOException {
        Path workLogical = workDir.toAbsolutePath().normalize();
        Path workReal = workLogical.toRealPath();
        if (workspace != null && !workspace.isBlank()) {
            Path wsLogical = Path.of(workspace).toAbsolutePath().normalize();
            if (Files.isDirectory(wsLogical)) {
                Path wsReal = wsLogical.toRealPath();
                if (workReal.startsWith(wsReal)) {
                    return new WorkTree(
                            workReal,
                            wsLogical,
                            wsReal,
                            wsReal.relativize(workReal).toString());
                }
            }
        }
        return new WorkTree(workReal, workLogical, workReal, "");
    }

    /** The tree's spellings a path may start with, longest first. */
    List<Path> spellings() {
        List<Path> all = new ArrayList<>(List.of(real));
        if (!logical.equals(real)) {
            all.add(logical);
        }
        all.sort(Comparator.comparingInt((Path p) -> p.toString().length()).reversed());
        return all;
    }
}
