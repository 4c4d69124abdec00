package dev.rivulet.core.memory;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * The provider-specific half of a {@link MemoryDomain}: turns a native segment into a provider registration.
 * Called with the domain's lock held, so implementations need no synchronisation of their own.
 *
 * <p>It is called twice over for memory a peer may reach: once for the region with {@link Access#LOCAL} rights (what
 * local posts need), and once per {@link Grant} for exactly the granted window with exactly the granted remote
 * rights, so that where the provider enforces keys it enforces the window and rights of the grant. Implementations
 * must register exactly the rights asked for: a remote write or atomic right must not imply remote read where the
 * provider can tell them apart.
 */
public interface Registrar {

    /**
     * Registers {@code segment} for {@code access}.
     *
     * @param proposedKey a random key the domain proposes; providers that choose their own keys
     *                    ({@code FI_MR_PROV_KEY}, verbs rkeys) ignore it
     */
    NativeRegistration register(MemorySegment segment, Set<Access> access, long proposedKey);
}
