package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import java.util.ArrayDeque;
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
 *
 * <p>At most {@link #MAX_DEFECTS} distinct defects are kept. The cap never hides an unsuppressed
 * defect: once it is reached, a new defect is judged by the suppression rules at once. A suppressed
 * one is only counted; an unsuppressed one takes the place of a kept suppressed one (which is then
 * only counted), and when every kept defect is unsuppressed it is counted as an unsuppressed overflow,
 * which the gate judges like a defect of its tool.
 */
public final class DefectGrouper implements Consumer<SanitizerRecord> {
    static final int MAX_EXAMPLES = 5;
    static final int MAX_STACK = 40;
    /** Beyond this many distinct defects, new ones are judged but only counted (see the class comment). */
    public static final int MAX_DEFECTS = 2000;
    /** Decisions remembered for defects beyond the cap, so a flood of one of them is judged once. */
    private static final int MAX_REMEMBERED = 4096;

    private final FrameClassifier frames;
    private final List<SuppressionRule> rules;
    private final int maxDefects;
    private final Map<String, Group> groups = new LinkedHashMap<>();
    private long records;
    private long overflowRecords;
    private long overflowUnsuppressedRecords;
    /** Set once the cap is first reached: kept defects the rules suppress, which may give way. */
    private ArrayDeque<String> evictable;
    /** The kept defects, for rules that look at the rest of the run (follow-on API errors). */
    private List<Defect> context;

    private final Map<String, Boolean> overflowSuppressed = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > MAX_REMEMBERED;
        }
    };

    /** A grouper without suppression rules: beyond the cap every new defect counts as unsuppressed. */
    public DefectGrouper(FrameClassifier frames) {
        this(frames, List.of());
    }

    /** @param rules the run's suppression rules, used to judge defects beyond the cap */
    public DefectGrouper(FrameClassifier frames, List<SuppressionRule> rules) {
        this(frames, rules, MAX_DEFECTS);
    }

    DefectGrouper(FrameClassifier frames, List<SuppressionRule> rules, int maxDefects) {
        this.frames = frames;
        this.rules = List.copyOf(rules);
        this.maxDefects = maxDefects;
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
            if (groups.size() >= maxDefects) {
                overflow(key, r, host);
                return;
            }
            g = newGroup(key, r, host);
            groups.put(key, g);
        }
        g.add(r);
    }

    private Group newGroup(String key, SanitizerRecord r, SourceLocation host) {
        return new Group(Fingerprint.hash(key), r, host, frames.launchingVendorModule(r), frames.launcher(r));
    }

    /** A record of a defect that is not kept while the cap is full. */
    private void overflow(String key, SanitizerRecord r, SourceLocation host) {
        if (evictable == null) {
            evictable = new ArrayDeque<>();
            context = new ArrayList<>(groups.size() + 16);
            for (Group kept : groups.values()) {
                context.add(kept.toDefect());
            }
            int i = 0;
            for (String k : groups.keySet()) {
                if (suppressed(context.get(i++))) {
                    evictable.add(k);
                }
            }
        }
        Boolean known = overflowSuppressed.get(key);
        Group candidate = null;
        if (known == null) {
            candidate = newGroup(key, r, host);
            candidate.add(r);
            known = suppressed(candidate.toDefect());
            overflowSuppressed.put(key, known);
        }
        if (known) {
            overflowRecords++;
            return;
        }
        String out = evictable.poll();
        if (out == null) {
            overflowRecords++;
            overflowUnsuppressedRecords++;
            return;
        }
        // an unsuppressed defect takes the place of a suppressed one: that one is only counted from now on
        Group gone = groups.remove(out);
        overflowRecords += gone.count;
        overflowSuppressed.put(out, true);
        overflowSuppressed.remove(key);
        if (candidate == null) {
            candidate = newGroup(key, r, host);
            candidate.add(r);
        }
        groups.put(key, candidate);
        context.add(candidate.toDefect());
    }

    private boolean suppressed(Defect d) {
        for (SuppressionRule rule : rules) {
            if (rule.matches(d, context)) {
                return true;
            }
        }
        return false;
    }

    public long records() {
        return records;
    }

    /** Records whose defect could not be kept because {@link #MAX_DEFECTS} distinct ones were already held. */
    public long overflowRecords() {
        return overflowRecords;
    }

    /** Of {@link #overflowRecords}, those of defects no suppression rule covers: the gate must judge them. */
    public long overflowUnsuppressedRecords() {
        return overflowUnsuppressedRecords;
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
