package dev.rivulet.rdma.fabric.sys;

import static dev.rivulet.rdma.fabric.sys.FiConstants.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import org.junit.jupiter.api.Assumptions;

/**
 * Test fixture: one provider's fabric and domain with two RDM endpoints A and B in the same process, each with
 * its own AV, CQ ({@code FI_CQ_FORMAT_DATA}, {@code FI_WAIT_NONE}) and a registered 8 KiB buffer, each side's AV
 * holding the other's name. Everything is opened through the binding exactly as a transport would, honouring the
 * provider's {@code mr_mode}; {@link #close()} releases it in dependency order.
 *
 * <p>Completions are collected by context pointer while polling <em>both</em> CQs, since providers with manual
 * data progress ({@code tcp;ofi_rxm}) only move data, for sender and target alike, inside CQ reads. Every wait is
 * bounded.
 */
final class LoopbackPair implements AutoCloseable {

    static final long BUFFER_SIZE = 8192;
    static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final int CONTEXT_SLOTS = 64;

    /** What a CQ reported for one operation. {@code err} is 0 for a successful completion. */
    record Completion(long flags, long len, long data, int err, int provErrno, String errText, String provText) {
        boolean ok() {
            return err == 0;
        }
    }

    /** One endpoint with its CQ, AV, registered buffer and the {@code fi_addr_t} of the peer in its AV. */
    static final class Side {
        final String label;
        MemorySegment ep = MemorySegment.NULL;
        MemorySegment cq = MemorySegment.NULL;
        MemorySegment av = MemorySegment.NULL;
        MemorySegment name = MemorySegment.NULL;
        MemorySegment buffer = MemorySegment.NULL;
        MemorySegment mr = MemorySegment.NULL;
        long peer = FI_ADDR_NOTAVAIL;

        Side(String label) {
            this.label = label;
        }
    }

    final String provider;
    final Arena arena = Arena.ofConfined();
    final Side a = new Side("A");
    final Side b = new Side("B");
    MemorySegment info = MemorySegment.NULL;
    int mrMode;

    private MemorySegment hints = MemorySegment.NULL;
    private MemorySegment fabric = MemorySegment.NULL;
    private MemorySegment domain = MemorySegment.NULL;
    private final Deque<MemorySegment> toClose = new ArrayDeque<>();
    private final MemorySegment entries = FiCqDataEntry.allocateArray(arena, 16);
    private final MemorySegment errEntry = FiCqErrEntry.allocate(arena);
    private final MemorySegment contexts = arena.allocate(FiContext2.LAYOUT, CONTEXT_SLOTS);
    private int nextContext;
    private final Map<Long, Completion> completions = new HashMap<>();

    private LoopbackPair(String provider) {
        this.provider = provider;
    }

    /**
     * Opens the pair, or aborts the test (skipped) when {@code fi_getinfo} offers no such provider for these
     * capabilities.
     */
    static LoopbackPair open(String provider, long caps) {
        LoopbackPair pair = new LoopbackPair(provider);
        try {
            pair.openAll(caps);
            return pair;
        } catch (Throwable t) {
            pair.close();
            throw t;
        }
    }

