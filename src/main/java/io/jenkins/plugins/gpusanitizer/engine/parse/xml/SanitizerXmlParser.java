package io.jenkins.plugins.gpusanitizer.engine.parse.xml;

import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputFiles;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import javax.xml.stream.XMLInputFactory;

/**
 * Streams compute-sanitizer's {@code --xml --save} file with StAX (Woodstox, named here rather than
 * looked up: a ServiceLoader lookup from Jenkins' plugin class loaders is unreliable; in the plugin it
 * comes from the woodstox-core-api library plugin, so the .hpi bundles no XML parser of its own). DTDs and external
 * entities are off (the file is untrusted). A file cut off mid-record (a killed tool) keeps its
 * complete records and is flagged incomplete. The XML holds only the printed records and no summary,
 * so {@code errorsTotal} is always null here: the total comes from the text output. A large file is
 * read on several cores ({@link ParallelXmlParse}), with the same result as one read from start to end.
 */
public final class SanitizerXmlParser {
    /** Below this a file is read on one thread: threads cost more than they save. */
    private static final long PARALLEL_MIN_BYTES = 4L << 20;

    private final XMLInputFactory factory;
    private final int threads;
    private final int chunkBytes;
    private final long parallelMinBytes;

    public SanitizerXmlParser() {
        this(
                Math.min(Runtime.getRuntime().availableProcessors(), ParallelXmlParse.MAX_THREADS),
                ParallelXmlParse.CHUNK_BYTES,
                PARALLEL_MIN_BYTES);
    }

    /** With the pieces a file is cut into for reading on {@code threads} threads (tests cut them tiny). */
    SanitizerXmlParser(int threads, int chunkBytes, long parallelMinBytes) {
        factory = new com.ctc.wstx.stax.WstxInputFactory();
        factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        factory.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        factory.setProperty(XMLInputFactory.IS_COALESCING, true);
        // Woodstox stops at 1000 levels; the record reader bounds what it keeps itself (4 levels), and a
        // deeper record is read past, as the JDK's reader and Aalto did
        factory.setProperty(com.ctc.wstx.api.WstxInputProperties.P_MAX_ELEMENT_DEPTH, Integer.MAX_VALUE);
        this.threads = threads;
        this.chunkBytes = chunkBytes;
        this.parallelMinBytes = parallelMinBytes;
    }

    public SanitizerOutput parse(Path file, Tool hint, Consumer<SanitizerRecord> sink) {
        return InputFiles.read(file, in -> {
            long size = Files.size(file);
            if (size == 0) {
                throw new InputException(file, "empty file, expected compute-sanitizer XML (--xml --save)");
            }
            if (threads > 1 && size >= parallelMinBytes) {
                try (FileChannel channel = FileChannel.open(file)) {
                    return new ParallelXmlParse(factory, channel, file, hint, threads, chunkBytes).parse(sink);
                }
            }
            return parse(in, file, hint, sink);
        });
    }

    public SanitizerOutput parse(InputStream in, Path name, Tool hint, Consumer<SanitizerRecord> sink) {
        XmlDocumentScan scan = new XmlDocumentScan(name, hint);
        scan.read(factory, in, sink, 0, 0);
        return scan.output();
    }
}
