package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.run.workspace.WorkspaceChanges;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A run's workspace manifest ({@link WorkspaceChanges#MANIFEST}) read back: the copy it ran in and how much it
 * changed there.
 *
 * @param file the manifest, relative to the run directory
 */
record WorkspaceManifest(String workspace, Long changed, Long bytesWritten, String file) {
    private static final Pattern CHANGED = Pattern.compile("changed: (\\d+) path\\(s\\), (\\d+) bytes written");

    /** The manifest in a phase folder, or null when the run had none (isolation off, older records). */
    static WorkspaceManifest read(Path phaseDir, Path runRoot) {
        Path file = phaseDir.resolve(WorkspaceChanges.MANIFEST);
        if (!Files.isRegularFile(file)) {
            return null;
        }
        String workspace = null;
        Long changed = null;
        Long bytes = null;
        try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
            for (String line : (Iterable<String>) lines.limit(3)::iterator) {
                if (line.startsWith("workspace: ")) {
                    workspace = line.substring("workspace: ".length());
                }
                Matcher m = CHANGED.matcher(line);
                if (m.matches()) {
                    changed = Long.parseLong(m.group(1));
                    bytes = Long.parseLong(m.group(2));
                }
            }
        } catch (IOException | UncheckedIOException | NumberFormatException e) {
            // an unreadable manifest: the run is shown without it
        }
        return new WorkspaceManifest(
                workspace, changed, bytes, runRoot.relativize(file).toString());
    }
}
