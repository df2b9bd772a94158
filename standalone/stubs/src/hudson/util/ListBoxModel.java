package hudson.util;

// Compile-only signature stub of hudson.util.ListBoxModel: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/util/ListBoxModel.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies do what the real ones do (the list and its options: the unit tests read the choices of the
// doFill methods); writeTo/generateResponse are left out. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.NonNull;
import java.util.ArrayList;
import org.kohsuke.stapler.HttpResponse;

public class ListBoxModel extends ArrayList<ListBoxModel.Option> implements HttpResponse {
    public static final class Option {
        public String name;
        public String value;
        public boolean selected;

        public Option(@NonNull String name, @NonNull String value) {
            this(name, value, false);
        }

        public Option(@NonNull String name) {
            this(name, name, false);
        }

        public Option(@NonNull String name, @NonNull String value, boolean selected) {
            this.name = name;
            this.value = value;
            this.selected = selected;
        }
    }

    public ListBoxModel() {}

    public ListBoxModel(int initialCapacity) {
        super(initialCapacity);
    }

    public ListBoxModel(java.util.Collection<Option> c) {
        super(c);
    }

    public ListBoxModel(Option... data) {
        for (Option o : data) {
            add(o);
        }
    }

    public void add(@NonNull hudson.model.ModelObject usedForDisplayName, @NonNull String value) {
        add(usedForDisplayName.getDisplayName(), value);
    }

    public void add(@NonNull String displayName, @NonNull String value) {
        add(new Option(displayName, value));
    }
}
