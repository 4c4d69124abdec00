package dev.rivulet.samples.pingpong;

/** A run that cannot go on: a libfabric failure, a peer that broke the protocol or went silent, corrupt data. */
public final class PingPongException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public PingPongException(String message) {
        super(message);
    }
}
