package io.jenkins.plugins.gpusanitizer.engine;

import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The real H200 outputs copied into test resources (see corpus/h200/MANIFEST.md). */
public final class Corpus {
    private Corpus() {}

    public static Path file(String relative) {
        try {
            var url = Corpus.class.getResource("/corpus/h200/" + relative);
            if (url == null) {
                throw new IllegalArgumentException("no corpus file " + relative);
            }
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A file of the second H200 capture (corpus/h200-2026-12-03, see its MANIFEST.md). */
    public static Path h200Dec03(String relative) {
        try {
            var url = Corpus.class.getResource("/corpus/h200-2026-12-03/" + relative);
            if (url == null) {
                throw new IllegalArgumentException("no corpus file " + relative);
            }
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A fixture under corpus/pytorch-formats/: not captured, but built from the text PyTorch's own
     * sources print (see that folder's README.md).
     */
    public static Path fixture(String relative) {
        try {
            var url = Corpus.class.getResource("/corpus/pytorch-formats/" + relative);
            if (url == null) {
                throw new IllegalArgumentException("no fixture " + relative);
            }
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A test resource by its absolute resource path, e.g. {@code /memory-curves/issue-11/leak-logits.nvidia-smi.csv}. */
    public static Path resource(String path) {
        try {
            var url = Corpus.class.getResource(path);
            if (url == null) {
                throw new IllegalArgumentException("no test resource " + path);
            }
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One run's output from cpp-probe/text-runs.txt, between {@code ### name:} and its {@code ### rc=} line. */
    public static String textRun(String name) {
        try {
            List<String> lines = Files.readAllLines(file("cpp-probe/text-runs.txt"), StandardCharsets.UTF_8);
            List<String> out = new ArrayList<>();
            boolean in = false;
            for (String l : lines) {
                if (l.startsWith("### " + name + ":")) {
                    in = true;
                } else if (in && l.startsWith("### rc=")) {
                    return String.join("\n", out) + "\n";
                } else if (in) {
                    out.add(l);
                }
            }
            throw new IllegalArgumentException("no run " + name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The H200 run record written by `gpu-sanitize run` (records/h200-2026-12-02.zip). */
    public static Path runRecord(String runCase) {
        return Records.unpacked("h200-2026-12-02/" + runCase);
    }

    /** A recorded run directory analysed afresh by this build's engine (as `analyze --run-dir` does). */
    public static io.jenkins.plugins.gpusanitizer.engine.report.Report analyzeRun(String runCase) {
        var dir = new io.jenkins.plugins.gpusanitizer.engine.run.RunDirectory(runRecord(runCase));
        var record = dir.readRecord();
        var policy = io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy.defaults();
        return new io.jenkins.plugins.gpusanitizer.engine.report.ReportMapper(policy.frameClassifier())
                .toReport(dir.analyze(record, policy, java.util.List.of()))
                .withExecution(record.execution());
    }

    public static InputStream stream(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes text to a file in dir (for tests that go through file-based APIs). */
    public static Path write(Path dir, String name, String text) {
        try {
            Path p = dir.resolve(name);
            Files.writeString(p, text, StandardCharsets.UTF_8);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
