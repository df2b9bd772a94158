package io.jenkins.plugins.gpusanitizer.engine.probe;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reduces the probe logs to evidence: the failing operators (blocking phase) and the allocation sites
 * of live GPU memory (regression phase). Sites are compared inside the memory curve's judged window
 * (its last sample there, or the out-of-memory, against its first), placed by the wall clock; without
 * a placed window, the end against the first sample after warm-up (a quarter of the sampled span, at
 * most 30 s). A site is blamed for growth only when the curve grows or the job ran out of memory.
 */
public final class ProbeEvidence {
    static final int TOP_SITES = 10;
    static final int CHART_SITES = 5;
    static final int MAX_POINTS = 400;
    static final double MAX_WARMUP_SECONDS = 30;
    /** Growth of the allocator's live bytes after warm-up that counts as growing: 16 MiB and 10%. */
    static final long GROWTH_BYTES = 16L << 20;
    /** How far past the curve's last sample above idle a probe sample still counts as inside it. */
    static final double END_SLACK_SECONDS = 1.0;
    /** The probe's name for an allocation whose stack has no Python frame (a C++/library allocation). */
    public static final String NO_PYTHON_FRAME = "<no Python frame recorded>";

    private ProbeEvidence() {}

    public static ProbeFindings of(List<ProbeLog> logs) {
        return of(logs, MemoryVerdict.NONE);
    }

    /** @param verdict the regression run's memory curve, which the allocation sites must agree with */
    public static ProbeFindings of(List<ProbeLog> logs, MemoryVerdict verdict) {
        return of(logs, verdict, WorkPaths.UNKNOWN);
    }

    /** @param paths names the job's files in the evidence's sentences by their path under the working directory */
    public static ProbeFindings of(List<ProbeLog> logs, MemoryVerdict verdict, WorkPaths paths) {
        if (logs.isEmpty()) {
            return ProbeFindings.NONE;
        }
        List<ProbeFindings.OperatorEvidence> operators = new ArrayList<>();
        List<ProbeFindings.PhaseStatus> phases = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        ProbeFindings.AllocationGrowth allocations = null;
        for (ProbeLog log : logs) {
            phases.add(status(log));
            Set<String> seen = new HashSet<>();
            for (ProbeLog.OpFailure f : log.failures()) {
                String key = f.op() + "|"
                        + (f.site() == null
                                ? ""
                                : f.site().file() + ":" + f.site().line());
                if (seen.add(key)) {
                    operators.add(new ProbeFindings.OperatorEvidence(log.phase(), f, operatorSummary(f, paths)));
                }
            }
            ProbeFindings.AllocationGrowth a = allocations(log, verdict, paths);
            if (a != null && (allocations == null || a.oom() != null && allocations.oom() == null)) {
                allocations = a;
            }
            if (!log.errors().isEmpty() || log.badLines() > 0 || log.truncated()) {
                List<String> problems = new ArrayList<>(log.errors());
                if (log.badLines() > 0) {
                    problems.add(log.badLines() + " line(s) not readable");
                }
                if (log.truncated()) {
                    problems.add("output longer than the bound; its end was not read");
                }
                notes.add("The probe reported problems in the " + log.phase() + " phase (" + problems.get(0)
                        + (problems.size() > 1 ? "; " + (problems.size() - 1) + " more" : "")
                        + "): its evidence may be incomplete; the job itself ran as it would have.");
            }
        }
        // an out-of-range index is the evidence that explains a failure: first
        operators.sort(Comparator.comparingInt(o -> Boolean.TRUE.equals(
                        o.failure().check() == null ? null : o.failure().check().outOfRange())
                ? 0
                : 1));
        return new ProbeFindings(operators, allocations, phases, notes);
    }

