package io.jenkins.plugins.gpusanitizer.engine.analysis;

import java.nio.file.Path;

/**
 * The regression run's per-process memory figures and whether it shared its card.
 *
 * @param samples   nvidia-smi --query-compute-apps samples ({@code nvidia-smi-apps.csv}), or null
 * @param pids      which of the listed pids were the phase's ({@code gpu-pids.txt}), or null
 * @param ranBeside true: another phase ran on the card at the same time (the card's total is not the job's);
 *                  false: the run had the card to itself; null: not known (files given one by one)
 */
public record ProcessMemoryInput(Path samples, Path pids, Boolean ranBeside) {
    public static final ProcessMemoryInput NONE = new ProcessMemoryInput(null, null, null);
}
