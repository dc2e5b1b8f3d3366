package dev.durable;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public API of {@code durable-core} is exactly the types listed under "Public API" in {@code docs/DESIGN.md}:
 * a type that becomes public must be documented there (or made package-private), and a listed type must exist and be
 * public. No public type lets an internal one out through a public or protected member. Checked on the compiled
 * classes of this module. The runtime's internal packages ({@code dev.durable.runtime.<concern>}) are not part of the
 * surface, though their classes may be public: {@code ArchitectureTest} keeps everything but the runtime out of them,
 * and here a type of theirs counts as one user code cannot reach.
 */
class PublicApiTest {

    private static final Path DESIGN = Path.of("").toAbsolutePath().getParent().resolve("docs/DESIGN.md");
    /** A row of the table: {@code | `dev.durable.runtime` | `DurableEngine` | what it is for |}. */
    /** A class of an internal package of the runtime: {@code dev.durable.runtime.queue.QueueOwner}. */
    private static final Pattern INTERNAL = Pattern.compile("dev\\.durable\\.runtime\\.[a-z]\\w*\\..+");
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z.]+)` \\| `([A-Z]\\w*)` \\|", Pattern.MULTILINE);

    @Test
    void thePublicTypesAreExactlyThoseTheDesignLists() throws Exception {
        Set<String> compiled = new TreeSet<>();
        for (Class<?> type : compiledTopLevelTypes()) {
            if (Modifier.isPublic(type.getModifiers())) {
                compiled.add(type.getName());
            }
        }
        Set<String> documented = documentedTypes();

        Set<String> undocumented = new TreeSet<>(compiled);
        undocumented.removeAll(documented);
        Set<String> notPublic = new TreeSet<>(documented);
        notPublic.removeAll(compiled);
        assertThat(undocumented).as("public types that docs/DESIGN.md, \"Public API\", does not list (document them,"
                + " or make them package-private)").isEmpty();
        assertThat(notPublic).as("types docs/DESIGN.md, \"Public API\", lists that are not public in durable-core")
                .isEmpty();
    }

    @Test
    void noPublicMemberExposesAnInternalType() throws Exception {
        List<String> leaks = new ArrayList<>();
        for (Class<?> type : compiledTopLevelTypes()) {
            if (Modifier.isPublic(type.getModifiers())) {
                collectLeaks(type, leaks);
            }
        }
        assertThat(leaks).as("public members whose signatures name a durable type user code cannot reach").isEmpty();
    }

    private static void collectLeaks(Class<?> type, List<String> leaks) {
        List<Member> members = new ArrayList<>();
        members.addAll(List.of(type.getDeclaredConstructors()));
        members.addAll(List.of(type.getDeclaredMethods()));
        members.addAll(List.of(type.getDeclaredFields()));
        for (Member member : members) {
            int modifiers = member.getModifiers();
            if (member.isSynthetic() || !(Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers))) {
                continue;
            }
            List<Type> named = new ArrayList<>();
            if (member instanceof Executable executable) {
                named.addAll(List.of(executable.getGenericParameterTypes()));
                named.addAll(List.of(executable.getGenericExceptionTypes()));
            }
            if (member instanceof Method method) {
                named.add(method.getGenericReturnType());
            }
            if (member instanceof Field field) {
                named.add(field.getGenericType());
            }
            for (Type t : named) {
                for (Class<?> mentioned : classesIn(t)) {
                    if (mentioned.getName().startsWith("dev.durable.") && !reachable(mentioned)) {
                        leaks.add(type.getName() + "." + describe(member) + " names " + mentioned.getName());
                    }
                }
            }
        }
        for (Class<?> nested : type.getDeclaredClasses()) {
            if (Modifier.isPublic(nested.getModifiers()) || Modifier.isProtected(nested.getModifiers())) {
                collectLeaks(nested, leaks);
            }
        }
    }

    /** Whether user code can name {@code type}: it and every class enclosing it are public, outside the internals. */
    private static boolean reachable(Class<?> type) {
        if (internal(type.getName())) {
            return false;
        }
        for (Class<?> c = type; c != null; c = c.getEnclosingClass()) {
            if (!Modifier.isPublic(c.getModifiers())) {
                return false;
            }
        }
        return true;
    }

    private static List<Class<?>> classesIn(Type type) {
        List<Class<?>> classes = new ArrayList<>();
        if (type instanceof Class<?> c) {
            classes.add(c.isArray() ? c.getComponentType() : c);
        } else if (type instanceof ParameterizedType parameterized) {
            classes.addAll(classesIn(parameterized.getRawType()));
            for (Type argument : parameterized.getActualTypeArguments()) {
                classes.addAll(classesIn(argument));
            }
        } else if (type instanceof GenericArrayType array) {
            classes.addAll(classesIn(array.getGenericComponentType()));
        } else if (type instanceof WildcardType wildcard) {
            Stream.concat(Stream.of(wildcard.getUpperBounds()), Stream.of(wildcard.getLowerBounds()))
                    .forEach(bound -> classes.addAll(classesIn(bound)));
        } else if (type instanceof TypeVariable<?> variable) {
            for (Type bound : variable.getBounds()) {
                if (bound instanceof Class<?> || bound instanceof ParameterizedType) {
                    classes.addAll(classesIn(bound));
                }
            }
        }
        return classes;
    }

    private static String describe(Member member) {
        return member instanceof Constructor<?> ? "<init>" : member.getName() + (member instanceof Field ? "" : "()");
    }

    /** Whether the class named {@code name} lives in an internal package of the runtime, below its public types. */
    private static boolean internal(String name) {
        return INTERNAL.matcher(name).matches();
    }

    /**
     * The top-level types compiled from this module's main sources (package-info and module-info aside), those of the
     * runtime's internal packages aside.
     */
    private static List<Class<?>> compiledTopLevelTypes() throws IOException, URISyntaxException,
            ClassNotFoundException {
        Path classes = Path.of(DurableClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertThat(classes).as("durable-core's compiled classes").isDirectory();
        List<String> names;
        try (Stream<Path> walk = Files.walk(classes)) {
            names = walk.map(file -> classes.relativize(file).toString().replace('\\', '/'))
                    .filter(file -> file.endsWith(".class") && !file.contains("$"))
                    .filter(file -> !file.endsWith("package-info.class") && !file.endsWith("module-info.class"))
                    .map(file -> file.substring(0, file.length() - ".class".length()).replace('/', '.'))
                    .filter(name -> !internal(name))
                    .sorted()
                    .toList();
        }
        assertThat(names).as("compiled classes under " + classes).hasSizeGreaterThan(20);
        List<Class<?>> types = new ArrayList<>();
        for (String name : names) {
            types.add(Class.forName(name, false, PublicApiTest.class.getClassLoader()));
        }
        return types;
    }

    /** The {@code package.Type} of every row of the section "Public API" of docs/DESIGN.md. */
    private static Set<String> documentedTypes() throws IOException {
        String design = Files.readString(DESIGN);
        int start = design.indexOf("\n## Public API\n");
        assertThat(start).as("docs/DESIGN.md has a section \"Public API\"").isNotNegative();
        int end = design.indexOf("\n## ", start + 1);
        String section = design.substring(start, end < 0 ? design.length() : end);
        Set<String> documented = new TreeSet<>();
        Matcher row = ROW.matcher(section);
        while (row.find()) {
            assertThat(documented.add(row.group(1) + "." + row.group(2))).as("listed once: " + row.group(2)).isTrue();
        }
        assertThat(documented).as("the types listed in docs/DESIGN.md, \"Public API\"").isNotEmpty();
        return documented;
    }
}
