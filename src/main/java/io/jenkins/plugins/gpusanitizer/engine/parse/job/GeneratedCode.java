package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameOrigin;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The code torch.compile generated for a failing job: Inductor's wrapper module (whose {@code call}
 * launched the kernel) and the Triton kernel source (where a device assert fired). They live in a
 * cache on the GPU machine ({@code /tmp/torchinductor_USER/}); the runner copies the ones a phase's
 * output names into {@code PHASE/generated/}, and the analysis reads Inductor's provenance comments
 * there for the model's own line.
 */
public final class GeneratedCode {
    /** The folder beside a phase's stderr.log. */
    public static final String DIR = "generated";
    /** original path, tab, copied name; one a line. */
    public static final String INDEX = "files.tsv";

    public static final long MAX_FILE_BYTES = 1024 * 1024;
    public static final int MAX_FILES = 16;
    private static final int MAX_SCAN_LINES = 200_000;
    /** How far above the launch (or assert) line a provenance comment still belongs to it. */
    private static final int MAX_LOOKBACK = 60;

    /** FX's stack-trace comment: {@code # File: /w/model.py:15 in forward, code: return self.table[idx]}. */
    private static final Pattern FX_ORIGIN = Pattern.compile("^\\s*#\\s*File: (.+?):(\\d+) in ([^,]+), code: ?(.*)$");
    /** A Python stack trace written as comments: {@code #   File "/w/model.py", line 15, in forward}. */
    private static final Pattern TB_ORIGIN = Pattern.compile("^\\s*#\\s*File \"(.+)\", line (\\d+), in (.+)$");
    /** Where a kernel's comment block begins in the wrapper. */
    private static final Pattern KERNEL_PATH = Pattern.compile("^#\\s*kernel path: (\\S+)");

    /**
     * Copies the generated files a failure names (traceback frames, device asserts) into
     * {@code phaseDir/generated/}: only regular files under an Inductor/Triton cache directory, at most
     * {@link #MAX_FILES}, each at most {@link #MAX_FILE_BYTES}; a missing or unreadable one is skipped.
     *
     * @return the copies made
     */
    public static List<Path> copy(CudaFailure f, Path phaseDir) throws IOException {
        List<Path> copied = new ArrayList<>();
        if (f == null || f.generatedFiles().isEmpty()) {
            return copied;
        }
        Path dest = phaseDir.resolve(DIR);
        StringBuilder index = new StringBuilder();
        for (String name : f.generatedFiles()) {
            if (copied.size() >= MAX_FILES || !FrameOrigin.isCacheFile(name)) {
                continue;
            }
            Path src = Path.of(name);
            if (!src.isAbsolute()
                    || !Files.isRegularFile(src, LinkOption.NOFOLLOW_LINKS)
                    || Files.size(src) > MAX_FILE_BYTES) {
                continue;
            }
            Files.createDirectories(dest);
            Path srcName = src.getFileName();
            if (srcName == null) {
                continue; // only a root has no name, and a root is no regular file
            }
            String base = srcName.toString();
            Path target = dest.resolve(base);
            Path folder = src.getParent();
            if (Files.exists(target) && folder != null) {
                target = dest.resolve(folder.getFileName() + "-" + base);
            }
            try {
                Files.copy(src, target, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                continue;
            }
            copied.add(target);
            index.append(name).append('\t').append(target.getFileName()).append('\n');
        }
        if (!copied.isEmpty()) {
            Files.writeString(dest.resolve(INDEX), index, StandardCharsets.UTF_8);
        }
        return copied;
    }

    /**
     * The model's line for a failure in compiled code, from provenance comments in the copies: above
     * the wrapper's launch line (the innermost generated frame), else above the kernel's assert line.
     *
     * @return null when the copies have none
     */
    public SourceLocation modelLine(Path generatedDir, CudaFailure f) {
        Map<String, Path> copies = copies(generatedDir);
        if (copies.isEmpty()) {
            return null;
        }
        List<SourceLocation> frames = f.frames();
        for (int i = frames.size() - 1; i >= 0; i--) {
            SourceLocation fr = frames.get(i);
            Path copy = copies.get(fr.file());
            if (copy != null) {
                SourceLocation l = provenanceAbove(copy, fr.line());
                if (l != null) {
                    return l;
                }
                break;
            }
        }
        for (CudaFailure.DeviceAssertion a : f.assertions()) {
            Path copy = copies.get(a.file());
            if (copy != null) {
                SourceLocation l = provenanceAbove(copy, a.line());
                if (l != null) {
                    return l;
                }
            }
        }
        return null;
    }

    private static Map<String, Path> copies(Path dir) {
        Map<String, Path> out = new LinkedHashMap<>();
        Path index = dir.resolve(INDEX);
        if (!Files.isRegularFile(index)) {
            return out;
        }
        try {
            for (String l : Files.readAllLines(index, StandardCharsets.UTF_8)) {
                int tab = l.indexOf('\t');
                if (tab > 0) {
                    Path copy = dir.resolve(l.substring(tab + 1)).normalize();
                    if (copy.startsWith(dir.normalize()) && Files.isRegularFile(copy)) {
                        out.put(l.substring(0, tab), copy);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            out.clear();
        }
        return out;
    }

    /**
     * The innermost user-code origin in the comments above {@code line}, within the same kernel's
     * comment block (not past a {@code # kernel path:} line or {@link #MAX_LOOKBACK} lines).
     */
    static SourceLocation provenanceAbove(Path file, int line) {
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new java.io.InputStreamReader(
                Files.newInputStream(file),
                StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPLACE)
                        .onUnmappableCharacter(CodingErrorAction.REPLACE)))) {
            String l;
            while ((l = r.readLine()) != null && lines.size() < Math.min(line, MAX_SCAN_LINES)) {
                lines.add(l);
            }
        } catch (IOException e) {
            return null;
        }
        int from = Math.min(line, lines.size()) - 1;
        for (int i = from; i >= 0 && i >= from - MAX_LOOKBACK; i--) {
            String l = lines.get(i);
            SourceLocation origin = origin(lines, i);
            if (origin != null) {
                return origin;
            }
            if (i < from && KERNEL_PATH.matcher(l).find()) {
                return null;
            }
        }
        return null;
    }

    /** A user-code origin comment at line i (the last frame of a commented stack), or null. */
    private static SourceLocation origin(List<String> lines, int i) {
        String l = lines.get(i);
        Matcher m = FX_ORIGIN.matcher(l);
        if (m.matches() && FrameOrigin.isUserFile(m.group(1))) {
            return new SourceLocation(
                    m.group(1),
                    FrameParser.parseInt(m.group(2)),
                    m.group(3).trim(),
                    m.group(4).isBlank() ? null : m.group(4).trim());
        }
        m = TB_ORIGIN.matcher(l);
        if (m.matches() && FrameOrigin.isUserFile(m.group(1))) {
            String code = null;
            if (i + 1 < lines.size()) {
                String next = lines.get(i + 1).replaceFirst("^\\s*#", "").trim();
                if (!next.isEmpty() && !next.startsWith("File \"")) {
                    code = next;
                }
            }
            return new SourceLocation(
                    m.group(1), FrameParser.parseInt(m.group(2)), m.group(3).trim(), code);
        }
        return null;
    }
}