    private void openAll(long caps) {
        hints = Libfabric.allocinfo();
        FiInfo.setCaps(hints, caps);
        // Offer every mode and mr_mode obligation the fixture honours; the provider keeps those it needs.
        FiInfo.setMode(hints, FI_CONTEXT | FI_CONTEXT2);
        FiEpAttr.setType(FiInfo.epAttr(hints), FI_EP_RDM);
        FiDomainAttr.setMrMode(FiInfo.domainAttr(hints),
                FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT);
        FiFabricAttr.setProvName(FiInfo.fabricAttr(hints), provider); // libc copy: fi_freeinfo frees it

        MemorySegment out = arena.allocate(ADDRESS);
        int rc = Libfabric.getinfo(Libfabric.apiVersion(), MemorySegment.NULL, MemorySegment.NULL, 0, hints, out);
        Assumptions.assumeFalse(rc == -FI_ENODATA,
                () -> "fi_getinfo offers no '" + provider + "' provider for caps "
                      + Libfabric.tostr(caps, FI_TYPE_CAPS));
        LibfabricException.check("fi_getinfo(" + provider + ")", rc);
        info = FiInfo.of(out.get(ADDRESS, 0));
        mrMode = FiDomainAttr.mrMode(FiInfo.domainAttr(info));

        LibfabricException.check("fi_fabric", Libfabric.fabric(FiInfo.fabricAttr(info), out, MemorySegment.NULL));
        fabric = FidFabric.of(out.get(ADDRESS, 0));
        LibfabricException.check("fi_domain", FidFabric.domain(fabric, info, out, MemorySegment.NULL));
        domain = FidDomain.of(out.get(ADDRESS, 0));

        openEndpoint(a);
        openEndpoint(b);
        a.peer = insert(a, b.name);
        b.peer = insert(b, a.name);
        register(a, 1);
        register(b, 2);
    }

    private void openEndpoint(Side s) {
        MemorySegment out = arena.allocate(ADDRESS);

        MemorySegment avAttr = FiAvAttr.allocate(arena);
        FiAvAttr.setType(avAttr, FiDomainAttr.avType(FiInfo.domainAttr(info)));
        FiAvAttr.setCount(avAttr, 4);
        LibfabricException.check("fi_av_open", FidDomain.avOpen(domain, avAttr, out, MemorySegment.NULL));
        s.av = FidAv.of(out.get(ADDRESS, 0));
        toClose.push(s.av);

        MemorySegment cqAttr = FiCqAttr.allocate(arena);
        FiCqAttr.setFormat(cqAttr, FI_CQ_FORMAT_DATA);
        FiCqAttr.setSize(cqAttr, 64);
        FiCqAttr.setWaitObj(cqAttr, FI_WAIT_NONE);
        LibfabricException.check("fi_cq_open", FidDomain.cqOpen(domain, cqAttr, out, MemorySegment.NULL));
        s.cq = FidCq.of(out.get(ADDRESS, 0));
        toClose.push(s.cq);

        LibfabricException.check("fi_endpoint", FidDomain.endpoint(domain, info, out, MemorySegment.NULL));
        s.ep = FidEp.of(out.get(ADDRESS, 0));
        toClose.push(s.ep); // closed before its CQ and AV
        LibfabricException.check("fi_ep_bind(av)", FidEp.bind(s.ep, s.av, 0));
        LibfabricException.check("fi_ep_bind(cq)", FidEp.bind(s.ep, s.cq, FI_TRANSMIT | FI_RECV));
        LibfabricException.check("fi_enable", FidEp.enable(s.ep));

        // Ask for the size first: a NULL buffer must give -FI_ETOOSMALL and the needed length.
        MemorySegment len = arena.allocate(JAVA_LONG);
        int rc = FidEp.getname(s.ep, MemorySegment.NULL, len);
        assertThat(rc).as("fi_getname(NULL)").isEqualTo(-FI_ETOOSMALL);
        s.name = arena.allocate(len.get(JAVA_LONG, 0));
        LibfabricException.check("fi_getname", FidEp.getname(s.ep, s.name, len));
        s.name = s.name.asSlice(0, len.get(JAVA_LONG, 0));
    }

    private long insert(Side s, MemorySegment peerName) {
        MemorySegment fiAddr = arena.allocate(JAVA_LONG);
        int inserted = FidAv.insert(s.av, peerName, 1, fiAddr, 0, MemorySegment.NULL);
        assertThat(inserted).as("fi_av_insert on %s", s.label).isEqualTo(1);
        return fiAddr.get(JAVA_LONG, 0);
    }

