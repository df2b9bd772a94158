package io.jenkins.plugins.gpusanitizer.engine.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The GPUs of a run, taken exclusively on this machine: one lock file per GPU index in a shared folder,
 * locked with the operating system's file lock, so that parallel builds on one agent (several executors,
 * {@code gpus} defaulting to 0) wait for each other instead of sharing a card silently — a sanitizer run
 * beside another job measures the wrong memory curve. Beside each lock a holder file says whose it is.
 *
 * <p>The OS drops the lock when the holding process dies, SIGKILL included, so a killed run never blocks
 * the next one; {@link #close()} releases it on every other path. Several GPUs are locked in sorted order,
 * so two runs that want overlapping sets cannot deadlock.
 */
final class GpuLock implements AutoCloseable {
    static final String DIR_ENV = "GPU_SANITIZE_LOCK_DIR";
    static final Path DEFAULT_DIR = Path.of("/tmp/gpu-sanitize-locks");
    private static final long POLL_MS = 500;
    private static final long REMIND_MS = 60_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Who holds a GPU: enough for a person to find the build or the process. */
    record Holder(long pid, String host, String build, String runDirectory, String since) {
        static Holder of(Map<String, String> env, Path runDirectory) {
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (IOException e) {
                host = "?";
            }
            return new Holder(
                    ProcessHandle.current().pid(),
                    host,
                    env.get("BUILD_TAG"),
                    runDirectory.toString(),
                    Instant.now().toString());
        }

        String describe() {
            return (build == null ? "" : build + ", ")
                    + "gpu-sanitize pid " + pid + " on " + host + " since " + since + " (run directory " + runDirectory
                    + ")";
        }
    }

    /** The GPUs could not be taken: the run does not start, and the report says why (never a pass). */
    static final class NotTaken extends Exception {
        private static final long serialVersionUID = 1L;
        final String code;

        NotTaken(String code, String message) {
            super(message);
            this.code = code;
        }
    }

    private final List<Held> held = new ArrayList<>();

    private record Held(FileChannel channel, FileLock lock, Path holderFile) {}

    private GpuLock() {}

    /** No lock at all (--no-gpu-lock). */
    static GpuLock none() {
        return new GpuLock();
    }

    static Path directory(Map<String, String> env) {
        String dir = env.get(DIR_ENV);
        return dir == null || dir.isBlank() ? DEFAULT_DIR : Path.of(dir);
    }

    /**
     * Takes every GPU of the list, waiting up to the timeout for each; says in the log when it waits, for
     * whom, and when it got them.
     *
     * @throws NotTaken when the lock folder is unusable or a GPU stayed taken past the timeout
     * @throws InterruptedException when the run was aborted while waiting
     */
    static GpuLock take(Path dir, List<String> gpus, Holder me, int timeoutSeconds, ProgressLog progress)
            throws NotTaken, InterruptedException {
        GpuLock lock = new GpuLock();
        try {
            prepare(dir);
            long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
            for (String gpu : new TreeSet<>(gpus)) {
                lock.held.add(takeOne(dir, gpu, me, deadline, timeoutSeconds, progress));
            }
            return lock;
        } catch (NotTaken | InterruptedException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    private static void prepare(Path dir) throws NotTaken {
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                // shared by every user who runs builds on this machine
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
            }
        } catch (IOException | UnsupportedOperationException e) {
            if (!Files.isDirectory(dir)) {
                throw new NotTaken(
                        "gpu-lock", "cannot create the GPU lock folder " + dir + ": " + e.getMessage() + hint());
            }
        }
    }

    private static Held takeOne(
            Path dir, String gpu, Holder me, long deadline, int timeoutSeconds, ProgressLog progress)
            throws NotTaken, InterruptedException {
        String name = "gpu-" + gpu.replaceAll("[^A-Za-z0-9._-]", "_");
        Path lockFile = dir.resolve(name + ".lock");
        Path holderFile = dir.resolve(name + ".holder.json");
        FileChannel channel;
        try {
            channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            try {
                Files.setPosixFilePermissions(lockFile, PosixFilePermissions.fromString("rw-rw-rw-"));
            } catch (IOException | UnsupportedOperationException e) {
                // someone else's file: locking it is all we need
            }
        } catch (IOException e) {
            throw new NotTaken("gpu-lock", "cannot open the GPU lock " + lockFile + ": " + e.getMessage() + hint());
        }
        long start = System.nanoTime();
        long nextWord = 0;
        try {
            while (true) {
                FileLock lock = tryLock(channel, lockFile);
                if (lock != null) {
                    writeHolder(holderFile, me);
                    long waited = (System.nanoTime() - start) / 1_000_000_000L;
                    if (nextWord > 0) {
                        progress.say("GPU " + gpu + " taken after " + waited + " s of waiting");
                    }
                    return new Held(channel, lock, holderFile);
                }
                long now = System.nanoTime();
                if (now >= deadline) {
                    throw new NotTaken(
                            "gpu-lock-timeout",
                            "GPU " + gpu + " stayed in use by " + holder(holderFile)
                                    + " for the whole GPU lock timeout of " + timeoutSeconds + " s: no phase ran");
                }
                if (now >= nextWord) {
                    progress.say("GPU " + gpu + " is in use by " + holder(holderFile) + "; waiting (up to "
                            + Math.max(0, (deadline - now) / 1_000_000_000L) + " s more, " + lockFile + ")");
                    nextWord = now + REMIND_MS * 1_000_000L;
                }
                Thread.sleep(POLL_MS);
            }
        } catch (NotTaken | InterruptedException | RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    /** The lock, or null when another process holds it (or another run in this JVM: Jenkins runs many builds in one agent). */
    private static FileLock tryLock(FileChannel channel, Path lockFile) throws NotTaken {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null;
        } catch (IOException e) {
            throw new NotTaken("gpu-lock", "cannot lock " + lockFile + ": " + e.getMessage() + hint());
        }
    }

    private static void writeHolder(Path holderFile, Holder me) {
        try {
            Path temp = holderFile.resolveSibling(holderFile.getFileName() + "." + me.pid() + ".tmp");
            JSON.writeValue(temp.toFile(), me);
            Files.move(temp, holderFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            // the holder file only informs whoever waits; the lock is what counts
        }
    }

    private static String holder(Path holderFile) {
        try {
            return JSON.readValue(holderFile.toFile(), Holder.class).describe();
        } catch (IOException e) {
            return "another process (no readable " + holderFile.getFileName() + ")";
        }
    }

    private static String hint() {
        return " (" + DIR_ENV + " moves the folder; --no-gpu-lock / gpuLock: false runs without it)";
    }

    @Override
    public void close() {
        for (Held h : held) {
            try {
                Files.deleteIfExists(h.holderFile());
            } catch (IOException e) {
                // a stale holder file is harmless: only the lock counts
            }
            try {
                h.lock().release();
            } catch (IOException e) {
                // closing the channel below releases it too
            }
            closeQuietly(h.channel());
        }
        held.clear();
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // nothing left to do: the OS drops the lock with the process at the latest
        }
    }
}
