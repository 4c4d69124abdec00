package dev.rivulet.core.engine.wire;

/**
 * The peer broke the wire protocol: a record or frame that does not parse, a position it could not have written, an
 * answer nobody asked for, a message it had no credit for. Thrown anywhere on a wire's receive path;
 * {@link WireFailures#typed} turns it into the {@code CreditProtocolException} that ends the connection. Without a
 * stack trace: a hostile peer can make a wire throw one per connection, and where it was thrown says nothing the
 * message does not.
 */
public class PeerProtocolViolation extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public PeerProtocolViolation(String message) {
        super(message, null, false, false);
    }
}
