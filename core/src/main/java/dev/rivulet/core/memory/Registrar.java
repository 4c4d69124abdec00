package dev.rivulet.core.memory;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * The provider-specific half of a {@link MemoryDomain}: turns a native segment into a provider registration.
 * Called with the domain's lock held, so implementations need no synchronisation of their own.
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
