package hudson.model;

// Compile-only signature stub of hudson.model.TaskListener: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/TaskListener.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: the default methods, which print as the real ones do. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.NonNull;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.jenkinsci.remoting.SerializableOnlyOverRemoting;

public interface TaskListener extends SerializableOnlyOverRemoting {
    @NonNull
    PrintStream getLogger();

    @NonNull
    default Charset getCharset() {
        return StandardCharsets.UTF_8;
    }

    @NonNull
    default PrintWriter error(String msg) {
        PrintStream out = getLogger();
        out.print("ERROR: ");
        out.println(msg);
        return new PrintWriter(new OutputStreamWriter(out, getCharset()), true);
    }

    @NonNull
    default PrintWriter error(String format, Object... args) {
        return error(String.format(format, args));
    }
}
