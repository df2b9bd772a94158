package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** What a copy of the working directory would hold: its bytes, and which top-level entries hold most. */
record WorkspaceSize(long bytes, Map<String, Long> byEntry) {
    /** The files of a snapshot of the tree (what a copy takes: the skipped and left-out paths are not in it). */
    static WorkspaceSize of(WorkspaceSnapshot tree) {
        Map<String, Long> by = new HashMap<>();
        long total = 0;
        for (Map.Entry<String, WorkspaceSnapshot.PathState> e : tree.entries().entrySet()) {
            if (e.getValue().type() == WorkspaceSnapshot.Type.FILE) {
                total += e.getValue().size();
                int slash = e.getKey().indexOf('/');
                by.merge(
                        slash < 0 ? e.getKey() : e.getKey().substring(0, slash),
                        e.getValue().size(),
                        Long::sum);
            }
        }
        return new WorkspaceSize(total, by);
    }

    /** The n largest top-level entries, e.g. "data 3100 MiB, .git 210 MiB". */
    String largest(int n) {
        return byEntry.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
                .limit(n)
                .map(e -> e.getKey() + " " + mib(e.getValue()) + " MiB")
                .collect(Collectors.joining(", "));
    }

    static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f", bytes / (1024.0 * 1024.0));
    }
}
