package io.jenkins.plugins.gpusanitizer.testing;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Waits for files a process writes, woken by the file system's own events (inotify on Linux), not by a
 * sleep: on a loaded machine a sleep orders nothing, an event does.
 */
public final class FileWait {
    private FileWait() {}

    /** Returns once every file exists, or after {@code limit} (the caller asserts what it needs). */
    public static boolean all(Duration limit, Path... files) throws IOException, InterruptedException {
        List<Path> wanted = List.of(files);
        Path folder = wanted.get(0).getParent();
        Files.createDirectories(folder);
        long deadline = System.nanoTime() + limit.toNanos();
        try (WatchService watch = FileSystems.getDefault().newWatchService()) {
            folder.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
            while (!wanted.stream().allMatch(Files::exists)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                var key = watch.poll(left, TimeUnit.NANOSECONDS);
                if (key != null) {
                    key.pollEvents();
                    key.reset();
                }
            }
            return true;
        }
    }

    /**
     * Reads the file as it is now and again at each change of it, until {@code enough} takes what it read ("" while the
     * file is missing); false when {@code limit} passed first.
     */
    public static boolean changes(Path file, Duration limit, Predicate<String> enough)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        Files.createDirectories(file.getParent());
        try (WatchService watch = FileSystems.getDefault().newWatchService()) {
            file.getParent()
                    .register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
            while (true) {
                String text = Files.isRegularFile(file) ? Files.readString(file).strip() : "";
                if (enough.test(text)) {
                    return true;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                var key = watch.poll(left, TimeUnit.NANOSECONDS);
                if (key != null) {
                    key.pollEvents();
                    key.reset();
                }
            }
        }
    }

    /** The file's content once it is not empty (a process creates, then writes it), or "" after {@code limit}. */
    public static String content(Path file, Duration limit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        Files.createDirectories(file.getParent());
        try (WatchService watch = FileSystems.getDefault().newWatchService()) {
            file.getParent()
                    .register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
            while (true) {
                String text = Files.isRegularFile(file) ? Files.readString(file).strip() : "";
                long left = deadline - System.nanoTime();
                if (!text.isEmpty() || left <= 0) {
                    return text;
                }
                var key = watch.poll(left, TimeUnit.NANOSECONDS);
                if (key != null) {
                    key.pollEvents();
                    key.reset();
                }
            }
        }
    }

    /** Returns once the existing file holds {@code text} (a process appends to it), or false after {@code limit}. */
    public static boolean containing(Path file, String text, Duration limit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        try (WatchService watch = FileSystems.getDefault().newWatchService()) {
            file.getParent()
                    .register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
            while (!(Files.isRegularFile(file) && Files.readString(file).contains(text))) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                var key = watch.poll(left, TimeUnit.NANOSECONDS);
                if (key != null) {
                    key.pollEvents();
                    key.reset();
                }
            }
            return true;
        }
    }
}
