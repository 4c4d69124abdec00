package dev.rivulet.core.internal;

import dev.rivulet.core.security.SecuritySettings;

/** What the handshake may read of {@link SecuritySettings} that users cannot: the secret without a copy. */
public interface SecurityAccess {

    /** The shared secret itself (not a copy: never hand it out), or null when none is set. */
    byte[] secret(SecuritySettings settings);
}
