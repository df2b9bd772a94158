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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The real H200 outputs copied into test resources (see corpus/h200/MANIFEST.md). */
public final class Corpus {
    private Corpus() {}

    /** A file of the first H200 capture (corpus/h200, see its MANIFEST.md). */
    public static Path file(String relative) {
        return resource("/corpus/h200/" + relative);
    }

    /** A file of the second H200 capture (corpus/h200-2026-12-03, see its MANIFEST.md). */
    public static Path h200Dec03(String relative) {
        return resource("/corpus/h200-2026-12-03/" + relative);
    }

    /**
     * A fixture under corpus/pytorch-formats/: not captured, but built from the text PyTorch's own
     * sources print (see that folder's README.md).
     */
    public static Path fixture(String relative) {
        return resource("/corpus/pytorch-formats/" + relative);
    }

    /**
     * A test resource by its absolute resource path, e.g. {@code /memory-curves/issue-11/leak-logits.nvidia-smi.csv}.
     * A file of a packed corpus folder ({@code /corpus/NAME/...}, all but its documents and the demo's
     * far-oob/) comes from this JVM's unpacked copy of {@code corpus/NAME.zip.xz}: read only.
     */
    public static Path resource(String path) {
        var url = Corpus.class.getResource(path);
        if (url != null) {
            try {
                return Path.of(url.toURI());
            } catch (URISyntaxException e) {
                throw new IllegalStateException(e);
            }
        }
        Matcher packed = PACKED.matcher(path);
        if (packed.matches() && Files.isRegularFile(resourcesRoot().resolve("corpus/" + packed.group(1) + ".zip.xz"))) {
            Path file =
                    Records.archive("/corpus/" + packed.group(1) + ".zip.xz").resolve(packed.group(2));
            if (Files.isRegularFile(file)) {
                return file;
            }
        }
        throw new IllegalArgumentException("no test resource " + path);
    }

    /** Every file of the test resources, those of the packed corpus folders (corpus/NAME.zip.xz) included. */
    public static List<Path> everyResourceFile() {
        List<Path> roots = new ArrayList<>();
        roots.add(resourcesRoot());
        roots.addAll(packedFolders());
        List<Path> all = new ArrayList<>();
        for (Path root : roots) {
            try (var files = Files.walk(root)) {
                files.filter(Files::isRegularFile).sorted().forEach(all::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return all;
    }

    /** The unpacked copies of every packed corpus folder (corpus/NAME.zip.xz), to walk. */
    public static List<Path> packedFolders() {
        try (var files = Files.list(resourcesRoot().resolve("corpus"))) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".zip.xz"))
                    .sorted()
                    .map(n -> Records.archive("/corpus/" + n))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The folder of the test resources (target/test-classes). */
    private static Path resourcesRoot() {
        try {
            return Path.of(Corpus.class.getResource("/corpus").toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code /corpus/NAME/REST}: a corpus folder and a path inside it. */
    private static final Pattern PACKED = Pattern.compile("/corpus/([^/]+)/(.+)");

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

    /** The H200 run record written by `gpu-sanitize run` (records/h200-2026-12-02.zip.xz). */
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
