package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** What a copy of the working directory would hold: its bytes, and which top-level entries hold most. */
record WorkspaceSize(long bytes, Map<String, Long> byEntry) {
    static WorkspaceSize of(Path root, Set<Path> ignored) throws IOException {
        Map<String, Long> by = new HashMap<>();
        long[] total = {0};
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                return ignored.contains(dir) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile() && !ignored.contains(file)) {
                    total[0] += attrs.size();
                    by.merge(root.relativize(file).getName(0).toString(), attrs.size(), Long::sum);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE;
            }
        });
        return new WorkspaceSize(total[0], by);
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
