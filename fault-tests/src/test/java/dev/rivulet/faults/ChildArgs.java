package dev.rivulet.faults;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.spi.TransportProvider;

/**
 * The command line both child programs share: the {@link TransportProvider} class first, then program-specific
 * positional arguments, then transport options as {@code key=value}: {@code receiveQueueDepth},
 * {@code sendQueueDepth} and {@code sendPrefetch} set those {@link TransportConfig} fields, any other key is a
 * transport option.
 */
final class ChildArgs {

    private ChildArgs() {
    }

    /** Opens the transport {@code args[0]} names with the options from {@code args[firstOption]} on. */
    static Transport openTransport(String[] args, int firstOption) throws ReflectiveOperationException {
        TransportConfig config = TransportConfig.defaults();
        for (int i = firstOption; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("option is not key=value: " + args[i]);
            }
            String key = args[i].substring(0, eq);
            String value = args[i].substring(eq + 1);
            config = switch (key) {
                case "receiveQueueDepth" -> config.receiveQueueDepth(Integer.parseInt(value));
                case "sendQueueDepth" -> config.sendQueueDepth(Integer.parseInt(value));
                case "sendPrefetch" -> config.sendPrefetch(Integer.parseInt(value));
                default -> config.option(key, value);
            };
        }
        TransportProvider provider = (TransportProvider) Class.forName(args[0]).getDeclaredConstructor()
                .newInstance();
        return provider.open(config);
    }
}
