package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Identity of a defect: tool + kind + message + kernel + device location + first user host frame.
 * Never addresses, threads, blocks or distances, which change every run; file names only by base
 * name, because the text output strips paths and workspaces move.
 */
public final class Fingerprint {
    private Fingerprint() {}

    public static String of(
            Tool tool,
            Kind kind,
            String message,
            String kernelSimple,
            String pc,
            SourceLocation device,
            SourceLocation host) {
        return hash(key(tool, kind, message, kernelSimple, pc, device, host));
    }

    /** The fingerprint's input, readable: equal keys are the same defect. */
    public static String key(
            Tool tool,
            Kind kind,
            String message,
            String kernelSimple,
            String pc,
            SourceLocation device,
            SourceLocation host) {
        String deviceKey = device != null ? device.baseName() + ":" + device.line() : pc == null ? "" : "pc" + pc;
        String hostKey = host == null ? "" : host.baseName() + ":" + host.line() + ":" + nullToEmpty(host.function());
        return String.join(
                "|", tool.id(), kind.id(), normalise(message), nullToEmpty(kernelSimple), deviceKey, hostKey);
    }

    public static String hash(String key) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /**
     * Strips the volatile parts a headline may carry (addresses, thousands of bytes): the message as the
     * fingerprint sees it, also how a reference comparison compares accesses.
     */
    public static String normalise(String message) {
        if (message == null) {
            return "";
        }
        return message.indexOf("0x") < 0
                ? message.trim()
                : message.replaceAll("0x[0-9a-fA-F]+", "0x?").trim();
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
