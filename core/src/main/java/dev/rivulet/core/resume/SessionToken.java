package dev.rivulet.core.resume;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * What names a session when it is resumed: 128 bits from {@link SecureRandom}, issued by the server, known only to the
 * two sides (it travels on the session's own connections). Guessing one is as hard as guessing a 128-bit key; a token
 * the server does not hold (forged, expired, from before a restart) is refused the same way.
 */
record SessionToken(long high, long low) {

    static final int BYTES = 16;

    private static final SecureRandom RANDOM = new SecureRandom();

    static SessionToken random() {
        return new SessionToken(RANDOM.nextLong(), RANDOM.nextLong());
    }

    static SessionToken read(ByteBuffer from) {
        return new SessionToken(from.getLong(), from.getLong());
    }

    void write(ByteBuffer to) {
        to.putLong(high).putLong(low);
    }

    /**
     * A name for the session that both sides know and that may be shown (it is in every {@link SessionMemory}
     * handle): 64 bits of the token's SHA-256, from which the token cannot be found.
     */
    long tag() {
        ByteBuffer b = ByteBuffer.allocate(BYTES);
        write(b);
        try {
            return ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(b.array())).getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** Never the value: a token in a log would let its reader take the session over. */
    @Override
    public String toString() {
        return "SessionToken[redacted]";
    }
}
