package io.jenkins.plugins.gpusanitizer.engine.run.lock;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jenkins.plugins.gpusanitizer.engine.report.OutputFile;
import io.jenkins.plugins.gpusanitizer.engine.report.Printable;
import io.jenkins.plugins.gpusanitizer.engine.run.ProgressLog;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The GPUs of a run, taken exclusively on this machine: one lock file per card in a lock folder, locked with the
 * operating system's file lock, so that parallel builds on one agent (several executors, {@code gpus} defaulting to
 * 0) wait for each other instead of sharing a card silently — a sanitizer run beside another job measures the wrong
 * memory curve. Beside each lock a holder file says whose it is. A card is locked by its UUID whatever spelling
 * selected it ({@link Card}), so {@code 0} and {@code GPU-<uuid of card 0>} exclude each other.
 *
 * <p>The OS drops the lock when the holding process dies, SIGKILL included, so a killed run never blocks the next
 * one; {@link #close()} releases it on every other path. Several cards are locked in sorted order, so two runs that
 * want overlapping sets cannot deadlock.
 *
 * <p>The OS lock (fcntl) belongs to the process, not to the channel, and closing <em>any</em> channel of the process
 * on that file drops it. A Jenkins agent runs many builds in one JVM, so a run there first claims the file within
 * the JVM ({@link #CLAIMED}) and opens a channel only once it has the claim: a waiting run that gives up can then
 * never free the GPU of the run it waited for.
 *
 * <p>Other users of the machine (issue #26): the folder is used only when it belongs to this user (not writable by
 * others without the sticky bit) or is a sticky folder of root (prepared by an admin for every user); any other
 * folder is bypassed for a per-user one, said in one line. A lock file is never opened through a link, must be a
 * regular file with one name, owned by this user in a folder of its own; an existing one is never chmod'ed. What is
 * read from the folder (the holder file) is escaped ({@link Printable}) and shown with its owner from the file
 * system, not from its content.
 */
public final class GpuLock implements AutoCloseable {
    static final String DIR_ENV = "GPU_SANITIZE_LOCK_DIR";
    static final Path DEFAULT_DIR = Path.of("/tmp/gpu-sanitize-locks");
    private static final long POLL_MS = 500;
    private static final long REMIND_MS = 60_000;
    /** A holder file larger than this is not read (anyone may write one in a shared folder). */
    private static final long HOLDER_MAX_BYTES = 16 * 1024;

    private static final ObjectMapper JSON =
            new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    /** The lock files a run of this JVM holds or is trying: at most one channel per file in the JVM. */
    private static final Set<Path> CLAIMED = ConcurrentHashMap.newKeySet();

    private static final int STICKY = 01000;
    private static final int WRITABLE_BY_OTHERS = 0022;

    /**
     * Who holds a GPU: enough for a person to find the build or the process. No command line: the file is readable
     * by every user of the machine, and a command carries tokens.
     *
     * @param build the Jenkins build ({@code BUILD_TAG}), null for the CLI
     */
    public record Holder(long pid, String host, String build, String runDirectory, String since) {
        public static Holder of(Map<String, String> env, Path runDirectory) {
            return new Holder(
                    ProcessHandle.current().pid(),
                    LocalHost.name(),
                    env.get("BUILD_TAG"),
                    runDirectory.toString(),
                    Instant.now().toString());
        }

        /** One line; every field escaped (a holder file may be anyone's). */
        String describe() {
            String who = build != null ? Printable.oneLine(build) + ", " : "";
            return who
                    + "gpu-sanitize pid " + pid + " on " + Printable.oneLine(host) + " since "
                    + Printable.oneLine(since)
                    + " (run directory " + Printable.oneLine(runDirectory) + ")";
        }
    }

    /**
     * A card as the run selected it ({@code name}: an index, a UUID) and what its lock is named after ({@code key}:
     * the card's UUID where known, so that every spelling of one card takes one lock).
     */
    public record Card(String name, String key) {
        public static List<Card> asGiven(List<String> gpus) {
            return gpus.stream().map(g -> new Card(g, g)).toList();
        }
    }

    /**
     * Who this process is, for the checks of the folder and the files: a seam for tests, which cannot chown.
     *
     * @param uid      this process's user
     * @param adminUid the user whose sticky folder every user may share (root)
     * @param fallback the per-user folder used instead of a folder that cannot be trusted
     */
    public record Identity(long uid, long adminUid, Path fallback) {
        public static Identity current(Map<String, String> env) {
            long uid = currentUid();
            Path fallback = Path.of("/tmp", "gpu-sanitize-locks-" + uid);
            String runtime = env.get("XDG_RUNTIME_DIR");
            if (runtime != null && !runtime.isBlank() && Path.of(runtime).isAbsolute()) {
                Path base = Path.of(runtime);
                try {
                    Map<String, Object> a = Files.readAttributes(base, "unix:uid,mode,isDirectory");
                    if (Boolean.TRUE.equals(a.get("isDirectory"))
                            && ((Number) a.get("uid")).longValue() == uid
                            && (((Integer) a.get("mode")) & WRITABLE_BY_OTHERS) == 0) {
                        fallback = base.resolve("gpu-sanitize-locks");
                    }
                } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
                    // no usable runtime folder: /tmp
                }
            }
            return new Identity(uid, 0, fallback);
        }

        private static long currentUid() {
            try {
                return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
            } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
                // no /proc: the owner of a file this process creates
            }
            try {
                Path probe = Files.createTempFile("gpu-sanitize-uid", ".tmp");
                try {
                    return ((Number) Files.getAttribute(probe, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
                } finally {
                    Files.deleteIfExists(probe);
                }
            } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
                return -1; // unknown: no folder is this user's, only root's sticky one or none
            }
        }
    }

    /** The GPUs could not be taken: the run does not start, and the report says why (never a pass). */
    public static final class NotTaken extends Exception {
        private static final long serialVersionUID = 1L;
        public final String code;

        NotTaken(String code, String message) {
            super(message);
            this.code = code;
        }
    }

    private final List<Held> held = new ArrayList<>();
    private final Path directory;

    private record Held(String gpu, Path lockFile, FileChannel channel, FileLock lock, Path holderFile) {}

    /** The folder and how it may be used. */
    private record Folder(Path path, boolean shared, long uid) {}

    private GpuLock(Path directory) {
        this.directory = directory;
    }

    /** No lock at all (--no-gpu-lock). */
    public static GpuLock none() {
        return new GpuLock(null);
    }

    /** The folder of the locks (its real path); null without a lock. */
    public Path directory() {
        return directory;
    }

    /** The GPUs held, as the run named them, in the order taken (sorted by lock). */
    public List<String> gpus() {
        return held.stream().map(Held::gpu).toList();
    }

    public static Path directory(Map<String, String> env) {
        String dir = env.get(DIR_ENV);
        return dir == null || dir.isBlank() ? DEFAULT_DIR : Path.of(dir);
    }

    /** {@link #take(Path, List, Holder, int, ProgressLog, Identity)} of the GPUs as named, as this user. */
    static GpuLock take(Path dir, List<String> gpus, Holder me, int timeoutSeconds, ProgressLog progress)
            throws NotTaken, InterruptedException {
        return take(dir, Card.asGiven(gpus), me, timeoutSeconds, progress, Identity.current(Map.of()));
    }

    /**
     * Takes every card of the list, waiting up to the timeout for each; says in the log when it waits, for whom,
     * and when it got them; says in one line when the folder could not be trusted and another was used.
     *
     * @throws NotTaken when the lock folder is unusable or a GPU stayed taken past the timeout
     * @throws InterruptedException when the run was aborted while waiting
     */
    public static GpuLock take(
            Path dir, List<Card> cards, Holder me, int timeoutSeconds, ProgressLog progress, Identity identity)
            throws NotTaken, InterruptedException {
        Folder folder = choose(dir, identity, progress);
        GpuLock lock = new GpuLock(folder.path());
        try {
            long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
            Map<String, String> byKey = new TreeMap<>();
            for (Card card : cards) {
                byKey.putIfAbsent(card.key(), card.name());
            }
            for (Map.Entry<String, String> card : byKey.entrySet()) {
                lock.held.add(takeOne(folder, card.getValue(), card.getKey(), me, deadline, timeoutSeconds, progress));
            }
            return lock;
        } catch (NotTaken | InterruptedException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    /**
     * The folder to lock in: the one asked for when it can be trusted, else this user's own (said in one line: it
     * does not exclude other users' runs). Created when missing, private to this user (rwx------); a folder shared by
     * every user is prepared by an admin (root, sticky: see docs/jenkins/execution.md).
     */
    private static Folder choose(Path dir, Identity identity, ProgressLog progress) throws NotTaken {
        String problem;
        try {
            Folder trusted = trusted(dir, identity);
            if (trusted != null) {
                return trusted;
            }
            problem = untrusted(dir, identity);
        } catch (IOException e) {
            throw new NotTaken("gpu-lock", "cannot use the GPU lock folder " + dir + ": " + why(e) + hint());
        }
        if (dir.equals(identity.fallback())) {
            throw new NotTaken("gpu-lock", "cannot use the GPU lock folder " + dir + ": it " + problem + hint());
        }
        Folder own;
        try {
            own = trusted(identity.fallback(), identity);
            if (own == null) {
                throw new NotTaken(
                        "gpu-lock",
                        "cannot use the GPU lock folder " + dir + " (it " + problem + ") nor " + identity.fallback()
                                + " (it " + untrusted(identity.fallback(), identity) + ")" + hint());
            }
        } catch (IOException e) {
            throw new NotTaken(
                    "gpu-lock", "cannot use the GPU lock folder " + identity.fallback() + ": " + why(e) + hint());
        }
        progress.say("GPU lock folder " + dir + " not used: it " + problem + "; locking in " + own.path()
                + " instead, which does not exclude other users' runs (for that an admin prepares a root-owned"
                + " sticky folder: " + DIR_ENV + ")");
        return own;
    }

    /** The folder when it can be used (created private when missing), null when it cannot be trusted. */
    private static Folder trusted(Path dir, Identity identity) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectories(
                        dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException e) {
                // made by someone else meanwhile, or a file: judged below
            } catch (UnsupportedOperationException e) {
                throw new IOException("no POSIX file permissions here");
            }
        }
        if (untrusted(dir, identity) != null) {
            return null;
        }
        Path real = dir.toRealPath();
        int mode = (Integer) Files.getAttribute(real, "unix:mode");
        return new Folder(real, (mode & WRITABLE_BY_OTHERS) != 0, identity.uid());
    }

    /** Why the folder cannot be trusted ("belongs to uid 1001 ..."), null when it can. */
    private static String untrusted(Path dir, Identity identity) throws IOException {
        Map<String, Object> link;
        try {
            link = Files.readAttributes(dir, "unix:uid,isSymbolicLink", LinkOption.NOFOLLOW_LINKS);
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            throw new IOException("no POSIX file attributes here");
        }
        long linkOwner = ((Number) link.get("uid")).longValue();
        if (Boolean.TRUE.equals(link.get("isSymbolicLink"))
                && linkOwner != identity.uid()
                && linkOwner != identity.adminUid()) {
            return "is a symbolic link of uid " + linkOwner;
        }
        Map<String, Object> a = Files.readAttributes(dir, "unix:uid,mode,isDirectory");
        if (!Boolean.TRUE.equals(a.get("isDirectory"))) {
            throw new IOException("not a folder");
        }
        long owner = ((Number) a.get("uid")).longValue();
        int mode = (Integer) a.get("mode");
        boolean sticky = (mode & STICKY) != 0;
        if (owner == identity.uid()) {
            return (mode & WRITABLE_BY_OTHERS) != 0 && !sticky
                    ? "is writable by other users without the sticky bit (they could delete lock files)"
                    : null;
        }
        if (owner == identity.adminUid()) {
            return sticky ? null : "belongs to uid " + owner + " and is not sticky (not prepared for every user)";
        }
        return "belongs to uid " + owner + ", another user";
    }

    private static Held takeOne(
            Folder folder, String gpu, String key, Holder me, long deadline, int timeoutSeconds, ProgressLog progress)
            throws NotTaken, InterruptedException {
        String name = "gpu-" + key.replaceAll("[^A-Za-z0-9._-]", "_");
        Path lockFile = folder.path().resolve(name + ".lock");
        Path holderFile = lockFile.resolveSibling(name + ".holder.json");
        long start = System.nanoTime();
        long nextWord = 0;
        while (true) {
            Held taken = tryTake(folder, gpu, lockFile, holderFile);
            if (taken != null) {
                writeHolder(holderFile, me);
                long waited = (System.nanoTime() - start) / 1_000_000_000L;
                if (nextWord > 0) {
                    progress.say("GPU " + gpu + " taken after " + waited + " s of waiting");
                }
                return taken;
            }
            long now = System.nanoTime();
            if (now >= deadline) {
                throw new NotTaken(
                        "gpu-lock-timeout",
                        "GPU " + gpu + " stayed in use by " + holder(holderFile, lockFile)
                                + " for the whole GPU lock timeout of " + timeoutSeconds + " s: no phase ran");
            }
            if (now >= nextWord) {
                progress.say("GPU " + gpu + " is in use by " + holder(holderFile, lockFile) + "; waiting (up to "
                        + (deadline - now + 999_999_999L) / 1_000_000_000L + " s more, " + lockFile + ")");
                nextWord = now + REMIND_MS * 1_000_000L;
            }
            Thread.sleep(POLL_MS);
        }
    }

    /**
     * The lock, or null while another run holds it: one of this JVM (the claim is taken) or another process (the
     * OS lock is taken; our channel is closed again, safe because this JVM holds no lock on the file).
     */
    private static Held tryTake(Folder folder, String gpu, Path lockFile, Path holderFile) throws NotTaken {
        if (!CLAIMED.add(lockFile)) {
            return null;
        }
        FileChannel channel = null;
        Held taken = null;
        try {
            channel = open(folder, lockFile);
            if (channel == null) {
                return null; // replaced while it was opened: next poll
            }
            FileLock lock = tryLock(channel);
            if (lock != null) {
                taken = new Held(gpu, lockFile, channel, lock, holderFile);
            }
            return taken;
        } catch (IOException e) {
            throw new NotTaken("gpu-lock", "cannot lock " + lockFile + ": " + why(e) + hint());
        } finally {
            if (taken == null) {
                closeQuietly(channel);
                CLAIMED.remove(lockFile);
            }
        }
    }

    /**
     * The lock file, opened for writing (an fcntl write lock needs it) and never through a link: a new one is
     * created with {@code O_EXCL}, rw------- in a folder of this user's; in a shared folder it is made rw-rw-rw- so
     * that other users' runs can lock it too — only this new file, which in a sticky folder no one else can replace,
     * never an existing one. An existing one must be a regular file with one name (no hard link to someone's file),
     * this user's in a folder of this user's, and still the same file once open. Null when it changed meanwhile.
     *
     * @throws IOException refusing a link, a non-regular file, a hard link or another user's file
     */
    private static FileChannel open(Folder folder, Path lockFile) throws IOException {
        Map<String, Object> before = attributes(lockFile);
        if (before == null) {
            try {
                FileChannel created = FileChannel.open(
                        lockFile,
                        Set.<OpenOption>of(
                                StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                if (folder.shared()) {
                    try {
                        // without following a link: the JDK opens it O_NOFOLLOW and fchmods it
                        Files.getFileAttributeView(lockFile, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                                .setPermissions(PosixFilePermissions.fromString("rw-rw-rw-"));
                    } catch (IOException | UnsupportedOperationException e) {
                        // other users wait for it only once they can open it: said by them as permission denied
                    }
                }
                return created;
            } catch (FileAlreadyExistsException e) {
                before = attributes(lockFile); // made meanwhile (or a link planted): judged below
                if (before == null) {
                    return null;
                }
            }
        }
        refuseUnlessPlainFile(folder, lockFile, before);
        FileChannel channel;
        try {
            channel =
                    FileChannel.open(lockFile, Set.<OpenOption>of(StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException e) {
            return null;
        } catch (FileSystemException e) {
            if (Files.isSymbolicLink(lockFile)) {
                throw new IOException("it is a symbolic link: refused (never followed; remove it)");
            }
            throw e;
        }
        Map<String, Object> after = attributes(lockFile);
        if (after == null
                || !after.get("ino").equals(before.get("ino"))
                || !after.get("dev").equals(before.get("dev"))) {
            closeQuietly(channel);
            return null;
        }
        return channel;
    }

    private static void refuseUnlessPlainFile(Folder folder, Path lockFile, Map<String, Object> a) throws IOException {
        if (Boolean.TRUE.equals(a.get("isSymbolicLink"))) {
            throw new IOException("it is a symbolic link: refused (never followed; remove it)");
        }
        if (!Boolean.TRUE.equals(a.get("isRegularFile"))) {
            throw new IOException("it is not a regular file: refused");
        }
        if (((Number) a.get("nlink")).intValue() != 1) {
            throw new IOException("it has " + a.get("nlink") + " names (a hard link to another file?): refused");
        }
        long owner = ((Number) a.get("uid")).longValue();
        if (!folder.shared() && owner != folder.uid()) {
            throw new IOException(
                    "it belongs to uid " + owner + ", not to this user, in a folder of this user's: refused");
        }
    }

    /** The file's own attributes (a link's, not its target's); null when there is none. */
    private static Map<String, Object> attributes(Path file) throws IOException {
        try {
            return Files.readAttributes(
                    file, "unix:ino,dev,nlink,uid,isSymbolicLink,isRegularFile", LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** Null when held elsewhere; overlapping only when another class loader of this JVM holds it. */
    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null;
        }
    }

    private static String why(Exception e) {
        return e instanceof AccessDeniedException
                ? "permission denied"
                : Printable.oneLine(String.valueOf(e.getMessage()));
    }

    /** Written as reports are (never through a link someone planted in the shared folder). */
    private static void writeHolder(Path holderFile, Holder me) {
        try {
            OutputFile.write(holderFile, out -> JSON.writeValue(out, me));
        } catch (IOException e) {
            // the holder file only informs whoever waits; the lock is what counts
        }
    }

    /**
     * Who holds the lock, in one line: what the holder file says (escaped; it may be anyone's, read without
     * following a link and only when small) and whose file it is by the file system, which its content cannot forge.
     */
    static String holder(Path holderFile, Path lockFile) {
        String owner = owner(holderFile);
        try {
            Map<String, Object> a = attributes(holderFile);
            if (a != null
                    && Boolean.TRUE.equals(a.get("isRegularFile"))
                    && Files.size(holderFile) <= HOLDER_MAX_BYTES) {
                try (InputStream in = Files.newInputStream(holderFile, LinkOption.NOFOLLOW_LINKS)) {
                    return JSON.readValue(in.readNBytes((int) HOLDER_MAX_BYTES), Holder.class)
                                    .describe()
                            + " [holder file of " + owner + "]";
                }
            }
        } catch (IOException | RuntimeException e) {
            // no holder file, or one that is not ours to read
        }
        return "another process (no readable " + holderFile.getFileName() + "; lock file of " + owner(lockFile) + ")";
    }

    /** "user NAME (uid N)" of the file itself, never of a link's target; "an unknown user" when it cannot be read. */
    private static String owner(Path file) {
        try {
            long uid = ((Number) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
            String name = Files.getOwner(file, LinkOption.NOFOLLOW_LINKS).getName();
            return "user " + Printable.oneLine(name) + " (uid " + uid + ")";
        } catch (IOException | RuntimeException e) {
            return "an unknown user";
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
            CLAIMED.remove(h.lockFile());
        }
        held.clear();
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            // nothing left to do: the OS drops the lock with the process at the latest
        }
    }
}
