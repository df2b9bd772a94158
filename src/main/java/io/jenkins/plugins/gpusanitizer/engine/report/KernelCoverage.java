package io.jenkins.plugins.gpusanitizer.engine.report;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerOptions;
import io.jenkins.plugins.gpusanitizer.engine.probe.CoverageDecision;
import io.jenkins.plugins.gpusanitizer.engine.probe.KernelCensus;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeLog;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Which of the kernels the plain run launched a sanitizer run checked (issue #49): the blocking run's kernel census
 * ({@link KernelCensus}) against the tool's own filters in the sanitizer run's command, compute-sanitizer's rules as its
 * {@code --help} states them (2025.3): {@code --kernel-name} filters are additive (a kernel matching any is checked),
 * {@code --kernel-name-exclude} wins, keys {@code kernel_name}/{@code kne} (the full mangled name),
 * {@code kernel_substring}/{@code kns} (a substring of it), {@code regex} (found in it); {@code --launch-skip} and
 * {@code --launch-count} count only the launches the filters let through.
 *
 * <p>A sentence is said only where the census makes it certain: the census has each kernel's first launch in the
 * plain run's order, not the sanitizer run's, so a window is judged by first launches (a kernel first launched inside
 * the window was checked, one first launched after it was not, where no name filter reorders the count), and anything
 * else is {@code unknown}.
 */
public final class KernelCoverage {
    static final String EVERY_LAUNCH = "every-launch";
    static final String FIRST_LAUNCHES = "first-launches";
    static final String NOT_BY_NAME = "not-checked-name-filter";
    static final String NOT_IN_WINDOW = "not-checked-after-window";
    static final String UNKNOWN = "unknown";
    static final int MAX_KERNELS = 2000;
    /** The phase whose census is read: the blocking run launches what the job launches, unchecked. */
    private static final String CENSUS_PHASE = "blocking";

    private final List<Filter> include = new ArrayList<>();
    private final List<Filter> exclude = new ArrayList<>();
    private final long skip;
    private final long count;
    private final List<String> unreadable = new ArrayList<>();
    /**
     * Where the run ended at or past its coverage stop (issue #49), as the summary says it ("until the coverage stop at
     * the job's optimizer step 3"): each kernel's launches up to there were checked, no later. Null otherwise.
     */
    private String until;
    /**
     * Why the run ended before the job's end without reaching a coverage stop (it died, timed out or was stopped), as
     * the summary says it: which census kernels it reached is then not known. Null otherwise.
     */
    private String endedEarly;

    private KernelCoverage(List<String> command) {
        for (SanitizerOptions.Option o : SanitizerOptions.of(command)) {
            switch (o.name()) {
                case "--kernel-name" -> include.add(Filter.of(o.value(), unreadable, o.text()));
                case "--kernel-name-exclude" -> exclude.add(Filter.of(o.value(), unreadable, o.text()));
                case "--kernel-regex", "--kernel-regex-exclude", "--filter", "--exclude" ->
                    unreadable.add(o.text() + " (an option of older releases)");
                default -> {}
            }
        }
        SanitizerOptions.Window window = SanitizerOptions.window(command);
        skip = window.skip() == null ? 0 : Math.max(0, window.skip());
        count = window.count() == null ? 0 : Math.max(0, window.count());
        unreadable.addAll(window.unparsable());
    }

    /** Whether a kernel's {@code checked} status says the run checked it (in every launch or its first ones). */
    static boolean isChecked(String status) {
        return EVERY_LAUNCH.equals(status) || FIRST_LAUNCHES.equals(status);
    }

    /**
     * Each sanitizer run's coverage against the blocking run's census in the run directory; empty where there is no
     * census (an older run, the probe off, no C compiler or CUPTI on the agent: census/build.log says which).
     */
    public static List<CoverageJson> forRun(Path runRoot, ExecutionJson execution, List<SanitizerRunJson> runs) {
        if (runRoot == null || execution == null || execution.phases() == null) {
            return List.of();
        }
        Set<String> died = SanitizerPhaseStatus.targetDiedIn(runs);
        KernelCensus census;
        try {
            census = KernelCensus.read(runRoot.resolve(CENSUS_PHASE).resolve(RunLayout.CENSUS_DIR));
        } catch (IOException e) {
            return List.of();
        }
        List<CoverageJson> out = new ArrayList<>();
        for (PhaseJson p : execution.phases()) {
            if (p.tool() != null && p.command() != null && !p.command().isEmpty()) {
                KernelCoverage coverage = new KernelCoverage(p.command());
                coverage.reach(CoverageReach.of(runRoot.resolve(p.name()), p, died.contains(p.name())), p);
                CoverageJson c = census.isEmpty() ? null : coverage.judge(p.name(), p.tool(), census);
                if (c != null) {
                    out.add(c);
                }
            }
        }
        return List.copyOf(out);
    }

    /** The coverage of one sanitizer run that went to its end, against the census; null without a census. */
    static CoverageJson of(String phase, String tool, List<String> command, KernelCensus census) {
        if (census == null || census.isEmpty()) {
            return null;
        }
        return new KernelCoverage(command).judge(phase, tool, census);
    }

    /**
     * What the run's reach says of its kernels: at its coverage stop (issue #49: the stop comes after every census
     * kernel's first launch, so each was checked in its first launches) or past the stop decided after it ended, each
     * up to there; to its end, every launch; short of both, not known.
     */
    private void reach(CoverageReach reach, PhaseJson p) {
        CoverageDecision decision = reach.decision();
        ProbeLog log = reach.log();
        String word = decision == null ? null : CoverageDecision.word(decision.unit());
        switch (reach.kind()) {
            case AT_ITS_STOP ->
                until = "until the coverage stop at the job's " + word + " " + decision.reached(log.coverageStops());
            case PAST_ITS_STOP ->
                until = "until at least the job's " + word + " " + decision.reachedBeforeItsEnd(log)
                        + ", past its coverage stop at " + word + " " + decision.at() + ", where it ended";
            case SHORT -> endedEarly = endedEarly(p.status());
            case TO_ITS_END -> {}
        }
    }

    /** Why a run ended before the job's end, in words. */
    private static String endedEarly(String status) {
        return "the run ended before the job's end: "
                + switch (String.valueOf(status)) {
                    case "failed" -> "its job died under the tool";
                    case "timed-out" -> "it timed out";
                    case "stopped-early" -> "the gate stopped it";
                    case "aborted" -> "it was aborted";
                    default -> "it " + status;
                };
    }

    private CoverageJson judge(String phase, String tool, KernelCensus census) {
        List<CoverageJson.Kernel> kernels = new ArrayList<>();
        List<String> problems = new ArrayList<>(census.problems());
        int checked = 0;
        int notChecked = 0;
        int unknown = 0;
        List<String> missed = new ArrayList<>();
        for (KernelCensus.Kernel k : census.kernels()) {
            if (KernelCensus.NOT_KERNELS.contains(k.name())) {
                problems.add(
                        k.name().equals("(graph)")
                                ? "CUDA graph launches: the kernels inside a graph are not in the census"
                                : "launches without a kernel name in the census");
                continue;
            }
            String status = status(k);
            if (isChecked(status)) {
                checked++;
            } else if (UNKNOWN.equals(status)) {
                unknown++;
            } else {
                notChecked++;
                missed.add(k.name());
            }
            if (kernels.size() < MAX_KERNELS) {
                kernels.add(new CoverageJson.Kernel(k.name(), k.first(), k.launches(), status));
            }
        }
        if (census.kernels().size() > MAX_KERNELS) {
            problems.add(
                    "only the first " + MAX_KERNELS + " of " + census.kernels().size() + " kernels are listed");
        }
        unreadable.forEach(u -> problems.add("filter not understood, its kernels are unknown: " + u));
        int distinct = checked + notChecked + unknown;
        return new CoverageJson(
                phase,
                tool,
                CENSUS_PHASE,
                census.complete(),
                distinct,
                checked,
                notChecked,
                unknown,
                summary(phase, distinct, checked, notChecked, unknown, missed, census.complete()),
                List.copyOf(kernels),
                List.copyOf(problems));
    }

    private String status(KernelCensus.Kernel k) {
        if (!unreadable.isEmpty()) {
            return UNKNOWN;
        }
        boolean named = include.isEmpty() || include.stream().anyMatch(f -> f.matches(k.name()));
        if (!named || exclude.stream().anyMatch(f -> f.matches(k.name()))) {
            return NOT_BY_NAME;
        }
        if (endedEarly != null) {
            return UNKNOWN;
        }
        if (skip == 0 && count == 0) {
            return until == null ? EVERY_LAUNCH : FIRST_LAUNCHES;
        }
        boolean filtered = !include.isEmpty() || !exclude.isEmpty();
        // the filters count only their own launches: a kernel's index among them is at most its index among all
        if (skip == 0 && k.first() < count) {
            return FIRST_LAUNCHES;
        }
        if (filtered) {
            return UNKNOWN;
        }
        if (k.first() >= skip && (count == 0 || k.first() < skip + count)) {
            return count == 0 ? EVERY_LAUNCH : FIRST_LAUNCHES;
        }
        return count > 0 && k.first() >= skip + count ? NOT_IN_WINDOW : UNKNOWN;
    }

    private String summary(
            String phase,
            int distinct,
            int checked,
            int notChecked,
            int unknown,
            List<String> missed,
            boolean complete) {
        StringBuilder s = new StringBuilder(phase)
                .append(" checked ")
                .append(checked)
                .append(" of the ")
                .append(distinct)
                .append(" distinct kernels the plain run (blocking) launched");
        if (!complete) {
            s.append(" before it stopped");
        }
        if (until != null) {
            s.append(" (every launch of each ").append(until).append(')');
        } else if (endedEarly != null) {
            s.append(" (").append(endedEarly).append(')');
        } else {
            s.append(skip == 0 && count == 0 ? " (every launch of each)" : " (a launch window: the first launches)");
        }
        if (notChecked > 0) {
            s.append("; ").append(notChecked).append(" never: ");
            s.append(String.join(", ", missed.subList(0, Math.min(5, missed.size()))));
            if (missed.size() > 5) {
                s.append(", and ").append(missed.size() - 5).append(" more");
            }
        }
        if (unknown > 0) {
            s.append("; ")
                    .append(unknown)
                    .append(
                            endedEarly != null
                                    ? " not known: which of them it reached before it ended the census cannot say"
                                    : " not known from the census (a filter it cannot replay)");
        }
        return s.toString();
    }

    /** One {@code --kernel-name} or {@code --kernel-name-exclude} value: every key in it must match. */
    private record Filter(List<Key> keys) {
        static Filter of(String value, List<String> unreadable, String text) {
            List<Key> keys = new ArrayList<>();
            if (value == null || value.isEmpty()) {
                unreadable.add(text);
                return new Filter(keys);
            }
            // "regex" takes the rest of the value (its pattern may hold commas); the other keys are split at commas
            List<String> pairs = value.startsWith("regex=") ? List.of(value) : List.of(value.split(","));
            for (String pair : pairs) {
                int eq = pair.indexOf('=');
                String key = eq < 0 ? pair : pair.substring(0, eq);
                String v = eq < 0 ? "" : pair.substring(eq + 1);
                switch (key) {
                    case "kernel_name", "kne" -> keys.add(name -> name.equals(v));
                    case "kernel_substring", "kns" -> keys.add(name -> name.contains(v));
                    case "regex" -> {
                        try {
                            Pattern p = Pattern.compile(v);
                            keys.add(name -> p.matcher(name).find());
                        } catch (PatternSyntaxException e) {
                            unreadable.add(text + " (a regular expression Java reads differently)");
                        }
                    }
                    default -> unreadable.add(text + " (key '" + key + "')");
                }
            }
            return new Filter(keys);
        }

        boolean matches(String name) {
            return !keys.isEmpty() && keys.stream().allMatch(k -> k.matches(name));
        }
    }

    private interface Key {
        boolean matches(String name);
    }
}