    private static ProbeFindings.PhaseStatus status(ProbeLog log) {
        List<String> errors = new ArrayList<>(log.errors());
        if (log.badLines() > 0) {
            errors.add(log.badLines() + " line(s) not readable");
        }
        if (log.truncated()) {
            errors.add("output longer than the bound; its end was not read");
        }
        Long watched = null;
        Long samples = null;
        double seconds = 0;
        for (ProbeLog.Exit e : log.exits()) {
            seconds += e.probeSeconds();
            if (e.watchedCalls() != null) {
                watched = (watched == null ? 0 : watched) + e.watchedCalls();
            }
            if (e.samples() != null) {
                samples = (samples == null ? 0 : samples) + e.samples();
            }
        }
        if (!log.allocations().isEmpty()) {
            // the snapshots' own cost is in every sample: it survives a run stopped at its target (no exit line)
            double cost = log.allocations().values().stream()
                    .flatMap(a -> a.samples().stream())
                    .mapToDouble(ProbeLog.Sample::cost)
                    .sum();
            seconds = Math.max(seconds, cost);
            if (samples == null) {
                samples = log.allocations().values().stream()
                        .mapToLong(a -> a.samples().size())
                        .sum();
            }
        }
        String status =
                !log.present() ? "no-output" : log.records() == 0 && !errors.isEmpty() ? "unreadable" : "recorded";
        return new ProbeFindings.PhaseStatus(
                log.phase(),
                log.file(),
                status,
                (int) log.processes().stream()
                        .mapToLong(ProbeLog.Process::pid)
                        .distinct()
                        .count(),
                log.records(),
                Math.round(seconds * 10000) / 10000.0,
                watched,
                samples,
                errors);
    }

    /** {@code aten::embedding at train.py:23: index max 5000, weight has 5000 rows}. */
    static String operatorSummary(ProbeLog.OpFailure f) {
        return operatorSummary(f, WorkPaths.UNKNOWN);
    }

    static String operatorSummary(ProbeLog.OpFailure f, WorkPaths paths) {
        StringBuilder sb = new StringBuilder(f.op() == null ? "an operator" : f.op());
        if (f.site() != null) {
            sb.append(" at ")
                    .append(paths.name(f.site().file()))
                    .append(':')
                    .append(f.site().line());
        }
        ProbeLog.IndexCheck c = f.check();
        List<String> parts = new ArrayList<>();
        if (c != null) {
            String name = c.name() == null ? "index" : c.name();
            if (c.min() != null && c.max() != null) {
                boolean lowBad = c.min() < 0 && !c.min().equals(c.ignoreIndex());
                boolean highBad =
                        c.size() != null && c.max() >= c.size() && !c.max().equals(c.ignoreIndex());
                if (highBad || !lowBad) {
                    parts.add(name
                            + (highBad || c.size() == null
                                    ? " max " + c.max()
                                    : " within " + c.min() + ".." + c.max()));
                }
                if (lowBad) {
                    parts.add(name + " min " + c.min());
                }
            } else if (c.dtype() != null
                    && !c.dtype().startsWith("int")
                    && !c.dtype().startsWith("uint")) {
                parts.add(name + " " + c.dtype() + c.shape()); // class probabilities, not indices
            } else {
                parts.add(name + " values not readable");
            }
            if (c.size() != null) {
                parts.add((c.of() == null ? "the table" : c.of()) + " has " + c.size() + " "
                        + (c.unit() == null ? "entries" : c.unit()));
            }
        }
        if (!parts.isEmpty()) {
            sb.append(": ").append(String.join(", ", parts));
        }
        if (c != null && Boolean.FALSE.equals(c.outOfRange()) && f.message() != null) {
            sb.append(" (in range: it failed with ")
                    .append(f.exceptionType())
                    .append(": ")
                    .append(f.message())
                    .append(')');
        }
        if (f.rank() != null) {
            sb.append(" (rank ").append(f.rank()).append(')');
        }
        return sb.toString();
    }

