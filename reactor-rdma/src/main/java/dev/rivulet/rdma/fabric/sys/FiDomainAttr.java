package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;
import dev.rivulet.core.sys.Libc;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_domain_attr} (fabric.h): domain attributes, reached through {@link FiInfo#domainAttr}.
 * Allocated and freed by libfabric; {@code fi_freeinfo} frees {@code name} and {@code auth_key}, which is why
 * {@link #setName} stores a libc copy. 4 bytes of tail padding follow {@code tclass}.
 *
 * <p>In hints, {@code mr_mode} lists every {@code FI_MR_*} obligation the application can honour; the provider
 * keeps the ones it needs. {@code data_progress == FI_PROGRESS_MANUAL} means data only moves while the
 * application reads CQs, on both sides.
 */
public final class FiDomainAttr {

    /** {@code struct fi_domain_attr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("domain"),
            ADDRESS.withName("name"),
            JAVA_INT.withName("threading"),
            JAVA_INT.withName("control_progress"),
            JAVA_INT.withName("data_progress"),
            JAVA_INT.withName("resource_mgmt"),
            JAVA_INT.withName("av_type"),
            JAVA_INT.withName("mr_mode"),
            JAVA_LONG.withName("mr_key_size"),
            JAVA_LONG.withName("cq_data_size"),
            JAVA_LONG.withName("cq_cnt"),
            JAVA_LONG.withName("ep_cnt"),
            JAVA_LONG.withName("tx_ctx_cnt"),
            JAVA_LONG.withName("rx_ctx_cnt"),
            JAVA_LONG.withName("max_ep_tx_ctx"),
            JAVA_LONG.withName("max_ep_rx_ctx"),
            JAVA_LONG.withName("max_ep_stx_ctx"),
            JAVA_LONG.withName("max_ep_srx_ctx"),
            JAVA_LONG.withName("cntr_cnt"),
            JAVA_LONG.withName("mr_iov_limit"),
            JAVA_LONG.withName("caps"),
            JAVA_LONG.withName("mode"),
            ADDRESS.withName("auth_key"),
            JAVA_LONG.withName("auth_key_size"),
            JAVA_LONG.withName("max_err_data"),
            JAVA_LONG.withName("mr_cnt"),
            JAVA_INT.withName("tclass"),
            MemoryLayout.paddingLayout(4))
            .withName("fi_domain_attr");

    /** {@code sizeof(struct fi_domain_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long DOMAIN = Downcalls.offset(LAYOUT, "domain");
    private static final long NAME = Downcalls.offset(LAYOUT, "name");
    private static final long THREADING = Downcalls.offset(LAYOUT, "threading");
    private static final long CONTROL_PROGRESS = Downcalls.offset(LAYOUT, "control_progress");
    private static final long DATA_PROGRESS = Downcalls.offset(LAYOUT, "data_progress");
    private static final long RESOURCE_MGMT = Downcalls.offset(LAYOUT, "resource_mgmt");
    private static final long AV_TYPE = Downcalls.offset(LAYOUT, "av_type");
    private static final long MR_MODE = Downcalls.offset(LAYOUT, "mr_mode");
    private static final long MR_KEY_SIZE = Downcalls.offset(LAYOUT, "mr_key_size");
    private static final long CQ_DATA_SIZE = Downcalls.offset(LAYOUT, "cq_data_size");
    private static final long CQ_CNT = Downcalls.offset(LAYOUT, "cq_cnt");
    private static final long EP_CNT = Downcalls.offset(LAYOUT, "ep_cnt");
    private static final long TX_CTX_CNT = Downcalls.offset(LAYOUT, "tx_ctx_cnt");
    private static final long RX_CTX_CNT = Downcalls.offset(LAYOUT, "rx_ctx_cnt");
    private static final long MAX_EP_TX_CTX = Downcalls.offset(LAYOUT, "max_ep_tx_ctx");
    private static final long MAX_EP_RX_CTX = Downcalls.offset(LAYOUT, "max_ep_rx_ctx");
    private static final long MAX_EP_STX_CTX = Downcalls.offset(LAYOUT, "max_ep_stx_ctx");
    private static final long MAX_EP_SRX_CTX = Downcalls.offset(LAYOUT, "max_ep_srx_ctx");
    private static final long CNTR_CNT = Downcalls.offset(LAYOUT, "cntr_cnt");
    private static final long MR_IOV_LIMIT = Downcalls.offset(LAYOUT, "mr_iov_limit");
    private static final long CAPS = Downcalls.offset(LAYOUT, "caps");
    private static final long MODE = Downcalls.offset(LAYOUT, "mode");
    private static final long AUTH_KEY = Downcalls.offset(LAYOUT, "auth_key");
    private static final long AUTH_KEY_SIZE = Downcalls.offset(LAYOUT, "auth_key_size");
    private static final long MAX_ERR_DATA = Downcalls.offset(LAYOUT, "max_err_data");
    private static final long MR_CNT = Downcalls.offset(LAYOUT, "mr_cnt");
    private static final long TCLASS = Downcalls.offset(LAYOUT, "tclass");

    private FiDomainAttr() {
    }

    /** Sizes a pointer returned by libfabric to this struct so its fields can be read; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return Dispatch.sized(pointer, SIZE);
    }

    /**
     * Replaces {@code name} with a libc copy of {@code name} (NULL for {@code null}), freeing the previous value:
     * {@code fi_freeinfo} will {@code free()} it, so it must not come from an Arena.
     */
    public static void setName(MemorySegment s, String name) {
        Libc.free(s.get(ADDRESS, NAME));
        s.set(ADDRESS, NAME, name == null ? MemorySegment.NULL : Libc.strdup(name));
    }

    /** {@code fi_domain_attr.domain}: {@code struct fid_domain*} to match an open domain, else NULL. */
    public static MemorySegment domain(MemorySegment s) {
        return s.get(ADDRESS, DOMAIN);
    }

    /** Sets {@code fi_domain_attr.domain}. */
    public static void setDomain(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, DOMAIN, value);
    }

    /** {@code fi_domain_attr.name}: domain name, e.g. {@code "eth0"} or {@code "shm"}. */
    public static String name(MemorySegment s) {
        return Dispatch.string(s.get(ADDRESS, NAME));
    }

    /** {@code fi_domain_attr.threading}: {@code enum fi_threading}. */
    public static int threading(MemorySegment s) {
        return s.get(JAVA_INT, THREADING);
    }

    /** Sets {@code fi_domain_attr.threading}. */
    public static void setThreading(MemorySegment s, int value) {
        s.set(JAVA_INT, THREADING, value);
    }

    /** {@code fi_domain_attr.control_progress}: {@code enum fi_progress}. */
    public static int controlProgress(MemorySegment s) {
        return s.get(JAVA_INT, CONTROL_PROGRESS);
    }

    /** Sets {@code fi_domain_attr.control_progress}. */
    public static void setControlProgress(MemorySegment s, int value) {
        s.set(JAVA_INT, CONTROL_PROGRESS, value);
    }

    /** {@code fi_domain_attr.data_progress}: {@code enum fi_progress}. */
    public static int dataProgress(MemorySegment s) {
        return s.get(JAVA_INT, DATA_PROGRESS);
    }

    /** Sets {@code fi_domain_attr.data_progress}. */
    public static void setDataProgress(MemorySegment s, int value) {
        s.set(JAVA_INT, DATA_PROGRESS, value);
    }

    /** {@code fi_domain_attr.resource_mgmt}: {@code enum fi_resource_mgmt}. */
    public static int resourceMgmt(MemorySegment s) {
        return s.get(JAVA_INT, RESOURCE_MGMT);
    }

    /** Sets {@code fi_domain_attr.resource_mgmt}. */
    public static void setResourceMgmt(MemorySegment s, int value) {
        s.set(JAVA_INT, RESOURCE_MGMT, value);
    }

    /** {@code fi_domain_attr.av_type}: {@code enum fi_av_type}. */
    public static int avType(MemorySegment s) {
        return s.get(JAVA_INT, AV_TYPE);
    }

    /** Sets {@code fi_domain_attr.av_type}. */
    public static void setAvType(MemorySegment s, int value) {
        s.set(JAVA_INT, AV_TYPE, value);
    }

    /** {@code fi_domain_attr.mr_mode}: {@code FI_MR_*} bits. */
    public static int mrMode(MemorySegment s) {
        return s.get(JAVA_INT, MR_MODE);
    }

    /** Sets {@code fi_domain_attr.mr_mode}. */
    public static void setMrMode(MemorySegment s, int value) {
        s.set(JAVA_INT, MR_MODE, value);
    }

    /** {@code fi_domain_attr.mr_key_size}. */
    public static long mrKeySize(MemorySegment s) {
        return s.get(JAVA_LONG, MR_KEY_SIZE);
    }

    /** {@code fi_domain_attr.cq_data_size}: bytes of remote CQ data a transfer may carry (0 = none). */
    public static long cqDataSize(MemorySegment s) {
        return s.get(JAVA_LONG, CQ_DATA_SIZE);
    }

    /** {@code fi_domain_attr.cq_cnt}. */
    public static long cqCnt(MemorySegment s) {
        return s.get(JAVA_LONG, CQ_CNT);
    }

    /** {@code fi_domain_attr.ep_cnt}. */
    public static long epCnt(MemorySegment s) {
        return s.get(JAVA_LONG, EP_CNT);
    }

    /** {@code fi_domain_attr.tx_ctx_cnt}. */
    public static long txCtxCnt(MemorySegment s) {
        return s.get(JAVA_LONG, TX_CTX_CNT);
    }

    /** {@code fi_domain_attr.rx_ctx_cnt}. */
    public static long rxCtxCnt(MemorySegment s) {
        return s.get(JAVA_LONG, RX_CTX_CNT);
    }

    /** {@code fi_domain_attr.max_ep_tx_ctx}. */
    public static long maxEpTxCtx(MemorySegment s) {
        return s.get(JAVA_LONG, MAX_EP_TX_CTX);
    }

    /** {@code fi_domain_attr.max_ep_rx_ctx}. */
    public static long maxEpRxCtx(MemorySegment s) {
        return s.get(JAVA_LONG, MAX_EP_RX_CTX);
    }

    /** {@code fi_domain_attr.max_ep_stx_ctx}. */
    public static long maxEpStxCtx(MemorySegment s) {
        return s.get(JAVA_LONG, MAX_EP_STX_CTX);
    }

    /** {@code fi_domain_attr.max_ep_srx_ctx}. */
    public static long maxEpSrxCtx(MemorySegment s) {
        return s.get(JAVA_LONG, MAX_EP_SRX_CTX);
    }

    /** {@code fi_domain_attr.cntr_cnt}. */
    public static long cntrCnt(MemorySegment s) {
        return s.get(JAVA_LONG, CNTR_CNT);
    }

    /** {@code fi_domain_attr.mr_iov_limit}. */
    public static long mrIovLimit(MemorySegment s) {
        return s.get(JAVA_LONG, MR_IOV_LIMIT);
    }

    /** {@code fi_domain_attr.caps}: domain-level capabilities ({@code FI_LOCAL_COMM}, {@code FI_REMOTE_COMM}...). */
    public static long caps(MemorySegment s) {
        return s.get(JAVA_LONG, CAPS);
    }

    /** Sets {@code fi_domain_attr.caps}. */
    public static void setCaps(MemorySegment s, long value) {
        s.set(JAVA_LONG, CAPS, value);
    }

    /** {@code fi_domain_attr.mode}. */
    public static long mode(MemorySegment s) {
        return s.get(JAVA_LONG, MODE);
    }

    /** Sets {@code fi_domain_attr.mode}. */
    public static void setMode(MemorySegment s, long value) {
        s.set(JAVA_LONG, MODE, value);
    }

    /** {@code fi_domain_attr.auth_key}: freed by {@code fi_freeinfo}. */
    public static MemorySegment authKey(MemorySegment s) {
        return s.get(ADDRESS, AUTH_KEY);
    }

    /** {@code fi_domain_attr.auth_key_size}. */
    public static long authKeySize(MemorySegment s) {
        return s.get(JAVA_LONG, AUTH_KEY_SIZE);
    }

    /** {@code fi_domain_attr.max_err_data}: largest provider error data {@code fi_cq_readerr} may return. */
    public static long maxErrData(MemorySegment s) {
        return s.get(JAVA_LONG, MAX_ERR_DATA);
    }

    /** {@code fi_domain_attr.mr_cnt}. */
    public static long mrCnt(MemorySegment s) {
        return s.get(JAVA_LONG, MR_CNT);
    }

    /** {@code fi_domain_attr.tclass}. */
    public static int tclass(MemorySegment s) {
        return s.get(JAVA_INT, TCLASS);
    }

    /** Sets {@code fi_domain_attr.tclass}. */
    public static void setTclass(MemorySegment s, int value) {
        s.set(JAVA_INT, TCLASS, value);
    }
}
