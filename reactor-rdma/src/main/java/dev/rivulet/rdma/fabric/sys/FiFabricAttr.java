package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.rivulet.core.sys.Downcalls;
import dev.rivulet.core.sys.Libc;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_fabric_attr} (fabric.h), reached through {@link FiInfo#fabricAttr} and passed to
 * {@link Libfabric#fabric}. Allocated and freed by libfabric; {@code fi_freeinfo} frees {@code name} and
 * {@code prov_name}, so the string setters store libc copies.
 *
 * <p>{@code prov_name} in hints selects a provider: {@code "tcp"} matches the layered {@code "tcp;ofi_rxm"} that
 * serves RDM endpoints over the tcp provider.
 */
public final class FiFabricAttr {

    /** {@code struct fi_fabric_attr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("fabric"),
            ADDRESS.withName("name"),
            ADDRESS.withName("prov_name"),
            JAVA_INT.withName("prov_version"),
            JAVA_INT.withName("api_version"))
            .withName("fi_fabric_attr");

    /** {@code sizeof(struct fi_fabric_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long FABRIC = Downcalls.offset(LAYOUT, "fabric");
    private static final long NAME = Downcalls.offset(LAYOUT, "name");
    private static final long PROV_NAME = Downcalls.offset(LAYOUT, "prov_name");
    private static final long PROV_VERSION = Downcalls.offset(LAYOUT, "prov_version");
    private static final long API_VERSION = Downcalls.offset(LAYOUT, "api_version");

    private FiFabricAttr() {
    }

    /** Sizes a pointer returned by libfabric to this struct so its fields can be read; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return Dispatch.sized(pointer, SIZE);
    }

    /** Replaces {@code name} with a libc copy (NULL for {@code null}), freeing the previous value. */
    public static void setName(MemorySegment s, String name) {
        replaceString(s, NAME, name);
    }

    /**
     * Replaces {@code prov_name} with a libc copy (NULL for {@code null}), freeing the previous value;
     * {@code fi_freeinfo} frees it later, so it must not come from an Arena.
     */
    public static void setProvName(MemorySegment s, String provName) {
        replaceString(s, PROV_NAME, provName);
    }

    private static void replaceString(MemorySegment s, long offset, String value) {
        Libc.free(s.get(ADDRESS, offset));
        s.set(ADDRESS, offset, value == null ? MemorySegment.NULL : Libc.strdup(value));
    }

    /** {@code fi_fabric_attr.fabric}: {@code struct fid_fabric*} to match an open fabric, else NULL. */
    public static MemorySegment fabric(MemorySegment s) {
        return s.get(ADDRESS, FABRIC);
    }

    /** Sets {@code fi_fabric_attr.fabric}. */
    public static void setFabric(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, FABRIC, value);
    }

    /** {@code fi_fabric_attr.name}: fabric name, e.g. {@code "192.0.2.0/24"}. */
    public static String name(MemorySegment s) {
        return Dispatch.string(s.get(ADDRESS, NAME));
    }

    /**
     * {@code fi_fabric_attr.prov_name}: provider name, e.g. {@code "tcp;ofi_rxm"}, {@code "sockets"}, {@code "shm"}.
     */
    public static String provName(MemorySegment s) {
        return Dispatch.string(s.get(ADDRESS, PROV_NAME));
    }

    /** {@code fi_fabric_attr.prov_version}. */
    public static int provVersion(MemorySegment s) {
        return s.get(JAVA_INT, PROV_VERSION);
    }

    /** {@code fi_fabric_attr.api_version}. */
    public static int apiVersion(MemorySegment s) {
        return s.get(JAVA_INT, API_VERSION);
    }
}
