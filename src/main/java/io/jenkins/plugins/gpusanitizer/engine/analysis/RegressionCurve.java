package io.jenkins.plugins.gpusanitizer.engine.analysis;

import io.jenkins.plugins.gpusanitizer.engine.diagnosis.MemoryCurve;
import io.jenkins.plugins.gpusanitizer.engine.diagnosis.MemoryCurveAnalyzer;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.memory.GpuPids;
import io.jenkins.plugins.gpusanitizer.engine.parse.memory.MemorySamples;
import io.jenkins.plugins.gpusanitizer.engine.parse.memory.ProcessMemory;
import io.jenkins.plugins.gpusanitizer.engine.parse.memory.ProcessMemoryCsvParser;
import io.jenkins.plugins.gpusanitizer.engine.probe.AllocatorCurve;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Which memory curve of the regression run is judged. The job's own processes, summed from nvidia-smi's
 * per-process figures, whenever those can be told apart: then another process on the card (the sanitizer run
 * beside it, its uncached allocations climbing) moves nothing. Without them, the card's total when the run had
 * the card to itself (as before per-process sampling); on a shared card, the memory PyTorch's allocator
 * reserved in the job's processes when the probe sampled it; else no verdict: a total that counts another
 * run's memory says nothing about this job.
 */
final class RegressionCurve {
    private RegressionCurve() {}

    /**
     * The curve to show and how it was chosen.
     *
     * @param samples   the figures drawn (and judged unless {@code notJudged})
     * @param source    the file they came from
     * @param basis     which figures they are
     * @param basisNote one line for people: which curve, and why that one
     * @param notJudged null, or the description of a curve that is not judged
     * @param notes     what the choice found wrong in the per-process figures
     */
    record Choice(
            MemorySamples samples,
            String source,
            MemoryCurve.Basis basis,
            String basisNote,
            String notJudged,
            List<Reason> notes) {
        MemoryCurve judge(MemoryCurveAnalyzer analyzer, String label) {
            return notJudged == null
                    ? analyzer.analyze(samples, source, label, basis, basisNote)
                    : analyzer.notJudged(samples, source, label, basis, basisNote, notJudged);
        }
    }

    /**
     * @param card        the card's total (the GPU the job used) from {@code cardCsv}
     * @param in          the per-process figures and whether the run shared its card
     * @param probe       the probe's regression-phase log, or null
     */
    static Choice choose(MemorySamples card, Path cardCsv, ProcessMemoryInput in, ProbeLog probe) {
        String gpu = card.gpu();
        List<Reason> notes = new ArrayList<>();
        String why;
        try {
            Usable usable = perProcess(card, in, notes);
            if (usable.memory != null) {
                return new Choice(
                        usable.memory.job(),
                        in.samples().toString(),
                        MemoryCurve.Basis.PER_PROCESS,
                        perProcessNote(usable.memory, in.ranBeside()),
                        null,
                        notes);
            }
            why = usable.why;
        } catch (InputException e) {
            why = "the per-process samples could not be read (" + e.getMessage() + ")";
            notes.add(Reason.warning("memory-samples", e.getMessage()));
        }
        String total = String.format(Locale.ROOT, "memory.used of GPU %s, every process on the card", gpu);
        if (!Boolean.TRUE.equals(in.ranBeside())) {
            return new Choice(
                    card,
                    cardCsv.toString(),
                    MemoryCurve.Basis.CARD_TOTAL,
                    "card total: " + total
                            + (Boolean.FALSE.equals(in.ranBeside())
                                    ? " (the regression run had the card to itself)"
                                    : "")
                            + "; " + why,
                    null,
                    notes);
        }
        MemorySamples allocator =
                probe == null ? null : AllocatorCurve.of(probe, gpu, card.startWallMs(), card.totalMiB());
        if (allocator != null) {
            return new Choice(
                    allocator,
                    probe.file(),
                    MemoryCurve.Basis.PROBE_ALLOCATOR,
                    "probe allocator: the memory PyTorch's allocator reserved in the job's processes (the probe's"
                            + " samples); the card was shared with the sanitizer run and " + why,
                    null,
                    notes);
        }
        String notJudged = "not judged: card shared with the sanitizer run and no per-process figures (" + why + ")";
        notes.add(Reason.warning("memory-not-judged", "regression run's GPU memory " + notJudged));
        return new Choice(
                card,
                cardCsv.toString(),
                MemoryCurve.Basis.CARD_TOTAL,
                "card total, not judged: " + total + ", the sanitizer run's too; " + why,
                notJudged,
                notes);
    }

    /** The per-process figures, or why there are none to judge. */
    private record Usable(ProcessMemory memory, String why) {}

    private static Usable perProcess(MemorySamples card, ProcessMemoryInput in, List<Reason> notes) {
        if (in.samples() == null || !Files.isRegularFile(in.samples())) {
            return new Usable(null, "no per-process samples were recorded");
        }
        if (in.pids() == null || !Files.isRegularFile(in.pids())) {
            return new Usable(null, "no record of which processes nvidia-smi listed were the job's");
        }
        GpuPids pids = GpuPids.read(in.pids());
        if (pids.ownPidNamespace()) {
            return new Usable(
                    null,
                    "the job ran in a pid namespace of its own (" + pids.pidNamespace()
                            + ", a container): nvidia-smi lists the host's pids, which are not the job's");
        }
        ProcessMemory memory = new ProcessMemoryCsvParser().parse(in.samples(), pids, card);
        if (memory.badLines() > 0) {
            notes.add(Reason.warning(
                    "memory-samples",
                    in.samples() + ": " + memory.badLines() + " line(s) skipped: malformed, or an impossible"
                            + " per-process figure"));
        }
        if (!memory.jobPids().isEmpty()) {
            return new Usable(memory, null);
        }
        if (memory.unavailable() > 0) {
            return new Usable(
                    null,
                    "nvidia-smi gave no per-process figure for the job's processes ([N/A]: a MIG instance, or a"
                            + " driver that does not report them)");
        }
        int listed = memory.otherPids().size() + memory.unknownPids().size();
        if (memory.passes() == 0 || listed == 0) {
            return new Usable(null, "nvidia-smi listed no process on the card");
        }
        return new Usable(
                null,
                String.format(
                        Locale.ROOT,
                        "none of the %d process(es) nvidia-smi listed was the job's (pids %s)",
                        listed,
                        pids(memory.otherPids(), memory.unknownPids())));
    }

    private static String perProcessNote(ProcessMemory m, Boolean ranBeside) {
        StringBuilder note = new StringBuilder(String.format(
                Locale.ROOT,
                "per-process: the sum of the job's own %d process(es) on the card (nvidia-smi per process, pids %s)",
                m.jobPids().size(),
                pids(m.jobPids(), List.of())));
        int others = m.otherPids().size() + m.unknownPids().size();
        if (others > 0) {
            note.append(String.format(
                    Locale.ROOT,
                    "; %d other process(es) on the card (up to %.0f MiB together) not counted",
                    others,
                    m.otherPeakMiB()));
        }
        if (Boolean.TRUE.equals(ranBeside)) {
            note.append("; the card was shared with the sanitizer run");
        }
        return note.toString();
    }

    /** At most 8 pids, in order, and how many more. */
    private static String pids(Collection<Long> a, Collection<Long> b) {
        TreeSet<Long> all = new TreeSet<>(a);
        all.addAll(b);
        String shown = all.stream().limit(8).map(String::valueOf).collect(Collectors.joining(", "));
        return all.size() > 8 ? shown + " and " + (all.size() - 8) + " more" : shown;
    }
}