    private void register(Side s, long requestedKey) {
        // Arena memory is zeroed, i.e. touched, at allocation: FI_MR_ALLOCATED holds.
        s.buffer = arena.allocate(BUFFER_SIZE, 4096);
        MemorySegment out = arena.allocate(ADDRESS);
        long access = FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
        // Without FI_MR_PROV_KEY the key is ours and must be unique in the domain.
        LibfabricException.check("fi_mr_reg", FidDomain.mrReg(domain, s.buffer, BUFFER_SIZE, access, 0,
                requestedKey, 0, out, MemorySegment.NULL));
        s.mr = FidMr.of(out.get(ADDRESS, 0));
        toClose.push(s.mr); // closed before the endpoint it may be bound to
        if ((mrMode & FI_MR_ENDPOINT) != 0) {
            LibfabricException.check("fi_mr_bind", FidMr.bind(s.mr, s.ep, 0));
            LibfabricException.check("fi_mr_enable", FidMr.enable(s.mr));
        }
    }

    /** A CQ opened by {@link #openCq}, with the wait object the provider actually chose (written back into the attr). */
    record WaitableCq(MemorySegment cq, int waitObj) {
    }

    /**
     * An extra CQ on the pair's domain, bound to nothing, asking for {@code waitObj}, closed with the pair; NULL
     * when the provider refuses that wait object.
     */
    WaitableCq openCq(int waitObj) {
        MemorySegment attr = FiCqAttr.allocate(arena);
        FiCqAttr.setFormat(attr, FI_CQ_FORMAT_DATA);
        FiCqAttr.setSize(attr, 16);
        FiCqAttr.setWaitObj(attr, waitObj);
        MemorySegment out = arena.allocate(ADDRESS);
        int rc = FidDomain.cqOpen(domain, attr, out, MemorySegment.NULL);
        if (rc != 0) {
            return null;
        }
        MemorySegment cq = FidCq.of(out.get(ADDRESS, 0));
        toClose.push(cq);
        return new WaitableCq(cq, FiCqAttr.waitObj(attr));
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** {@code desc} for a local buffer of this side: required with {@code FI_MR_LOCAL}, NULL otherwise. */
    MemorySegment desc(Side s) {
        return (mrMode & FI_MR_LOCAL) != 0 ? FidMr.desc(s.mr) : MemorySegment.NULL;
    }

    /** The RMA address of {@code offset} in a side's buffer: its virtual address with FI_MR_VIRT_ADDR, else offset. */
    long remoteAddress(Side s, long offset) {
        return (mrMode & FI_MR_VIRT_ADDR) != 0 ? s.buffer.address() + offset : offset;
    }

    long remoteKey(Side s) {
        return FidMr.key(s.mr);
    }

    /** A fresh {@code fi_context2} slot; it lives as long as the pair's arena, beyond any operation. */
    MemorySegment context() {
        assertThat(nextContext).as("context slots").isLessThan(CONTEXT_SLOTS);
        return contexts.asSlice(FiContext2.SIZE * nextContext++, FiContext2.SIZE);
    }

    /** Posts with {@code post} until it is accepted, reading both CQs on {@code -FI_EAGAIN}. Returns the final rc. */
    long post(String what, LongSupplier post) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            long rc = post.getAsLong();
            if (rc != -FI_EAGAIN) {
                return rc;
            }
            assertThat(System.nanoTime()).as("%s still -FI_EAGAIN after %s", what, TIMEOUT).isLessThan(deadline);
            progress();
        }
    }

    /** Reads both CQs until the operation posted with {@code context} has completed (successfully or not). */
    Completion await(String what, MemorySegment context) {
        Completion c = awaitAtMost(context, TIMEOUT);
        assertThat(c).as("no completion for %s within %s", what, TIMEOUT).isNotNull();
        return c;
    }

    /** As {@link #await}, returning {@code null} if nothing completed within {@code timeout}. */
    Completion awaitAtMost(MemorySegment context, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!completions.containsKey(context.address())) {
            if (System.nanoTime() > deadline) {
                return null;
            }
            progress();
            Thread.onSpinWait();
        }
        return completions.remove(context.address());
    }

    /** Reads both CQs until {@code condition} holds (e.g. RMA data visible at the target). */
    boolean progressUntil(Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            progress();
            Thread.onSpinWait();
        }
        return true;
    }

    /** One {@code fi_cq_read} on each CQ; error entries are decoded with {@code fi_cq_readerr}. */
    void progress() {
        poll(a);
        poll(b);
    }

    private void poll(Side s) {
        long n = FidCq.read(s.cq, entries, 16);
        if (n > 0) {
            for (int i = 0; i < n; i++) {
                completions.put(FiCqDataEntry.opContext(entries, i).address(), new Completion(
                        FiCqDataEntry.flags(entries, i), FiCqDataEntry.len(entries, i), FiCqDataEntry.data(entries, i),
                        0, 0, null, null));
            }
        } else if (n == -FI_EAVAIL) {
            errEntry.fill((byte) 0); // err_data_size 0: the provider lends its own err_data buffer
            LibfabricException.check("fi_cq_readerr", FidCq.readerr(s.cq, errEntry, 0));
            int err = FiCqErrEntry.err(errEntry);
            int provErrno = FiCqErrEntry.provErrno(errEntry);
            completions.put(FiCqErrEntry.opContext(errEntry).address(), new Completion(
                    FiCqErrEntry.flags(errEntry), FiCqErrEntry.len(errEntry), FiCqErrEntry.data(errEntry), err,
                    provErrno, Libfabric.strerror(err),
                    FidCq.strerror(s.cq, provErrno, FiCqErrEntry.errData(errEntry))));
        } else if (n != -FI_EAGAIN) {
            LibfabricException.check("fi_cq_read on " + s.label, n);
        }
    }

    /** A short description of what the provider returned, for the test report. */
    String describe() {
        MemorySegment d = FiInfo.domainAttr(info);
        return String.format("%s: fabric=%s domain=%s addr_format=%d name=%dB mode=%s mr_mode=%s "
                             + "data_progress=%s inject_size=%d cq_data_size=%d caps=%s",
                FiFabricAttr.provName(FiInfo.fabricAttr(info)), FiFabricAttr.name(FiInfo.fabricAttr(info)),
                FiDomainAttr.name(d), FiInfo.addrFormat(info), a.name.byteSize(),
                Libfabric.tostr(FiInfo.mode(info), FI_TYPE_MODE).strip(),
                Libfabric.tostr(mrMode, FI_TYPE_MR_MODE).strip(),
                Libfabric.tostr(FiDomainAttr.dataProgress(d), FI_TYPE_PROGRESS).strip(),
                FiTxAttr.injectSize(FiInfo.txAttr(info)), FiDomainAttr.cqDataSize(d),
                Libfabric.tostr(FiInfo.caps(info), FI_TYPE_CAPS).strip());
    }

    // ------------------------------------------------------------------------------------------------ teardown

    /** Closes MRs, endpoints, CQs and AVs (reverse order of opening), then domain and fabric, then frees the infos. */
    @Override
    public void close() {
        StringBuilder failures = new StringBuilder();
        while (!toClose.isEmpty()) {
            closeFid(toClose.pop(), failures);
        }
        closeFid(domain, failures);
        closeFid(fabric, failures);
        Libfabric.freeinfo(info);
        Libfabric.freeinfo(hints);
        arena.close(); // only now: providers may touch buffers and contexts until their endpoints are closed
        assertThat(failures.toString()).as("fi_close failures").isEmpty();
    }

    private static void closeFid(MemorySegment fid, StringBuilder failures) {
        if (fid.address() != 0) {
            int rc = Fid.close(fid);
            if (rc != 0) {
                failures.append("fi_close(class ").append(Fid.fclass(fid)).append(") = ").append(rc).append("; ");
            }
        }
    }
}
