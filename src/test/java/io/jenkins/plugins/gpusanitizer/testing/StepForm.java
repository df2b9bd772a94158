package io.jenkins.plugins.gpusanitizer.testing;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The gpuSanitize step's form (steps/GpuSanitizeStep/config.jelly) as the Snippet Generator renders it with no
 * instance, read from the file itself: JellyViewsTest binds it to the step's defaults, GpuSanitizeStepITest submits
 * it to the real generator. Issue #41: the ITest carried its own copy of what the untouched form submits, which kept
 * gpus: '0' after the form lost that default, and failed only in the real build.
 */
public final class StepForm {
    public static final Path CONFIG = Path.of(
            System.getProperty("gs.projectRoot", "."),
            "src/main/resources/io/jenkins/plugins/gpusanitizer/steps/GpuSanitizeStep/config.jelly");

    private StepForm() {}

    /** The widget of each field (f:textbox, f:number, f:checkbox, f:repeatableProperty...), in the form's order. */
    public static Map<String, Element> widgets() throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document d;
        try (InputStream in = Files.newInputStream(CONFIG)) {
            d = f.newDocumentBuilder().parse(in);
        }
        Map<String, Element> byField = new LinkedHashMap<>();
        NodeList entries = d.getElementsByTagNameNS("/lib/form", "entry");
        for (int i = 0; i < entries.getLength(); i++) {
            Element entry = (Element) entries.item(i);
            NodeList children = entry.getElementsByTagName("*");
            if (children.getLength() != 1) {
                throw new IllegalStateException(entry.getAttribute("field") + ": " + children.getLength() + " widgets");
            }
            byField.put(entry.getAttribute("field"), (Element) children.item(0));
        }
        return byField;
    }

    /**
     * What an untouched widget submits: its default= (f:textbox's and f:number's '' without one), a checkbox's
     * checked state (checkbox.jelly: {@code ${attrs.default ?: false}}); null for a list with no item added, which
     * submits nothing.
     */
    public static Object untouched(Element widget) {
        String dflt = widget.hasAttribute("default") ? widget.getAttribute("default") : null;
        return switch (widget.getLocalName()) {
            case "checkbox" -> dflt != null && !dflt.isEmpty();
            case "repeatableProperty" -> null;
            default -> dflt == null ? "" : dflt;
        };
    }

    /** The untouched form's fields as the generator receives them (Strings and Booleans), lists left out. */
    public static Map<String, Object> untouched() throws Exception {
        Map<String, Object> fields = new LinkedHashMap<>();
        for (Map.Entry<String, Element> w : widgets().entrySet()) {
            Object value = untouched(w.getValue());
            if (value != null) {
                fields.put(w.getKey(), value);
            }
        }
        return fields;
    }
}
