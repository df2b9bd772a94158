package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import java.io.Serializable;
import java.util.List;

/**
 * What the user set of the runs' workspaces.
 *
 * @param isolate  each run in a copy of the working directory (the default); false: every run in the working
 *                 directory itself, as before issue #40 (the proof of work still judges each run)
 * @param limitMiB the most the copied part of the working directory may hold; a larger one stops the gate before
 *                 anything ran, naming its largest folders (a dataset is better shared than copied)
 * @param shared   paths relative to the working directory that every run sees as they are, not copied (a dataset
 *                 folder, a pretrained model); in a copy they are symbolic links to the originals
 */
public record Isolation(boolean isolate, long limitMiB, List<String> shared) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** 4 GiB: a checkout with its small data; a dataset of its own is named with {@code --share}. */
    public static final long DEFAULT_LIMIT_MIB = 4096;

    public static final Isolation DEFAULT = new Isolation(true, DEFAULT_LIMIT_MIB, List.of());

    public Isolation {
        shared = List.copyOf(shared);
        if (limitMiB < 0) {
            throw new IllegalArgumentException("the workspace limit must be 0 MiB (none) or more, got " + limitMiB);
        }
    }

    public Isolation isolate(boolean value) {
        return new Isolation(value, limitMiB, shared);
    }

    public Isolation limitMiB(long value) {
        return new Isolation(isolate, value, shared);
    }

    public Isolation shared(List<String> value) {
        return new Isolation(isolate, limitMiB, value);
    }
}