    /** The process with the most live bytes at its end (the rank that fills its GPU), reduced. */
    static ProbeFindings.AllocationGrowth allocations(ProbeLog log, MemoryVerdict verdict, WorkPaths paths) {
        ProbeLog.Allocations a = null;
        ProbeLog.Sample last = null;
        for (ProbeLog.Allocations p : log.allocations().values()) {
            ProbeLog.Sample end = end(p, log);
            if (end != null && (last == null || end.allocated() > last.allocated())) {
                a = p;
                last = end;
            }
        }
        if (a == null) {
            return null;
        }
        boolean oomEnd = "oom".equals(last.at());
        double[] window = judgedWindow(a, process(log, a.pid()), verdict);
        ProbeLog.Sample end = window == null || oomEnd ? last : lastIn(a, window[1]);
        ProbeLog.Sample warm = warmSample(a, window, end);
        List<ProbeFindings.SiteGrowth> sites = siteGrowths(a, warm, end);
        ProbeFindings.SiteGrowth grew = sites.stream()
                .max(Comparator.comparingLong(ProbeFindings.SiteGrowth::growthBytes))
                .orElse(null);
        long total = end.allocated() - (warm == null ? 0 : warm.allocated());
        boolean allocatorGrew = warm != null
                && total >= GROWTH_BYTES
                && total >= warm.allocated() / 10
                && grew != null
                && grew.growthBytes() > 0;
        // a site is blamed only for growth the curve shows, or for the out-of-memory
        boolean growing = allocatorGrew && (verdict.growing() || oomEnd);
        return new ProbeFindings.AllocationGrowth(
                log.phase(),
                a.pid(),
                a.rank(),
                warm == null ? null : warm.t(),
                end.t(),
                end.at(),
                warm == null ? 0 : warm.allocated(),
                end.allocated(),
                end.reserved(),
                a.samples().size(),
                sites,
                series(a, sites, paths),
                growing,
                growthSummary(a, verdict, oomEnd, growing ? grew : null, sites, warm, end, paths),
                oom(log, a, end, paths));
    }

    /**
     * The sample growth is measured from: the first inside the part of the curve its verdict is about (not start
     * against exit), else the first after warm-up; null when none lies before {@code end}.
     */
    private static ProbeLog.Sample warmSample(ProbeLog.Allocations a, double[] window, ProbeLog.Sample end) {
        double from = window != null ? window[0] : Math.min(MAX_WARMUP_SECONDS, end.t() / 4);
        return a.samples().stream()
                .filter(s -> s.t() >= from && s.t() < end.t() && s != end)
                .findFirst()
                .orElse(null);
    }

    /** The largest sites at {@code end}, each with what it held at {@code warm}. */
    private static List<ProbeFindings.SiteGrowth> siteGrowths(
            ProbeLog.Allocations a, ProbeLog.Sample warm, ProbeLog.Sample end) {
        Map<Integer, ProbeLog.SiteBytes> atWarm = new LinkedHashMap<>();
        if (warm != null) {
            warm.sites().forEach(s -> atWarm.put(s.id(), s));
        }
        List<ProbeFindings.SiteGrowth> sites = new ArrayList<>();
        for (ProbeLog.SiteBytes s : end.sites()) {
            if (sites.size() >= TOP_SITES) {
                break;
            }
            sites.add(growth(a, s, atWarm.get(s.id())));
        }
        return sites;
    }

    /** @param grew the site blamed for the growth, or null when none is */
    private static String growthSummary(
            ProbeLog.Allocations a,
            MemoryVerdict verdict,
            boolean oomEnd,
            ProbeFindings.SiteGrowth grew,
            List<ProbeFindings.SiteGrowth> sites,
            ProbeLog.Sample warm,
            ProbeLog.Sample end,
            WorkPaths paths) {
        String who = a.rank() == null ? "" : " (rank " + a.rank() + ")";
        String at = oomEnd ? "the out-of-memory" : "the end";
        if (grew != null) {
            return String.format(
                    Locale.ROOT,
                    "GPU memory grows because tensors %s pile up: %s live blocks, %s at %s against %s after warm-up (%.1f s)%s.",
                    allocatedAt(grew.site(), paths),
                    count(grew.blocksAtEnd()),
                    bytes(grew.bytesAtEnd()),
                    at,
                    bytes(grew.bytesAtWarmup()),
                    warm.t(),
                    who);
        }
        if (!sites.isEmpty()) {
            return String.format(
                    Locale.ROOT,
                    "PyTorch's allocator held %s live at %s (%.1f s)%s; %s: no allocation site is blamed.",
                    bytes(end.allocated()),
                    at,
                    end.t(),
                    who,
                    whyNoSite(verdict, oomEnd, warm));
        }
        return "PyTorch's allocator held no live blocks at the end.";
    }

