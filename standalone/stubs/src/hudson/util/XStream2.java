package hudson.util;

// Compile-only signature stub of hudson.util.XStream2: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/util/XStream2.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. The real class extends com.thoughtworks.xstream.XStream, which the standalone build does
// not have: left out (nothing here uses XStream's own methods). Never packaged (see ../README.md).

public class XStream2 {
    public XStream2() {
        throw new RuntimeException("Stub!");
    }

    @SuppressWarnings("rawtypes") // core's signature
    public void addCompatibilityAlias(String oldClassName, Class newClass) {
        throw new RuntimeException("Stub!");
    }
}
