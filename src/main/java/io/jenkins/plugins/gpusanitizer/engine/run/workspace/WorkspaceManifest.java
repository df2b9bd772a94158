package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A run's workspace manifest ({@link #FILE} in its phase folder): the copy it ran in, how that copy was made and what
 * it cost, then every path the run created, rewrote or removed there. Written by {@link WorkspaceChanges} after the
 * run, read back here for the report; the one place that knows the file's lines.
 *
 * @param file the manifest, relative to the run directory
 */
public record WorkspaceManifest(String workspace, Long changed, Long bytesWritten, String file) {
    /** The manifest's name in a phase folder. */
    public static final String FILE = "workspace.txt";

    private static final String WORKSPACE = "workspace: ";
    private static final String HOW = "how: ";
    private static final Pattern CHANGED = Pattern.compile("changed: (\\d+) path\\(s\\), (\\d+) bytes written");

    /** The manifest's text: its head, then one line per change (bounded). */
    static String text(String workspace, String how, WorkspaceChanges changes, int listed) {
        StringBuilder text = new StringBuilder(WORKSPACE).append(workspace).append('\n');
        text.append(HOW).append(how).append('\n');
        text.append("changed: ")
                .append(changes.entries().size())
                .append(" path(s), ")
                .append(changes.bytesWritten())
                .append(" bytes written\n");
        changes.entries().stream()
                .limit(listed)
                .forEach(e -> text.append(e.change().name().toLowerCase(Locale.ROOT))
                        .append(' ')
                        .append(e.bytes())
                        .append(' ')
                        .append(e.path())
                        .append('\n'));
        if (changes.entries().size() > listed) {
            text.append("... and ").append(changes.entries().size() - listed).append(" more\n");
        }
        return text.toString();
    }

    /** A manifest for a run whose changes could not be read: its workspace and why. */
    static String unread(String workspace, String why) {
        return WORKSPACE + workspace + "\nchanges not read: " + why + "\n";
    }

    /** The manifest in a phase folder, or null when the run had none (isolation off, older records). */
    public static WorkspaceManifest read(Path phaseDir, Path runRoot) {
        Path file = phaseDir.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return null;
        }
        String workspace = null;
        Long changed = null;
        Long bytes = null;
        try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
            for (String line : (Iterable<String>) lines.limit(3)::iterator) {
                if (line.startsWith(WORKSPACE)) {
                    workspace = line.substring(WORKSPACE.length());
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