    /** Why no site is blamed, where the allocator did not grow with the curve or the curve did not grow. */
    private static String whyNoSite(MemoryVerdict v, boolean oomEnd, ProbeLog.Sample warm) {
        if (oomEnd) {
            return "its live blocks did not grow after warm-up";
        }
        if (!v.growing()) {
            return "the memory curve shows no growth (" + v.words() + ")";
        }
        if (warm == null) {
            return "the memory curve grows, but no earlier allocator sample lies in its judged window to compare with";
        }
        return String.format(
                Locale.ROOT,
                "the memory curve grows, but the allocator's live blocks did not (%s at %.1f s): what grows is"
                        + " outside PyTorch's live tensors (its cached segments, another library or another process)",
                bytes(warm.allocated()),
                warm.t());
    }

    /**
     * The curve's judged window in the process's seconds, or null when it cannot be placed: no curve, a
     * probe without a clock, or a window with no sample in it (a clock in another zone puts it hours away).
     */
    static double[] judgedWindow(ProbeLog.Allocations a, ProbeLog.Process p, MemoryVerdict v) {
        if (p == null || !v.timed() || p.startWall() == null) {
            return null;
        }
        double from = p.secondsAtLocalWall(v.fromLocalWall());
        // the probe's last sample may come a little after nvidia-smi's last one above the idle level
        double to = p.secondsAtLocalWall(v.toLocalWall()) + END_SLACK_SECONDS;
        boolean placed = a.samples().stream().anyMatch(s -> s.t() >= from && s.t() <= to);
        return placed ? new double[] {from, to} : null;
    }

    private static ProbeLog.Sample lastIn(ProbeLog.Allocations a, double to) {
        ProbeLog.Sample last = null;
        for (ProbeLog.Sample s : a.samples()) {
            if (s.t() <= to) {
                last = s;
            }
        }
        return last;
    }

    private static ProbeLog.Process process(ProbeLog log, long pid) {
        return log.processes().stream().filter(p -> p.pid() == pid).findFirst().orElse(null);
    }

    /** The state at the out-of-memory when there was one, else the last sample. */
    private static ProbeLog.Sample end(ProbeLog.Allocations a, ProbeLog log) {
        if (a.samples().isEmpty()) {
            return null;
        }
        boolean oom = log.ooms().stream().anyMatch(o -> o.pid() == a.pid());
        if (oom) {
            for (ProbeLog.Sample s : a.samples()) {
                if ("oom".equals(s.at())) {
                    return s;
                }
            }
        }
        return a.samples().get(a.samples().size() - 1);
    }

    private static ProbeFindings.SiteGrowth growth(ProbeLog.Allocations a, ProbeLog.SiteBytes s, ProbeLog.SiteBytes w) {
        ProbeLog.Site def = a.sites().get(s.id());
        SourceLocation loc = def == null ? new SourceLocation("<site " + s.id() + ">", 0, null, null) : def.location();
        return new ProbeFindings.SiteGrowth(
                loc,
                def == null ? List.of() : def.stack(),
                w == null ? 0 : w.bytes(),
                w == null ? 0 : w.blocks(),
                s.bytes(),
                s.blocks());
    }

    private static List<ProbeFindings.SiteSeries> series(
            ProbeLog.Allocations a, List<ProbeFindings.SiteGrowth> sites, WorkPaths paths) {
        List<ProbeLog.Sample> samples = a.samples();
        int step = Math.max(1, (samples.size() + MAX_POINTS - 1) / MAX_POINTS);
        List<ProbeFindings.SiteSeries> out = new ArrayList<>();
        Map<SourceLocation, Integer> ids = new LinkedHashMap<>();
        a.sites().forEach((id, s) -> ids.putIfAbsent(s.location(), id));
        for (ProbeFindings.SiteGrowth g : sites.subList(0, Math.min(CHART_SITES, sites.size()))) {
            Integer id = ids.get(g.site());
            if (id == null) {
                continue;
            }
            List<double[]> points = new ArrayList<>();
            for (int i = 0; i < samples.size(); i++) {
                if (i % step != 0 && i != samples.size() - 1) {
                    continue;
                }
                ProbeLog.Sample s = samples.get(i);
                long b = s.sites().stream()
                        .filter(x -> x.id() == id)
                        .mapToLong(ProbeLog.SiteBytes::bytes)
                        .sum();
                points.add(new double[] {s.t(), Math.round(b / 1048576.0 * 100) / 100.0});
            }
            out.add(new ProbeFindings.SiteSeries(where(g.site(), paths), points));
        }
        return out;
    }

