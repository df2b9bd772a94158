package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.Consumer;

/**
 * The chunks of a log, in order. A log larger than its first chunk is read ahead on a second thread
 * when there is a second core: reading, finding line ends and recognising frame lines there, the
 * parser's state machine on the caller's thread, so both cores work. Memory stays bounded: a few
 * chunks circulate between the two threads and are reused.
 */
final class ChunkReader implements AutoCloseable {
    static final int CHUNK = 1024 * 1024;
    /** Chunks in flight: one parsed, one read, one waiting. */
    private static final int POOL = 3;

    private static final LineChunk FAILED = new LineChunk(0);

    private final LineChunker chunker;
    private final Consumer<LineChunk> prepare;
    private final boolean readAhead;
    private LineChunk current;
    private boolean first = true;
    private Thread reader;
    private BlockingQueue<LineChunk> free;
    private BlockingQueue<LineChunk> full;
    private volatile Throwable failure;

    /** @param prepare what is done to each chunk after it is cut, on the thread that reads it */
    ChunkReader(LineChunker chunker, Consumer<LineChunk> prepare) {
        this(chunker, prepare, Runtime.getRuntime().availableProcessors() > 1);
    }

    /** @param readAhead whether a log longer than one chunk is read on a second thread */
    ChunkReader(LineChunker chunker, Consumer<LineChunk> prepare, boolean readAhead) {
        this.chunker = chunker;
        this.prepare = prepare;
        this.readAhead = readAhead;
    }

    private void fill(LineChunk c) throws IOException {
        chunker.fill(c);
        prepare.accept(c);
    }

    /** The next chunk, or null after the last; the chunk returned before is no longer valid. */
    LineChunk next() throws IOException {
        if (first) {
            first = false;
            // small (a line's cap, twice, ~128 KiB), so that the many small logs parse without allocating much
            current = new LineChunk(chunker.minCapacity());
            fill(current);
            if (!current.last && readAhead) {
                startReader();
            }
            return current;
        }
        if (current == null || current.last) {
            return null;
        }
        if (reader == null) {
            if (current.bytes.length < CHUNK) {
                current = new LineChunk(Math.max(CHUNK, chunker.minCapacity()));
            }
            fill(current);
            return current;
        }
        if (current.bytes.length >= CHUNK) {
            free.add(current);
        }
        LineChunk c;
        try {
            c = full.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            current = null;
            throw new InterruptedIOException("interrupted while reading the log");
        }
        if (c == FAILED) {
            current = null;
            throw rethrow(failure);
        }
        current = c;
        return c;
    }

    private void startReader() {
        free = new ArrayBlockingQueue<>(POOL);
        full = new ArrayBlockingQueue<>(POOL + 1);
        for (int i = 0; i < POOL; i++) {
            free.add(new LineChunk(Math.max(CHUNK, chunker.minCapacity())));
        }
        reader = new Thread(this::readAll, "sanitizer log reader");
        reader.setDaemon(true);
        reader.start();
    }

    private void readAll() {
        try {
            while (true) {
                LineChunk c = free.take();
                fill(c);
                full.put(c);
                if (c.last) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            // closed by the parser: nothing more is wanted
        } catch (Throwable t) {
            // whatever failed is the parser's to throw, on its own thread
            failure = t;
            // always room: full holds POOL + 1 and only the POOL chunks circulate, so add never throws here
            full.add(FAILED);
        }
    }

    private static IOException rethrow(Throwable t) {
        if (t instanceof IOException io) {
            return io;
        }
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IOException(t);
    }

    /** Stops the reader (after a failure of the parser) and waits for it: the stream is closed after this. */
    @Override
    public void close() {
        Thread t = reader;
        if (t == null) {
            return;
        }
        t.interrupt();
        boolean interrupted = false;
        while (t.isAlive()) {
            try {
                t.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
