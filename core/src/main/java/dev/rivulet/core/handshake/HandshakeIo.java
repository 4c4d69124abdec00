package dev.rivulet.core.handshake;

import java.io.IOException;

/**
 * The byte channel a {@link Handshake} runs on: a blocking socket (plain or TLS) whose reads give up at the
 * handshake's deadline with {@link java.net.SocketTimeoutException}, and end of stream with
 * {@link java.io.EOFException}. Implementations exist per socket kind (a {@link java.net.Socket}, a native file
 * descriptor).
 */
public interface HandshakeIo {

    /** Writes all of {@code bytes}. */
    void write(byte[] bytes) throws IOException;

    /** Fills {@code into[off, off + len)} completely, or throws. */
    void readFully(byte[] into, int off, int len) throws IOException;
}
