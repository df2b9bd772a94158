package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/**
 * The in-process probe: its state per phase, its problems (notes, never the verdict), and the
 * allocation sites when there was no nvidia-smi curve to attach them to.
 */
public record ProbeJson(List<ProbePhaseJson> phases, List<String> notes, AllocationSitesJson allocationSites) {}
