package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Records finished and not yet given to their sinks. The state machine queues them while it reads a
 * chunk and they are delivered after it ({@link #deliver}): out of the line loop, so that the JIT
 * compiles the loop without the sinks (a compile of both took a second).
 */
final class FinishedRecords {
    private SanitizerRecord[] records = new SanitizerRecord[64];

    @SuppressWarnings("unchecked")
    private Consumer<SanitizerRecord>[] sinks = new Consumer[64];

    private int count;

    void add(SanitizerRecord r, Consumer<SanitizerRecord> sink) {
        if (count == records.length) {
            records = Arrays.copyOf(records, 2 * count);
            sinks = Arrays.copyOf(sinks, 2 * count);
        }
        records[count] = r;
        sinks[count++] = sink;
    }

    /** Gives the records queued since the last call to their sinks, in order. */
    void deliver() {
        for (int i = 0; i < count; i++) {
            SanitizerRecord r = records[i];
            Consumer<SanitizerRecord> sink = sinks[i];
            records[i] = null;
            sinks[i] = null;
            sink.accept(r);
        }
        count = 0;
    }
}
