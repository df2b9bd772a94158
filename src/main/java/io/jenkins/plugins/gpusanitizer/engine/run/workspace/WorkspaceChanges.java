package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import io.jenkins.plugins.gpusanitizer.engine.run.workspace.WorkspaceSnapshot.PathState;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.WorkspaceSnapshot.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * What a run changed in its copy of the working directory: its copy as it ended against the same copy as it started
 * (both snapshots of one tree on one filesystem, so an untouched file matches to the nanosecond). Paths it created,
 * changed (content, mode or type: a folder that became a file) or removed, empty folders included. Paths the end
 * snapshot could not read are never counted as removed: they and what lay under them are left out.
 */
public final class WorkspaceChanges {
    /** How a path changed. */
    public enum Change {
        NEW,
        CHANGED,
        REMOVED
    }

    /**
     * One changed path, relative to the working directory.
     *
     * @param bytes  a file's size as the run left it; 0 for a folder, a link or a removed path
     * @param before the path's state as the copy started (null: it was not there)
     * @param after  its state as the run left it (null: removed)
     */
    public record Entry(Change change, String path, long bytes, PathState before, PathState after) {}

    private final List<Entry> entries;
    private final List<WorkspaceSnapshot.Skipped> unread;

    private WorkspaceChanges(List<Entry> entries, List<WorkspaceSnapshot.Skipped> unread) {
        this.entries = List.copyOf(entries);
        this.unread = List.copyOf(unread);
    }

    /** The changed paths, sorted by path (a folder before what it holds). */
    public List<Entry> entries() {
        return entries;
    }

    /** What the run's copy held at its end that could not be read: left out of the changes, said. */
    public List<WorkspaceSnapshot.Skipped> unread() {
        return unread;
    }

    /** The bytes of the files the run created or rewrote. */
    public long bytesWritten() {
        return entries.stream().mapToLong(Entry::bytes).sum();
    }

    /** The changes from {@code start} to {@code end}, two snapshots of one run's copy. */
    static WorkspaceChanges between(WorkspaceSnapshot start, WorkspaceSnapshot end) {
        TreeSet<String> paths = new TreeSet<>(start.entries().keySet());
        paths.addAll(end.entries().keySet());
        List<Entry> found = new ArrayList<>();
        for (String path : paths) {
            PathState before = start.get(path);
            PathState after = end.get(path);
            if (PathState.same(before, after)) {
                continue;
            }
            if (after == null && end.underSkipped(path)) {
                continue; // not readable at the end: unknown, never "removed"
            }
            long bytes = after != null && after.type() == Type.FILE ? after.size() : 0;
            Change change = before == null ? Change.NEW : after == null ? Change.REMOVED : Change.CHANGED;
            found.add(new Entry(change, path, bytes, before, after));
        }
        // what was unreadable in the original was never copied: only what the run's copy itself hid is news
        List<WorkspaceSnapshot.Skipped> unread = end.skipped().stream()
                .filter(s -> !start.underSkipped(s.path()))
                .toList();
        return new WorkspaceChanges(found, unread);
    }
}