    private static ProbeFindings.OomSites oom(
            ProbeLog log, ProbeLog.Allocations a, ProbeLog.Sample end, WorkPaths paths) {
        ProbeLog.Oom o =
                log.ooms().stream().filter(x -> x.pid() == a.pid()).findFirst().orElse(null);
        if (o == null) {
            return null;
        }
        List<ProbeFindings.SiteGrowth> sites = new ArrayList<>();
        if ("oom".equals(end.at())) {
            for (ProbeLog.SiteBytes s : end.sites()) {
                if (sites.size() >= TOP_SITES) {
                    break;
                }
                sites.add(growth(a, s, null));
            }
        }
        ProbeLog.OomSnapshot snap = log.snapshots().stream()
                .filter(x -> x.pid() == a.pid() && x.file() != null)
                .findFirst()
                .orElse(null);
        String snapshotFile = snap == null ? null : log.phase() + "/" + snap.file();
        StringBuilder sb = new StringBuilder("Out of memory");
        if (o.site() != null) {
            sb.append(noPythonFrame(o.site()) ? " in " : " at ").append(where(o.site(), paths));
        }
        if (o.requested() >= 0) {
            sb.append(" allocating ").append(bytes(o.requested()));
        }
        if (o.deviceFree() >= 0) {
            sb.append(" with ").append(bytes(o.deviceFree())).append(" free");
        }
        if (!sites.isEmpty()) {
            ProbeFindings.SiteGrowth top = sites.get(0);
            boolean same = o.site() != null && o.site().sameLine(top.site());
            sb.append(same ? "; the same line holds the most: " : "; what filled the card: ")
                    .append(where(top.site(), paths))
                    .append(", ")
                    .append(count(top.blocksAtEnd()))
                    .append(" live blocks, ")
                    .append(bytes(top.bytesAtEnd()));
            if (sites.size() > 1) {
                ProbeFindings.SiteGrowth second = sites.get(1);
                sb.append(" (next: ")
                        .append(where(second.site(), paths))
                        .append(", ")
                        .append(bytes(second.bytesAtEnd()))
                        .append(')');
            }
        }
        if (a.rank() != null) {
            sb.append(" (rank ").append(a.rank()).append(')');
        }
        if (snapshotFile != null) {
            sb.append("; allocator snapshot: ").append(snapshotFile);
        }
        sb.append('.');
        return new ProbeFindings.OomSites(
                o.pid(),
                o.rank(),
                o.t(),
                o.site(),
                o.stack(),
                o.requested(),
                o.deviceFree(),
                snapshotFile,
                snap == null ? null : snap.bytes(),
                sites,
                sb.toString());
    }

    /** {@code leak.py:10 (step)}; a site with no Python frame is said as such, never as a file {@code :0}. */
    static String where(SourceLocation l) {
        return where(l, WorkPaths.UNKNOWN);
    }

    /** {@code data/cache.py:10 (step)}: a file of the job named by its path under the working directory. */
    static String where(SourceLocation l, WorkPaths paths) {
        if (l == null) {
            return "?";
        }
        if (noPythonFrame(l)) {
            return "an allocation with no Python frame recorded (a C++/library allocation)";
        }
        return paths.name(l.file()) + ":" + l.line()
                + (l.function() == null
                                || l.function().equals("<module>")
                                || l.function().equals("?")
                        ? ""
                        : " (" + l.function() + ")");
    }

    /** {@code allocated at leak.py:10 (step)}, or {@code allocated with no Python frame recorded (...)}. */
    static String allocatedAt(SourceLocation l) {
        return allocatedAt(l, WorkPaths.UNKNOWN);
    }

    static String allocatedAt(SourceLocation l, WorkPaths paths) {
        return l != null && noPythonFrame(l)
                ? "allocated with no Python frame recorded (a C++/library allocation)"
                : "allocated at " + where(l, paths);
    }

    public static boolean noPythonFrame(SourceLocation l) {
        return NO_PYTHON_FRAME.equals(l.file());
    }

    static String bytes(long b) {
        if (b >= 1L << 30) {
            return String.format(Locale.ROOT, "%.1f GiB", b / (double) (1L << 30));
        }
        return String.format(Locale.ROOT, "%.1f MiB", b / (double) (1L << 20));
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }
}
