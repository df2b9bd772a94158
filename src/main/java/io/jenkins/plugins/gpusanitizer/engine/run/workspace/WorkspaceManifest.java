package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A run's workspace manifest ({@link #FILE} in its phase folder), as the report reads it: the copy the run worked in,
 * where the copies lie, and how much it changed there. The file itself ({@link Json}) adds how the copy was made and
 * what it cost, and every path the run created, changed or removed. Records from before the JSON manifest hold
 * {@link #LEGACY_FILE}, still read.
 *
 * @param workspace the run's working directory in its copy, as the machine that ran it spells it
 * @param file      the manifest, relative to the run directory
 * @param copies    the folder of the runs' copies, or null (a legacy manifest: its workspace's parent)
 * @param within    the working directory's path under each copy ("" when the copy is of the working directory)
 */
public record WorkspaceManifest(
        String workspace, Long changed, Long bytesWritten, String file, String copies, String within) {
    /** The manifest's name in a phase folder. */
    public static final String FILE = "workspace.json";

    /** The text manifest of records made before {@link #FILE}. */
    public static final String LEGACY_FILE = "workspace.txt";

    /** The entries a manifest lists; the count of the rest is said. */
    static final int LISTED = 2000;

    /** One changed path as the manifest lists it. */
    public record Listed(String change, String path, long bytes) {}

    /**
     * The manifest file.
     *
     * @param error why the run's changes could not be read (then no changes are given)
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Json(
            String workspace,
            String copies,
            String within,
            String how,
            Double copySeconds,
            Double comparedSeconds,
            Long changed,
            Long bytesWritten,
            List<Listed> entries,
            Long more,
            List<WorkspaceSnapshot.Skipped> unread,
            String error) {
        void write(Path file) throws IOException {
            WorkspaceSnapshot.JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), this);
        }
    }

    static Json of(
            String workspace,
            String copies,
            String within,
            String how,
            Double copySeconds,
            double comparedSeconds,
            WorkspaceChanges changes) {
        List<Listed> listed = changes.entries().stream()
                .limit(LISTED)
                .map(e -> new Listed(e.change().name().toLowerCase(Locale.ROOT), e.path(), e.bytes()))
                .toList();
        long more = Math.max(0, changes.entries().size() - LISTED);
        return new Json(
                workspace,
                copies,
                within,
                how,
                copySeconds == null ? null : round(copySeconds),
                round(comparedSeconds),
                (long) changes.entries().size(),
                changes.bytesWritten(),
                listed,
                more == 0 ? null : more,
                changes.unread().isEmpty() ? null : changes.unread(),
                null);
    }

    /** A manifest for a run whose changes could not be read: its workspace and why. */
    static Json unread(String workspace, String copies, String within, String why) {
        return new Json(workspace, copies, within, null, null, null, null, null, null, null, null, why);
    }

    private static double round(double seconds) {
        return Math.round(seconds * 1000) / 1000.0;
    }

    /** The manifest in a phase folder, or null when the run had none (isolation off, older records). */
    public static WorkspaceManifest read(Path phaseDir, Path runRoot) {
        Path file = phaseDir.resolve(FILE);
        if (Files.isRegularFile(file)) {
            try {
                Json json = WorkspaceSnapshot.JSON.readValue(file.toFile(), Json.class);
                return new WorkspaceManifest(
                        json.workspace(),
                        json.changed(),
                        json.bytesWritten(),
                        runRoot.relativize(file).toString(),
                        json.copies(),
                        json.within() == null ? "" : json.within());
            } catch (IOException e) {
                // an unreadable manifest: the run is shown without it
                return new WorkspaceManifest(
                        null, null, null, runRoot.relativize(file).toString(), null, "");
            }
        }
        return readLegacy(phaseDir.resolve(LEGACY_FILE), runRoot);
    }

    private static final String WORKSPACE = "workspace: ";
    private static final Pattern CHANGED = Pattern.compile("changed: (\\d+) path\\(s\\), (\\d+) bytes written");

    private static WorkspaceManifest readLegacy(Path file, Path runRoot) {
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
                workspace, changed, bytes, runRoot.relativize(file).toString(), null, "");
    }

    /**
     * The folder of the runs' copies as {@link io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths} takes it:
     * {@code COPIES}, or {@code COPIES/* /WITHIN} when the working directory lies under each copy; null when the run
     * worked in the working directory itself.
     */
    public String copiesPattern(String workDirectory) {
        String folder = copies;
        if (folder == null) {
            // a string, not a Path: the manifest holds the path of the machine that ran the job
            int end = workspace == null ? -1 : Math.max(workspace.lastIndexOf('/'), workspace.lastIndexOf('\\'));
            folder = end > 0 && !workspace.equals(workDirectory) ? workspace.substring(0, end) : null;
        }
        if (folder == null || workspace == null || workspace.equals(workDirectory)) {
            return null;
        }
        return within == null || within.isEmpty() ? folder : folder + "/*/" + within;
    }
}
