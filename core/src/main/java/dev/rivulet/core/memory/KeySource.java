package dev.rivulet.core.memory;

import java.security.DrbgParameters;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * Where remote keys come from: a NIST SP 800-90A DRBG seeded from the operating system's entropy source, so a key a
 * peer legitimately received says nothing about any other key (a non-cryptographic generator such as
 * {@code SplittableRandom} can be run forwards and backwards from one output). 0 is never handed out: providers and
 * wire formats use it for "no key".
 */
final class KeySource {

    private final SecureRandom random;

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

    /** 64 fresh random bits, never 0. */
    long next() {
        long k;
        do {
            k = random.nextLong();
        } while (k == 0);
        return k;
    }
}
