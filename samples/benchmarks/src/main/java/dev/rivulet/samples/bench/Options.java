package dev.rivulet.samples.bench;

import java.util.HashMap;
import java.util.Map;

/** {@code --key value} and bare {@code --flag} command-line options of the benchmark CLIs and their child JVMs. */
public final class Options {

    private Options() {
    }

    /** Parses {@code args} from index {@code from}; a flag without a value maps to "true". */
    public static Map<String, String> parse(String[] args, int from) {
        Map<String, String> m = new HashMap<>();
        for (int i = from; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument " + args[i]);
            }
            String k = args[i].substring(2);
            if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                m.put(k, args[++i]);
            } else {
                m.put(k, "true");
            }
        }
        return m;
    }
}
