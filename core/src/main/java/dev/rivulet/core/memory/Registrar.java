package dev.rivulet.core.memory;

import java.lang.foreign.Arena;
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

    /**
     * Native memory for {@link MemoryDomain#allocateRegion}, placed where this transport's peers reach it best (a
     * shared mapping on {@code shm://}, for one). The default is page-aligned memory of an arena of its own.
     */
    default Allocation allocate(long bytes) {
        Arena arena = Arena.ofShared();
        try {
            return new Allocation(arena.allocate(bytes, 4096), arena::close);
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    /** Memory a registrar allocated, and how to free it once its region is deregistered. */
    record Allocation(MemorySegment segment, Runnable free) {
    }
}
