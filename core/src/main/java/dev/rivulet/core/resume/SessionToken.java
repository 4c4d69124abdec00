package dev.rivulet.core.resume;

import java.nio.ByteBuffer;
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

    /** Never the value: a token in a log would let its reader take the session over. */
    @Override
    public String toString() {
        return "SessionToken[redacted]";
    }
}
