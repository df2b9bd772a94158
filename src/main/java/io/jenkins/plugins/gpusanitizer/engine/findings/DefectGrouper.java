package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Groups records into defects as they stream in: memory grows with the number of distinct defects,
 * not with the number of records (one bad launch prints one record per thread).
 */
public final class DefectGrouper implements Consumer<SanitizerRecord> {
    static final int MAX_EXAMPLES = 5;
    static final int MAX_STACK = 40;
    /** Beyond this many distinct defects, new ones are only counted: a flood of distinct keys is itself a finding. */
    public static final int MAX_DEFECTS = 2000;

    private final FrameClassifier frames;
    private final Map<String, Group> groups = new LinkedHashMap<>();
    private long records;
    private long overflowRecords;

    public DefectGrouper(FrameClassifier frames) {
        this.frames = frames;
    }

    @Override
    public void accept(SanitizerRecord r) {
        records++;
        String simple = KernelNames.simple(r.kernel());
        SourceLocation host = frames.firstUserFrame(r, simple);
        // the map is keyed by the fingerprint's input; the hash is computed once per distinct defect
        String key = Fingerprint.key(r.tool(), r.kind(), r.message(), simple, r.pc(), r.deviceLocation(), host);
        Group g = groups.get(key);
        if (g == null) {
            if (groups.size() >= MAX_DEFECTS) {
                overflowRecords++;
                return;
            }
            g = new Group(Fingerprint.hash(key), r, host, frames.launchingVendorModule(r), frames.launcher(r));
            groups.put(key, g);
        }
        g.add(r);
    }

    public long records() {
        return records;
    }

    /** Records whose defect could not be kept because {@link #MAX_DEFECTS} distinct ones were already held. */
    public long overflowRecords() {
        return overflowRecords;
    }

    public List<Defect> defects() {
        List<Defect> out = new ArrayList<>(groups.size());
        for (Group g : groups.values()) {
            out.add(g.toDefect());
        }
        return out;
    }

    private static final class Group {
        final String id;
        final SanitizerRecord first;
        final SourceLocation host;
        final String vendor;
        final String launcher;
        final Set<String> examples = new LinkedHashSet<>();
        long count;

        Group(String id, SanitizerRecord first, SourceLocation host, String vendor, String launcher) {
            this.id = id;
            this.launcher = launcher;
            this.first = first;
            this.host = host;
            this.vendor = vendor;
        }

        void add(SanitizerRecord r) {
            count++;
            if (examples.size() < MAX_EXAMPLES && (r.thread() != null || r.block() != null)) {
                examples.add("thread " + (r.thread() == null ? "?" : r.thread()) + " block "
                        + (r.block() == null ? "?" : r.block()));
            }
        }

        Defect toDefect() {
            var stack = first.hostFrames().size() > MAX_STACK
                    ? first.hostFrames().subList(0, MAX_STACK)
                    : first.hostFrames();
            SourceLocation device = first.deviceLocation();
            if (device != null && device.function() == null && first.kernel() != null) {
                device = SourceLocation.of(device.file(), device.line(), KernelNames.simple(first.kernel()));
            }
            return new Defect(
                    id,
                    first.tool(),
                    first.kind(),
                    DeviceAsserts.message(first),
                    first.kernel(),
                    device,
                    host,
                    count,
                    List.copyOf(examples),
                    first.detail(),
                    stack,
                    vendor,
                    launcher,
                    first.severityError(),
                    null);
        }
    }
}
