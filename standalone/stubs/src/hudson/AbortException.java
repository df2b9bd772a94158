package hudson;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

import java.io.IOException;

public class AbortException extends IOException {
    public AbortException() {}

    public AbortException(String message) {
        super(message);
    }
}
