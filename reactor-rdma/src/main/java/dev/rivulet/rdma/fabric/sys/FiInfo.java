package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;
import dev.rivulet.core.sys.Libc;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code struct fi_info} (fabric.h): one provider/endpoint description returned by {@link Libfabric#getinfo}, and
 * the hints passed to it.
 *
 * <p><b>Ownership.</b> Never allocate an {@code fi_info} in Java: get hints from {@link Libfabric#allocinfo()}
 * (which also allocates every attribute struct) and results from {@link Libfabric#getinfo}; release both with
 * {@link Libfabric#freeinfo}, which {@code free()}s {@code src_addr}, {@code dest_addr} and the attribute
 * structs' strings. Hence {@link #setSrcAddr}/{@link #setDestAddr} store libc copies. Newer libfabric releases
 * grew some attribute structs; allocating through the library keeps their size right.
 *
 * <p>4 bytes of padding follow {@code addr_format} ({@code uint32_t} at 24, {@code src_addrlen} at 32).
 */
public final class FiInfo {

    /** {@code struct fi_info}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("next"),
            JAVA_LONG.withName("caps"),
            JAVA_LONG.withName("mode"),
            JAVA_INT.withName("addr_format"),
            MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("src_addrlen"),
            JAVA_LONG.withName("dest_addrlen"),
            ADDRESS.withName("src_addr"),
            ADDRESS.withName("dest_addr"),
            ADDRESS.withName("handle"),
            ADDRESS.withName("tx_attr"),
            ADDRESS.withName("rx_attr"),
            ADDRESS.withName("ep_attr"),
            ADDRESS.withName("domain_attr"),
            ADDRESS.withName("fabric_attr"),
            ADDRESS.withName("nic"))
            .withName("fi_info");

    /** {@code sizeof(struct fi_info)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long NEXT = Downcalls.offset(LAYOUT, "next");
    private static final long CAPS = Downcalls.offset(LAYOUT, "caps");
    private static final long MODE = Downcalls.offset(LAYOUT, "mode");
    private static final long ADDR_FORMAT = Downcalls.offset(LAYOUT, "addr_format");
    private static final long SRC_ADDRLEN = Downcalls.offset(LAYOUT, "src_addrlen");
    private static final long DEST_ADDRLEN = Downcalls.offset(LAYOUT, "dest_addrlen");
    private static final long SRC_ADDR = Downcalls.offset(LAYOUT, "src_addr");
    private static final long DEST_ADDR = Downcalls.offset(LAYOUT, "dest_addr");
    private static final long HANDLE = Downcalls.offset(LAYOUT, "handle");
    private static final long TX_ATTR = Downcalls.offset(LAYOUT, "tx_attr");
    private static final long RX_ATTR = Downcalls.offset(LAYOUT, "rx_attr");
    private static final long EP_ATTR = Downcalls.offset(LAYOUT, "ep_attr");
    private static final long DOMAIN_ATTR = Downcalls.offset(LAYOUT, "domain_attr");
    private static final long FABRIC_ATTR = Downcalls.offset(LAYOUT, "fabric_attr");
    private static final long NIC = Downcalls.offset(LAYOUT, "nic");

    private FiInfo() {
    }

    /** Sizes a {@code struct fi_info*} returned by libfabric so its fields can be read; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return Dispatch.sized(pointer, SIZE);
    }

    /** The entries of a {@code next}-linked list, starting at {@code head} (which may be NULL). */
    public static List<MemorySegment> list(MemorySegment head) {
        List<MemorySegment> entries = new ArrayList<>();
        for (MemorySegment e = of(head); e.address() != 0; e = next(e)) {
            entries.add(e);
        }
        return entries;
    }

    /** {@code fi_info.next}, sized, or NULL at the end of the list. */
    public static MemorySegment next(MemorySegment info) {
        return of(info.get(ADDRESS, NEXT));
    }

    /** {@code fi_info.caps}: {@code FI_MSG | FI_RMA | ...}; primary caps in hints are requirements. */
    public static long caps(MemorySegment info) {
        return info.get(JAVA_LONG, CAPS);
    }

    /** Sets {@code fi_info.caps}. */
    public static void setCaps(MemorySegment info, long caps) {
        info.set(JAVA_LONG, CAPS, caps);
    }

    /**
     * {@code fi_info.mode}: in hints, the mode bits the application supports ({@code FI_CONTEXT | FI_CONTEXT2});
     * in results, those the provider requires.
     */
    public static long mode(MemorySegment info) {
        return info.get(JAVA_LONG, MODE);
    }

    /** Sets {@code fi_info.mode}. */
    public static void setMode(MemorySegment info, long mode) {
        info.set(JAVA_LONG, MODE, mode);
    }

    /** {@code fi_info.addr_format}: {@code FI_SOCKADDR_IN}, {@code FI_ADDR_STR}... */
    public static int addrFormat(MemorySegment info) {
        return info.get(JAVA_INT, ADDR_FORMAT);
    }

    /** Sets {@code fi_info.addr_format}. */
    public static void setAddrFormat(MemorySegment info, int addrFormat) {
        info.set(JAVA_INT, ADDR_FORMAT, addrFormat);
    }

    /** {@code fi_info.src_addrlen}. */
    public static long srcAddrlen(MemorySegment info) {
        return info.get(JAVA_LONG, SRC_ADDRLEN);
    }

    /** {@code fi_info.dest_addrlen}. */
    public static long destAddrlen(MemorySegment info) {
        return info.get(JAVA_LONG, DEST_ADDRLEN);
    }

    /** {@code fi_info.src_addr}, sized by {@code src_addrlen}, or NULL. */
    public static MemorySegment srcAddr(MemorySegment info) {
        MemorySegment p = info.get(ADDRESS, SRC_ADDR);
        return Dispatch.sized(p, srcAddrlen(info));
    }

    /** {@code fi_info.dest_addr}, sized by {@code dest_addrlen}, or NULL. */
    public static MemorySegment destAddr(MemorySegment info) {
        MemorySegment p = info.get(ADDRESS, DEST_ADDR);
        return Dispatch.sized(p, destAddrlen(info));
    }

    /**
     * Replaces {@code src_addr}/{@code src_addrlen} with a libc copy of {@code address} (NULL clears them),
     * freeing the previous value: {@code fi_freeinfo} will {@code free()} it.
     */
    public static void setSrcAddr(MemorySegment info, MemorySegment address) {
        replaceAddress(info, SRC_ADDR, SRC_ADDRLEN, address);
    }

    /** As {@link #setSrcAddr}, for {@code dest_addr}/{@code dest_addrlen} (a client's peer address). */
    public static void setDestAddr(MemorySegment info, MemorySegment address) {
        replaceAddress(info, DEST_ADDR, DEST_ADDRLEN, address);
    }

    /** {@code fi_info.handle}: a {@code fid_t} (connection request or shared context), raw. */
    public static MemorySegment handle(MemorySegment info) {
        return info.get(ADDRESS, HANDLE);
    }

    /** {@code fi_info.tx_attr}, sized as {@link FiTxAttr}, or NULL. */
    public static MemorySegment txAttr(MemorySegment info) {
        return Dispatch.pointer(info, TX_ATTR, FiTxAttr.LAYOUT);
    }

    /** {@code fi_info.rx_attr}, sized as {@link FiRxAttr}, or NULL. */
    public static MemorySegment rxAttr(MemorySegment info) {
        return Dispatch.pointer(info, RX_ATTR, FiRxAttr.LAYOUT);
    }

    /** {@code fi_info.ep_attr}, sized as {@link FiEpAttr}, or NULL. */
    public static MemorySegment epAttr(MemorySegment info) {
        return Dispatch.pointer(info, EP_ATTR, FiEpAttr.LAYOUT);
    }

    /** {@code fi_info.domain_attr}, sized as {@link FiDomainAttr}, or NULL. */
    public static MemorySegment domainAttr(MemorySegment info) {
        return Dispatch.pointer(info, DOMAIN_ATTR, FiDomainAttr.LAYOUT);
    }

    /** {@code fi_info.fabric_attr}, sized as {@link FiFabricAttr}, or NULL. */
    public static MemorySegment fabricAttr(MemorySegment info) {
        return Dispatch.pointer(info, FABRIC_ATTR, FiFabricAttr.LAYOUT);
    }

    /** {@code fi_info.nic}: {@code struct fid_nic*}, raw (not bound). */
    public static MemorySegment nic(MemorySegment info) {
        return info.get(ADDRESS, NIC);
    }

    private static void replaceAddress(MemorySegment info, long pointer, long length, MemorySegment address) {
        Libc.free(info.get(ADDRESS, pointer));
        boolean clear = address == null || address.byteSize() == 0; // MemorySegment.NULL has size 0
        info.set(ADDRESS, pointer, clear ? MemorySegment.NULL : Libc.copyOf(address));
        info.set(JAVA_LONG, length, clear ? 0L : address.byteSize());
    }
}
