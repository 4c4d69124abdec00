package dev.rivulet.core.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.DrbgParameters;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * Where remote keys come from: a NIST SP 800-90A DRBG seeded from the operating system's entropy source, so a key a
 * peer legitimately received says nothing about any other key (a non-cryptographic generator such as
 * {@code SplittableRandom} can be run forwards and backwards from one output). 0 is never handed out: providers and
 * wire formats use it for "no key".
 *
 * <p>Keys are drawn {@value #BATCH} at a time: each call into the generator hashes and allocates, and a rendezvous
 * takes a key per large message, so one call per batch keeps that off the per-message path. A drawn key is as
 * unpredictable as one drawn alone; the batch lives only on this object's heap, where every key handed out lives too.
 */
final class KeySource {

    private static final int BATCH = 64;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final SecureRandom random;
    private final byte[] batch = new byte[BATCH * Long.BYTES];
    /** The next unused key's byte offset in {@link #batch}; {@code batch.length} when all are used. */
    private int next = BATCH * Long.BYTES;

    KeySource() {
        SecureRandom r;
        try {
            r = SecureRandom.getInstance("DRBG",
                    DrbgParameters.instantiation(256, DrbgParameters.Capability.RESEED_ONLY, null));
        } catch (NoSuchAlgorithmException | IllegalArgumentException e) {
            r = new SecureRandom(); // the platform's default CSPRNG (NativePRNG on Linux)
        }
        this.random = r;
    }

    /** 64 fresh random bits, never 0. Any thread. */
    synchronized long next() {
        long k;
        do {
            if (next == batch.length) {
                random.nextBytes(batch);
                next = 0;
            }
            k = (long) LONGS.get(batch, next);
            LONGS.set(batch, next, 0L); // a key handed out is not kept here
            next += Long.BYTES;
        } while (k == 0);
        return k;
    }
}
