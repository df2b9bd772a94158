package hudson.model;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Serializable;

public interface TaskListener extends Serializable {
    PrintStream getLogger();

    default PrintWriter error(String msg) {
        throw new UnsupportedOperationException();
    }
}
