package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;
import dev.rivulet.core.sys.Iovec;
import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_mr_attr} (fi_domain.h): input of {@link FidDomain#mrRegattr}, needed to register device
 * ({@code FI_HMEM}) memory with {@code iface}/{@code device}. Owned by the caller. 4 bytes of padding follow
 * {@code iface}; {@code device} is a union whose {@code int} members overlay the low half of {@code reserved}.
 */
public final class FiMrAttr {

    /** {@code struct fi_mr_attr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("mr_iov"),
            JAVA_LONG.withName("iov_count"),
            JAVA_LONG.withName("access"),
            JAVA_LONG.withName("offset"),
            JAVA_LONG.withName("requested_key"),
            ADDRESS.withName("context"),
            JAVA_LONG.withName("auth_key_size"),
            ADDRESS.withName("auth_key"),
            JAVA_INT.withName("iface"),
            MemoryLayout.paddingLayout(4),
            MemoryLayout.unionLayout(
                    JAVA_LONG.withName("reserved"),
                    JAVA_INT.withName("cuda"),
                    JAVA_INT.withName("ze"),
                    JAVA_INT.withName("neuron"),
                    JAVA_INT.withName("synapseai"))
                    .withName("device"))
            .withName("fi_mr_attr");

    /** {@code sizeof(struct fi_mr_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long MR_IOV = Downcalls.offset(LAYOUT, "mr_iov");
    private static final long IOV_COUNT = Downcalls.offset(LAYOUT, "iov_count");
    private static final long ACCESS = Downcalls.offset(LAYOUT, "access");
    private static final long OFFSET = Downcalls.offset(LAYOUT, "offset");
    private static final long REQUESTED_KEY = Downcalls.offset(LAYOUT, "requested_key");
    private static final long CONTEXT = Downcalls.offset(LAYOUT, "context");
    private static final long AUTH_KEY_SIZE = Downcalls.offset(LAYOUT, "auth_key_size");
    private static final long AUTH_KEY = Downcalls.offset(LAYOUT, "auth_key");
    private static final long IFACE = Downcalls.offset(LAYOUT, "iface");
    private static final long DEVICE = Downcalls.offset(LAYOUT, "device");

    private FiMrAttr() {
    }

    /** A zeroed instance owned by {@code arena}. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** {@code fi_mr_attr.device.cuda} (also {@code ze}, {@code neuron}, {@code synapseai}): the device ordinal. */
    public static int deviceOrdinal(MemorySegment s) {
        return s.get(JAVA_INT, DEVICE);
    }

    /** Sets the device ordinal; clears the whole 8-byte union first so no stale high half remains. */
    public static void setDeviceOrdinal(MemorySegment s, int ordinal) {
        s.set(JAVA_LONG, DEVICE, 0L);
        s.set(JAVA_INT, DEVICE, ordinal);
    }

    /** {@code fi_mr_attr.mr_iov}: {@code const struct iovec*} ({@link Iovec}). */
    public static MemorySegment mrIov(MemorySegment s) {
        return s.get(ADDRESS, MR_IOV);
    }

    /** Sets {@code fi_mr_attr.mr_iov}. */
    public static void setMrIov(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, MR_IOV, value);
    }

    /** {@code fi_mr_attr.iov_count}. */
    public static long iovCount(MemorySegment s) {
        return s.get(JAVA_LONG, IOV_COUNT);
    }

    /** Sets {@code fi_mr_attr.iov_count}. */
    public static void setIovCount(MemorySegment s, long value) {
        s.set(JAVA_LONG, IOV_COUNT, value);
    }

    /** {@code fi_mr_attr.access}: {@code FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE}. */
    public static long access(MemorySegment s) {
        return s.get(JAVA_LONG, ACCESS);
    }

    /** Sets {@code fi_mr_attr.access}. */
    public static void setAccess(MemorySegment s, long value) {
        s.set(JAVA_LONG, ACCESS, value);
    }

    /** {@code fi_mr_attr.offset}: reserved, must be 0. */
    public static long offset(MemorySegment s) {
        return s.get(JAVA_LONG, OFFSET);
    }

    /** Sets {@code fi_mr_attr.offset}. */
    public static void setOffset(MemorySegment s, long value) {
        s.set(JAVA_LONG, OFFSET, value);
    }

    /** {@code fi_mr_attr.requested_key}: ignored with {@code FI_MR_PROV_KEY}; else unique per domain. */
    public static long requestedKey(MemorySegment s) {
        return s.get(JAVA_LONG, REQUESTED_KEY);
    }

    /** Sets {@code fi_mr_attr.requested_key}. */
    public static void setRequestedKey(MemorySegment s, long value) {
        s.set(JAVA_LONG, REQUESTED_KEY, value);
    }

    /** {@code fi_mr_attr.context}. */
    public static MemorySegment context(MemorySegment s) {
        return s.get(ADDRESS, CONTEXT);
    }

    /** Sets {@code fi_mr_attr.context}. */
    public static void setContext(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, CONTEXT, value);
    }

    /** {@code fi_mr_attr.auth_key_size}. */
    public static long authKeySize(MemorySegment s) {
        return s.get(JAVA_LONG, AUTH_KEY_SIZE);
    }

    /** Sets {@code fi_mr_attr.auth_key_size}. */
    public static void setAuthKeySize(MemorySegment s, long value) {
        s.set(JAVA_LONG, AUTH_KEY_SIZE, value);
    }

    /** {@code fi_mr_attr.auth_key}. */
    public static MemorySegment authKey(MemorySegment s) {
        return s.get(ADDRESS, AUTH_KEY);
    }

    /** Sets {@code fi_mr_attr.auth_key}. */
    public static void setAuthKey(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, AUTH_KEY, value);
    }

    /** {@code fi_mr_attr.iface}: {@code enum fi_hmem_iface}. */
    public static int iface(MemorySegment s) {
        return s.get(JAVA_INT, IFACE);
    }

    /** Sets {@code fi_mr_attr.iface}. */
    public static void setIface(MemorySegment s, int value) {
        s.set(JAVA_INT, IFACE, value);
    }
}
