package io.jenkins.plugins.gpusanitizer.engine.analysis;

import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.nio.file.Path;

/**
 * One sanitizer output file to analyse.
 *
 * @param file the file
 * @param xml  true for {@code --xml --save} output, false for text
 * @param tool the tool when known (the runner knows it), else null: detected from the content
 * @param cachingAllocator whether this run kept PyTorch's caching allocator when it differs from the other runs
 *                         (the runner's rerun after a broken CUDA graph capture), else null: the input's setting
 */
public record SanitizerInput(Path file, boolean xml, Tool tool, Boolean cachingAllocator) {

    public SanitizerInput(Path file, boolean xml, Tool tool) {
        this(file, xml, tool, null);
    }

    /** Parses the CLI form {@code [tool:]path}, e.g. {@code initcheck:run/initcheck.log}. */
    public static SanitizerInput parse(String spec, boolean xml) {
        int colon = spec.indexOf(':');
        if (colon > 0) {
            var tool = Tool.fromId(spec.substring(0, colon));
            if (tool.isPresent()) {
                return new SanitizerInput(Path.of(spec.substring(colon + 1)), xml, tool.get());
            }
        }
        return new SanitizerInput(Path.of(spec), xml, null);
    }
}
