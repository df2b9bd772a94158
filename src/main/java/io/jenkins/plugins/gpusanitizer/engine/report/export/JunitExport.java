package io.jenkins.plugins.gpusanitizer.engine.report.export;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.DefectJson;
import io.jenkins.plugins.gpusanitizer.engine.report.FrameJson;
import io.jenkins.plugins.gpusanitizer.engine.report.OutputFile;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.ReasonJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * The report as JUnit XML, so any CI shows it: one suite for the phases (a failed, timed-out or
 * aborted phase fails its case), one for the defects (suppressed ones skipped, with their rule), and
 * one case for the gate's verdict (ERROR as an error, FAIL and UNSTABLE as failures).
 */
public final class JunitExport {
    private JunitExport() {}

    public static void write(Report r, Path file) throws IOException {
        OutputFile.write(file, out -> {
            try {
                // the JDK's writer, whatever StAX implementation the class path offers (Woodstox is there to read)
                XMLStreamWriter w = XMLOutputFactory.newDefaultFactory().createXMLStreamWriter(out, "UTF-8");
                w.writeStartDocument("UTF-8", "1.0");
                w.writeStartElement("testsuites");
                w.writeAttribute("name", "gpu-sanitize");
                if (r.execution() != null) {
                    phases(w, r.execution().phases());
                }
                defects(w, r.defects());
                gate(w, r);
                w.writeEndElement();
                w.writeEndDocument();
                w.close();
            } catch (XMLStreamException e) {
                throw new IOException("cannot write JUnit XML " + file + ": " + e.getMessage(), e);
            }
        });
    }

    private static void phases(XMLStreamWriter w, List<PhaseJson> phases) throws XMLStreamException {
        long failed = phases.stream().filter(p -> isFailure(p.status())).count();
        suite(w, "gpu-sanitize.phases", phases.size(), failed, 0, 0);
        for (PhaseJson p : phases) {
            w.writeStartElement("testcase");
            w.writeAttribute("classname", "gpu-sanitize.phase");
            w.writeAttribute("name", clean(p.name()));
            w.writeAttribute("time", String.format(Locale.ROOT, "%.3f", p.wallSeconds()));
            if (isFailure(p.status())) {
                w.writeStartElement("failure");
                w.writeAttribute("type", clean(p.status()));
                w.writeAttribute(
                        "message",
                        clean(p.name() + " " + p.status() + (p.exitCode() == null ? "" : ", exit " + p.exitCode())));
                w.writeCharacters(clean(String.join(" ", p.command()) + (p.note() == null ? "" : "\n" + p.note())));
                w.writeEndElement();
            }
            w.writeEndElement();
        }
        w.writeEndElement();
    }

    private static boolean isFailure(String status) {
        return List.of("failed", "timed-out", "aborted", "not-started").contains(status);
    }

    private static void defects(XMLStreamWriter w, List<DefectJson> defects) throws XMLStreamException {
        long open = defects.stream().filter(d -> !d.suppressed()).count();
        suite(w, "gpu-sanitize.defects", defects.size(), open, 0, defects.size() - open);
        for (DefectJson d : defects) {
            w.writeStartElement("testcase");
            w.writeAttribute("classname", "gpu-sanitize." + clean(d.tool()));
            w.writeAttribute(
                    "name",
                    clean(d.kind() + " in " + (d.kernel() == null ? "?" : d.kernel())
                            + (d.hostLocation() == null
                                    ? ""
                                    : " at " + d.hostLocation().file() + ":"
                                            + d.hostLocation().line())
                            + " [" + d.id() + "]"));
            if (d.suppressed()) {
                w.writeStartElement("skipped");
                w.writeAttribute(
                        "message",
                        clean("suppressed by " + d.suppressedBy().rule() + ": "
                                + d.suppressedBy().reason()));
                w.writeEndElement();
            } else {
                w.writeStartElement("failure");
                w.writeAttribute("type", clean(d.kind()));
                w.writeAttribute("message", clean(d.message() + " (" + d.records() + " records)"));
                StringBuilder body = new StringBuilder();
                if (d.deviceLocation() != null) {
                    body.append("device: ")
                            .append(d.deviceLocation().file())
                            .append(':')
                            .append(d.deviceLocation().line())
                            .append('\n');
                }
                if (d.detail() != null) {
                    body.append(d.detail()).append('\n');
                }
                for (FrameJson f : d.hostStack()) {
                    body.append("  at ").append(f.function() == null ? "??" : f.function());
                    if (f.file() != null) {
                        body.append(" (")
                                .append(f.file())
                                .append(f.line() == null ? "" : ":" + f.line())
                                .append(')');
                    }
                    body.append('\n');
                }
                w.writeCharacters(clean(body.toString()));
                w.writeEndElement();
            }
            w.writeEndElement();
        }
        w.writeEndElement();
    }

    private static void gate(XMLStreamWriter w, Report r) throws XMLStreamException {
        boolean error = r.verdict() == Verdict.ERROR;
        boolean failure = r.verdict() == Verdict.FAIL || r.verdict() == Verdict.UNSTABLE;
        suite(w, "gpu-sanitize.gate", 1, failure ? 1 : 0, error ? 1 : 0, 0);
        w.writeStartElement("testcase");
        w.writeAttribute("classname", "gpu-sanitize.gate");
        w.writeAttribute("name", "verdict");
        if (error || failure) {
            w.writeStartElement(error ? "error" : "failure");
            w.writeAttribute("type", r.verdict().name());
            String first = r.reasons().stream()
                    .filter(x -> !x.level().equals("info"))
                    .map(ReasonJson::message)
                    .findFirst()
                    .orElse(r.verdict().name());
            w.writeAttribute("message", clean(first));
            StringBuilder all = new StringBuilder();
            r.reasons()
                    .forEach(x -> all.append(x.level())
                            .append(": ")
                            .append(x.message())
                            .append('\n'));
            w.writeCharacters(clean(all.toString()));
            w.writeEndElement();
        }
        w.writeEndElement();
        w.writeEndElement();
    }

    private static void suite(XMLStreamWriter w, String name, long tests, long failures, long errors, long skipped)
            throws XMLStreamException {
        w.writeStartElement("testsuite");
        w.writeAttribute("name", name);
        w.writeAttribute("tests", Long.toString(tests));
        w.writeAttribute("failures", Long.toString(failures));
        w.writeAttribute("errors", Long.toString(errors));
        w.writeAttribute("skipped", Long.toString(skipped));
    }

    /** XML 1.0 cannot carry most control characters, even escaped: tool output may hold them. */
    static String clean(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(s.length());
        s.codePoints().forEach(c -> {
            boolean ok = c == 0x9
                    || c == 0xA
                    || c == 0xD
                    || c >= 0x20 && c <= 0xD7FF
                    || c >= 0xE000 && c <= 0xFFFD
                    || c >= 0x10000 && c <= 0x10FFFF;
            sb.appendCodePoint(ok ? c : 0xFFFD);
        });
        return sb.toString();
    }
}
