package dev.durable.runtime.jdbc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Statements that differ by a literal or a guard, written once (docs/DESIGN.md, "Where the SQL lives"): one text block
 * that a reader sees whole, rendered into its variants once, when the repository is built. The text marks what
 * differs:
 * <ul>
 *   <li>a line that ends with {@code -- in: a, b} belongs to the variants named {@code a} and {@code b} only (the
 *       mark is an SQL comment, dropped from the rendered text); every other line belongs to every variant;</li>
 *   <li>{@code {name}} is a literal, written in as each variant gives it: a word or a number, never a value from a
 *       caller, and never spelled like a bind parameter ({@code :name} is always bound).</li>
 * </ul>
 * Each variant is a text of its own, so a statement planned afresh keeps one text per variant (pitfall P13).
 */
public final class StatementVariants {

    /** {@code -- in: continue, continue again} at the end of a line. */
    private static final Pattern MARK = Pattern.compile("\\s+-- in: ([a-z][a-z ]*(?:, [a-z][a-z ]*)*)$");
    /**
     * A literal: {@code {status}}. The schema's name, {@code {schema}}, is written in by {@code StatementPlanning}, and
     * a pick's limit, {@code {limit}}, by {@link LiteralLimits}.
     */
    private static final Pattern LITERAL = Pattern.compile("\\{([a-z][A-Za-z]*)}");
    /** What a literal may be: a word or a number. */
    private static final Pattern WORD = Pattern.compile("[a-z_]+|[0-9]+");

    private StatementVariants() {
    }

    /**
     * The variants of {@code text}, by name, in the order given.
     *
     * @param literals for each variant, the value of each literal of the text
     * @throws IllegalArgumentException when a mark names no variant, a variant is marked nowhere and differs by no
     *                                  literal, a literal has no value or a value that is not a word or a number
     */
    public static Map<String, String> render(String text, Map<String, Map<String, String>> literals) {
        Set<String> marked = new TreeSet<>();
        for (String line : text.split("\n", -1)) {
            Matcher mark = MARK.matcher(line);
            if (mark.find()) {
                marked.addAll(List.of(mark.group(1).split(", ")));
            }
        }
        Set<String> unknown = new TreeSet<>(marked);
        unknown.removeAll(literals.keySet());
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("lines marked for variants that are not declared: " + unknown);
        }
        Map<String, String> variants = new LinkedHashMap<>();
        literals.forEach((variant, values) -> variants.put(variant, render(text, variant, values)));
        if (Set.copyOf(variants.values()).size() != variants.size()) {
            throw new IllegalArgumentException("two variants render the same text: " + literals.keySet());
        }
        return variants;
    }

    /** The variants of {@code text} that differ by marked lines only, by name, in the order given. */
    public static Map<String, String> render(String text, String... variants) {
        Map<String, Map<String, String>> literals = new LinkedHashMap<>();
        for (String variant : variants) {
            literals.put(variant, Map.of());
        }
        return render(text, literals);
    }

    /** The variant {@code variant} of {@code text}, its literals written as {@code values} gives them. */
    private static String render(String text, String variant, Map<String, String> values) {
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            Matcher mark = MARK.matcher(line);
            if (!mark.find()) {
                lines.add(line);
            } else if (List.of(mark.group(1).split(", ")).contains(variant)) {
                lines.add(line.substring(0, mark.start()));
            }
        }
        String rendered = String.join("\n", lines);
        Matcher literal = LITERAL.matcher(rendered);
        StringBuilder out = new StringBuilder();
        Set<String> used = new TreeSet<>();
        while (literal.find()) {
            String name = literal.group(1);
            if (name.equals("schema") || name.equals("limit")) {
                continue;
            }
            String value = values.get(name);
            if (value == null || !WORD.matcher(value).matches()) {
                throw new IllegalArgumentException("variant '" + variant + "' gives literal {" + name
                        + "} no word or number: " + value);
            }
            used.add(name);
            literal.appendReplacement(out, value);
        }
        literal.appendTail(out);
        if (!used.equals(values.keySet())) {
            throw new IllegalArgumentException("variant '" + variant + "' gives literals the text does not have: "
                    + values.keySet() + ", used " + used);
        }
        return out.toString();
    }
}
