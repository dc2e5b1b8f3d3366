package dev.durable.runtime.support;

import java.util.ArrayDeque;
import java.util.Deque;
import org.jspecify.annotations.Nullable;

/**
 * Finds a NUL character in JSON text, which PostgreSQL's {@code jsonb} refuses (a {@code \u0000} escape in a string
 * or a key), and names where it is as a path such as {@code $.customer.name} or {@code $.lines[2]}, so that a
 * refusal can say which field to fix.
 *
 * <p>The text is JSON a codec wrote, so it is well formed; the scan keeps only the path to the current value.
 */
public final class NulCharacters {

    private static final String ESCAPE = "\\u0000";

    private NulCharacters() {
    }

    /** The path of the first value or key holding a NUL character, or {@code null} when there is none. */
    public static @Nullable String find(String json) {
        if (!json.contains(ESCAPE)) {
            return null; // the common case: one scan for the escape, nothing else
        }
        // Each level: an object (its current key) or an array (its current index).
        Deque<Object[]> levels = new ArrayDeque<>();
        boolean expectingKey = false;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            switch (c) {
                case '{' -> {
                    levels.push(new Object[] {Boolean.TRUE, null});
                    expectingKey = true;
                }
                case '[' -> levels.push(new Object[] {Boolean.FALSE, 0});
                case '}', ']' -> levels.pop();
                case ',' -> {
                    Object[] level = levels.peek();
                    if (level != null && level[0] == Boolean.FALSE) {
                        level[1] = (Integer) level[1] + 1;
                    } else {
                        expectingKey = true;
                    }
                }
                case '"' -> {
                    int end = endOfString(json, i);
                    String text = json.substring(i + 1, end);
                    if (expectingKey) {
                        levels.peek()[1] = text;
                        expectingKey = false;
                        if (holdsNul(text)) {
                            return path(levels) + " (a key)";
                        }
                    } else if (holdsNul(text)) {
                        return path(levels);
                    }
                    i = end;
                }
                default -> {
                    // numbers, literals, ':' and white space do not change the path
                }
            }
        }
        return null;
    }

    /** The index of the quote that ends the string starting at {@code start}. */
    private static int endOfString(String json, int start) {
        for (int i = start + 1; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c == '\\') {
                i++; // skip the escaped character
            } else if (c == '"') {
                return i;
            }
        }
        return json.length();
    }

    /** Whether string content (still escaped) holds an escaped NUL, not an escaped backslash followed by u0000. */
    private static boolean holdsNul(String escaped) {
        for (int i = 0; i < escaped.length(); i++) {
            if (escaped.charAt(i) == '\\') {
                if (escaped.startsWith(ESCAPE, i)) {
                    return true;
                }
                i++;
            }
        }
        return false;
    }

    private static String path(Deque<Object[]> levels) {
        StringBuilder path = new StringBuilder("$");
        var outermostFirst = levels.descendingIterator();
        while (outermostFirst.hasNext()) {
            Object[] level = outermostFirst.next();
            if (level[0] == Boolean.TRUE) {
                path.append('.').append(level[1]);
            } else {
                path.append('[').append(level[1]).append(']');
            }
        }
        return path.toString();
    }
}
