package dev.rivulet.samples.streaming;

import dev.rivulet.core.TransportConfig;

/**
 * Command line of {@link StreamingDemo}.
 *
 * @param messages        messages to stream
 * @param size            bytes per message (at least 8: the sequence number)
 * @param transport       provider name, or {@code null} for the best available one
 * @param address         bind address, or {@code null} for the one {@link DemoAddresses} knows for the provider
 * @param consumerDelayUs time the consumer spends per message, in microseconds (0: as fast as it can)
 * @param queueDepth      receive queue depth, hence the most credits the consumer's side grants
 * @param timeoutSeconds  the run fails when it has not finished by then
 */
public record DemoOptions(long messages, int size, String transport, String address, long consumerDelayUs,
                          int queueDepth, long timeoutSeconds) {

    public static final String USAGE = """
            usage: StreamingDemo [--messages N] [--size BYTES] [--transport NAME] [--address URI]
                                 [--consumer-delay-us N] [--queue-depth N] [--timeout-s N]
              --messages N           messages to stream (default 200000)
              --size BYTES           bytes per message, >= 8 (default 256)
              --transport NAME       provider name (default: the best available one, else local)
              --address URI          server bind address (default: the demo's address for the provider)
              --consumer-delay-us N  consumer time per message in microseconds (default 20)
              --queue-depth N        receive queue depth = most credits granted at once (default 128)
              --timeout-s N          give up after N seconds (default 120)""";

    public DemoOptions {
        if (messages < 1) {
            throw new IllegalArgumentException("--messages must be >= 1");
        }
        if (size < 8) {
            throw new IllegalArgumentException("--size must be >= 8 (the sequence number takes 8 bytes)");
        }
        if (consumerDelayUs < 0) {
            throw new IllegalArgumentException("--consumer-delay-us must be >= 0");
        }
        if (queueDepth < 1) {
            throw new IllegalArgumentException("--queue-depth must be >= 1");
        }
        if (timeoutSeconds < 1) {
            throw new IllegalArgumentException("--timeout-s must be >= 1");
        }
    }

    public static DemoOptions defaults() {
        return new DemoOptions(200_000, 256, null, null, 20, TransportConfig.DEFAULT_QUEUE_DEPTH, 120);
    }

    /** Parses {@code --name value} and {@code --name=value}; throws {@link IllegalArgumentException} on errors. */
    public static DemoOptions parse(String... args) {
        DemoOptions o = defaults();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.isBlank()) {
                continue;
            }
            String name = a;
            String value = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                name = a.substring(0, eq);
                value = a.substring(eq + 1);
            }
            if (name.equals("--help") || name.equals("-h")) {
                throw new IllegalArgumentException("help");
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(name + " needs a value");
                }
                value = args[++i];
            }
            o = switch (name) {
                case "--messages" -> o.withMessages(number(name, value));
                case "--size" -> new DemoOptions(o.messages, (int) number(name, value), o.transport, o.address,
                        o.consumerDelayUs, o.queueDepth, o.timeoutSeconds);
                case "--transport" -> new DemoOptions(o.messages, o.size, value, o.address, o.consumerDelayUs,
                        o.queueDepth, o.timeoutSeconds);
                case "--address" -> o.withAddress(value);
                case "--consumer-delay-us" -> o.withConsumerDelayUs(number(name, value));
                case "--queue-depth" -> new DemoOptions(o.messages, o.size, o.transport, o.address,
                        o.consumerDelayUs, (int) number(name, value), o.timeoutSeconds);
                case "--timeout-s" -> new DemoOptions(o.messages, o.size, o.transport, o.address,
                        o.consumerDelayUs, o.queueDepth, number(name, value));
                default -> throw new IllegalArgumentException("unknown option " + name);
            };
        }
        return o;
    }

    private static long number(String name, String value) {
        try {
            long v = Long.parseLong(value.replace("_", "").trim());
            if (v > Integer.MAX_VALUE && !name.equals("--messages")) {
                throw new IllegalArgumentException(name + " is too large: " + value);
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " needs a number, got '" + value + "'");
        }
    }

    public DemoOptions withMessages(long n) {
        return new DemoOptions(n, size, transport, address, consumerDelayUs, queueDepth, timeoutSeconds);
    }

    public DemoOptions withAddress(String a) {
        return new DemoOptions(messages, size, transport, a, consumerDelayUs, queueDepth, timeoutSeconds);
    }

    public DemoOptions withConsumerDelayUs(long us) {
        return new DemoOptions(messages, size, transport, address, us, queueDepth, timeoutSeconds);
    }
}
