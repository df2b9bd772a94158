package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.RunWorkspaces;
import java.util.ArrayList;
import java.util.List;

/**
 * The runner's plan, in one place (issue #40): which runs there are, on which GPU, beside what, and in which
 * workspace. Decided from the spec before anything runs and said once on the console; {@link PhaseScheduler} carries
 * it out. What the plan cannot know in advance — whether the regression run fits beside the sanitizer run (the card's
 * free memory, {@link RegressionBeside}), a run that must go again (out of memory or a host resource held beside
 * another: {@link #againAlone}; a cut blocking run whose regression run failed) — is decided while it runs and said
 * then.
 *
 * @param layout      how the runs share the GPUs
 * @param besideCheck whether the first runs start beside the environment check (before its answer)
 * @param runs        each planned run (a sanitizer run per tool, the blocking run, the regression run) and its GPU
 * @param isolated    whether each run works in a fresh copy of the working directory
 */
record RunPlan(Layout layout, boolean besideCheck, List<Planned> runs, boolean isolated) {
    /** How the runs share the GPUs. */
    enum Layout {
        /** One GPU: the blocking run beside the sanitizer runs, the regression run beside them when the card has room. */
        BESIDE,
        /** One GPU, one run after the other ({@code --no-overlap}, or no sanitizer run to go beside). */
        IN_ORDER,
        /** Several GPUs: the sanitizer runs and the blocking run at once, one GPU each; the regression run after. */
        ACROSS_GPUS
    }

    /** One planned run: its name (its folder in the run directory) and its GPU. */
    record Planned(String name, Phase phase, String gpu) {}

    RunPlan {
        runs = List.copyOf(runs);
    }

    static RunPlan of(RunSpec spec) {
        List<String> gpus = spec.gpus();
        Layout layout;
        if (gpus.size() > 1) {
            layout = Layout.ACROSS_GPUS;
        } else if (spec.overlapBlocking()
                && spec.phases().contains(Phase.SANITIZER)
                && spec.phases().contains(Phase.BLOCKING)
                && !spec.tools().isEmpty()) {
            layout = Layout.BESIDE;
        } else {
            layout = Layout.IN_ORDER;
        }
        List<Planned> runs = new ArrayList<>();
        int next = 0;
        if (spec.phases().contains(Phase.SANITIZER)) {
            for (Tool tool : spec.tools()) {
                runs.add(new Planned(RunDirectory.sanitizerDir(tool), Phase.SANITIZER, gpus.get(next++ % gpus.size())));
            }
        }
        if (spec.phases().contains(Phase.BLOCKING)) {
            runs.add(new Planned(Phase.BLOCKING.id(), Phase.BLOCKING, gpus.get(next % gpus.size())));
        }
        if (spec.phases().contains(Phase.REGRESSION)) {
            runs.add(new Planned(Phase.REGRESSION.id(), Phase.REGRESSION, gpus.get(0)));
        }
        if (layout != Layout.ACROSS_GPUS) {
            runs.replaceAll(r -> new Planned(r.name(), r.phase(), gpus.get(0)));
        }
        return new RunPlan(
                layout, spec.overlapBlocking(), runs, spec.isolation().isolate());
    }

    /**
     * The one rule for a run that went beside the sanitizer run: when it failed for the sharing (it ran out of GPU
     * memory on the shared card, or a host resource the other runs held: a port, a lock file, {@link HostContention}),
     * the failure is not the job's, and the run goes again alone after the sanitizer run. Returns why, in the words
     * the console and the report give, or null when its result stands.
     *
     * @param run "the blocking run" or "the regression run", as the sentence names it
     */
    static String againAlone(RunDirectory dir, PhaseResult beside, String run) {
        String contended = dir.contended(beside);
        if (contended != null) {
            return run + " ran again after the sanitizer run: beside it, " + contended;
        }
        if (dir.ranOutOfMemory(beside)) {
            return run + " ran out of GPU memory beside the sanitizer run: run again alone";
        }
        return null;
    }

    /** The GPU of the first planned run: on one GPU, every run's. */
    String firstGpu() {
        return runs.isEmpty() ? null : runs.get(0).gpu();
    }

    /** The GPU the plan gives the run of that name. */
    String gpuOf(String run) {
        return runs.stream()
                .filter(r -> r.name().equals(run))
                .map(Planned::gpu)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no planned run " + run));
    }

    /** One line for the console: where each run goes and what it works in. */
    String describe() {
        StringBuilder b = new StringBuilder("plan: ");
        b.append(
                switch (layout) {
                    case BESIDE ->
                        "on GPU " + runs.get(0).gpu() + ", the blocking run beside the sanitizer run(s), the"
                                + " regression run beside them if the card has room, else after";
                    case IN_ORDER ->
                        "on GPU " + (runs.isEmpty() ? "?" : runs.get(0).gpu()) + ", one run after the other";
                    case ACROSS_GPUS ->
                        "across GPUs, "
                                + String.join(
                                        ", ",
                                        runs.stream()
                                                .filter(r -> r.phase() != Phase.REGRESSION)
                                                .map(r -> r.name() + " on " + r.gpu())
                                                .toList())
                                + " at once, the regression run after";
                });
        b.append(besideCheck ? "; the first beside the environment check" : "; after the environment check");
        b.append(
                isolated
                        ? "; each run in a fresh copy of the working directory (" + RunWorkspaces.FOLDER + "/RUN)"
                        : "; every run in the working directory itself (--no-isolation)");
        return b.toString();
    }
}
