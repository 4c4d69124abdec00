package dev.rivulet.core.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code struct sockaddr_storage} (128 bytes, 8-byte aligned): room for any socket address, used where the kernel
 * writes one back (accept, getsockname). Only {@code ss_family} is a real field; the rest is opaque padding.
 */
public final class SockaddrStorage {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_SHORT.withName("ss_family"),
            MemoryLayout.paddingLayout(126)
    ).withByteAlignment(8).withName("sockaddr_storage");

    private static final long FAMILY_OFFSET = LAYOUT.byteOffset(groupElement("ss_family"));
    // A handle on the 2-byte field alone (not on the 128-byte struct), so it also reads the family of a
    // sockaddr_in (16 bytes) or sockaddr_in6 (28): every sockaddr starts with it.
    private static final VarHandle FAMILY = JAVA_SHORT.varHandle();

    private SockaddrStorage() {
    }

    /** The address family of any sockaddr (storage, in, in6). */
    public static int family(MemorySegment s) {
        return Short.toUnsignedInt((short) FAMILY.get(s, FAMILY_OFFSET));
    }
}
