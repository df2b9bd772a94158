package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A user's suppression: every given field must match. Spec syntax (CLI {@code --suppress}, step
 * {@code suppressions}): {@code key=value;key=value}, keys {@code id}, {@code tool}, {@code kind},
 * {@code kernel} (regex), {@code message} (regex), {@code frame} (regex over function, file and
 * module of any host frame), {@code reason}.
 */
public final class PatternSuppression implements SuppressionRule {
    private final String id;
    private final Tool tool;
    private final Kind kind;
    private final Pattern kernel;
    private final Pattern message;
    private final Pattern frame;
    private final String reason;

    public PatternSuppression(
            String id, Tool tool, Kind kind, Pattern kernel, Pattern message, Pattern frame, String reason) {
        this.id = id;
        this.tool = tool;
        this.kind = kind;
        this.kernel = kernel;
        this.message = message;
        this.frame = frame;
        this.reason = reason;
    }

    /** @throws IllegalArgumentException with a one-line explanation when the spec is malformed */
    public static PatternSuppression parse(String spec) {
        String id = null;
        Tool tool = null;
        Kind kind = null;
        Pattern kernel = null;
        Pattern message = null;
        Pattern frame = null;
        String reason = null;
        List<String> parts = new ArrayList<>(List.of(spec.split(";")));
        for (String part : parts) {
            if (part.isBlank()) {
                continue;
            }
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(
                        "suppression '" + spec + "': expected key=value, got '" + part + "'");
            }
            String key = part.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            String value = part.substring(eq + 1).trim();
            switch (key) {
                case "id" -> id = nonEmpty(spec, key, value);
                case "tool" ->
                    tool = Tool.fromId(value)
                            .orElseThrow(() -> new IllegalArgumentException(
                                    "suppression '" + spec + "': unknown tool '" + value + "'"));
                case "kind" -> kind = kind(spec, value);
                case "kernel" -> kernel = pattern(spec, key, value);
                case "message" -> message = pattern(spec, key, value);
                case "frame" -> frame = pattern(spec, key, value);
                case "reason" -> reason = nonEmpty(spec, key, value);
                default ->
                    throw new IllegalArgumentException("suppression '" + spec + "': unknown key '" + key
                            + "' (use id, tool, kind, kernel, message, frame, reason)");
            }
        }
        if (tool == null && kind == null && kernel == null && message == null && frame == null) {
            throw new IllegalArgumentException(
                    "suppression '" + spec + "' matches everything: give tool, kind, kernel, message or frame");
        }
        return new PatternSuppression(
                id == null ? "user:" + spec : id,
                tool,
                kind,
                kernel,
                message,
                frame,
                reason == null ? "user suppression " + spec : reason);
    }

    private static Kind kind(String spec, String value) {
        try {
            return Kind.valueOf(value.toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("suppression '" + spec + "': unknown kind '" + value + "'");
        }
    }

    private static Pattern pattern(String spec, String key, String value) {
        try {
            return SuppressionPattern.compile(key, value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("suppression '" + spec + "': " + e.getMessage());
        }
    }

    /** An empty id or reason is an unset variable as often as a kernel is: said, not guessed. */
    private static String nonEmpty(String spec, String key, String value) {
        if (value.isEmpty()) {
            throw new IllegalArgumentException("suppression '" + spec + "': " + key + " is empty");
        }
        return value;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public String reason() {
        return reason;
    }

    @Override
    public boolean matches(Defect d, List<Defect> sameRun) {
        if (tool != null && d.tool() != tool || kind != null && d.kind() != kind) {
            return false;
        }
        if (kernel != null && (d.kernel() == null || !kernel.matcher(d.kernel()).find())) {
            return false;
        }
        if (message != null
                && (d.message() == null || !message.matcher(d.message()).find())) {
            return false;
        }
        if (frame != null) {
            for (Frame f : d.hostStack()) {
                if (f.function() != null && frame.matcher(f.function()).find()
                        || f.file() != null && frame.matcher(f.file()).find()
                        || f.module() != null && frame.matcher(f.module()).find()) {
                    return true;
                }
            }
            return false;
        }
        return true;
    }
}
