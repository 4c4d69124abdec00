package dev.rivulet.samples.pingpong;

import dev.rivulet.core.sys.Iovec;
import dev.rivulet.rdma.fabric.sys.FiAvAttr;
import dev.rivulet.rdma.fabric.sys.FiContext2;
import dev.rivulet.rdma.fabric.sys.FiCqAttr;
import dev.rivulet.rdma.fabric.sys.FiCqErrEntry;
import dev.rivulet.rdma.fabric.sys.FiDomainAttr;
import dev.rivulet.rdma.fabric.sys.FiEpAttr;
import dev.rivulet.rdma.fabric.sys.FiFabricAttr;
import dev.rivulet.rdma.fabric.sys.FiInfo;
import dev.rivulet.rdma.fabric.sys.FiMsg;
import dev.rivulet.rdma.fabric.sys.FiRxAttr;
import dev.rivulet.rdma.fabric.sys.FiTxAttr;
import dev.rivulet.rdma.fabric.sys.Fid;
import dev.rivulet.rdma.fabric.sys.FidAv;
import dev.rivulet.rdma.fabric.sys.FidCq;
import dev.rivulet.rdma.fabric.sys.FidDomain;
import dev.rivulet.rdma.fabric.sys.FidEp;
import dev.rivulet.rdma.fabric.sys.FidFabric;
import dev.rivulet.rdma.fabric.sys.FidMr;
import dev.rivulet.rdma.fabric.sys.Libfabric;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

import static dev.rivulet.rdma.fabric.sys.FiConstants.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One libfabric RDM endpoint set up as fi_pingpong sets up its own, so that the two interoperate: the same hints,
 * separate transmit and receive completion queues without wait objects, one buffer (registered where the provider's
 * {@code mr_mode} asks for it) split into a receive and a send half, and fi_pingpong's rules for posting.
 *
 * <p>Single-threaded: every call comes from the thread that opened it. Waiting means calling {@code fi_cq_read} in a
 * loop, which is also what moves data with providers whose data progress is manual ({@code tcp;ofi_rxm}): a side that
 * stops reading its queues stops its peer too.
 */
final class RdmEndpoint implements AutoCloseable {

    /** fi_pingpong's {@code PP_MAX_CTRL_MSG}: receives are never smaller, so the final {@code fin} always fits. */
    static final int MIN_BUFFER = 64;

    /** The hints fi_pingpong gives for {@code -e rdm} without {@code -m tagged}. */
    private static final long CAPS = FI_MSG;
    private static final long MODES = FI_CONTEXT | FI_CONTEXT2 | FI_MSG_PREFIX;
    private static final int MR_MODES = FI_MR_LOCAL | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_VIRT_ADDR;
    /** fi_pingpong's requested key ({@code PP_MR_KEY}); ignored by providers that choose keys themselves. */
    private static final long MR_KEY = 0xC0DE;
    private static final byte[] FIN = {'f', 'i', 'n', 0};
    private static final long PAGE = 4096;

    private final Arena arena = Arena.ofConfined();
    private final Duration stallTimeout;
    private MemorySegment info = MemorySegment.NULL;
    private MemorySegment fabric = MemorySegment.NULL;
    private MemorySegment domain = MemorySegment.NULL;
    private MemorySegment av = MemorySegment.NULL;
    private MemorySegment ep = MemorySegment.NULL;
    private MemorySegment mr = MemorySegment.NULL;
    private MemorySegment desc = MemorySegment.NULL;
    private CompletionQueue tx;
    private CompletionQueue rx;

    private long bufferSize;
    private long txPrefix;
    private long rxPrefix;
    private MemorySegment txBuffer;
    private MemorySegment rxBuffer;
    /**
     * Operation contexts: providers that ask for {@code FI_CONTEXT}/{@code FI_CONTEXT2} may write to them until the
     * completion is read, so they live as long as the endpoint; the others ignore them.
     */
    private MemorySegment txContext;
    private MemorySegment rxContext;
    private MemorySegment finContext;
    private long peer = FI_ADDR_UNSPEC;

    private RdmEndpoint(Duration stallTimeout) {
        this.stallTimeout = stallTimeout;
    }

    /**
     * Why {@code provider} cannot give fi_pingpong's RDM endpoint here (libfabric missing, or no such provider), or
     * empty when it can.
     */
    static Optional<String> unavailableReason(String provider) {
        if (!Libfabric.isAvailable()) {
            return Libfabric.unavailableReason();
        }
        MemorySegment hints = hints(provider, null, null);
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment out = tmp.allocate(ADDRESS);
            int rc = Libfabric.getinfo(Libfabric.apiVersion(), MemorySegment.NULL, MemorySegment.NULL, 0, hints, out);
            if (rc != 0) {
                return Optional.of("fi_getinfo finds no RDM endpoint with messages for provider '" + provider + "': "
                        + Libfabric.strerror(-rc));
            }
            Libfabric.freeinfo(FiInfo.of(out.get(ADDRESS, 0)));
            return Optional.empty();
        } finally {
            Libfabric.freeinfo(hints);
        }
    }

    /**
     * Opens and enables the endpoint and posts its first receive, as fi_pingpong does before it sends its name.
     *
     * @param bufferSize the size the run needs ({@link SizeList#bufferSize()}), capped here by the endpoint's
     *                   {@code max_msg_size}
     * @param server     the server's name, for a client (it becomes the hints' destination); {@code null} for a
     *                   server, which lets the provider pick its address: the first domain's, not necessarily
     *                   127.0.0.1
     */
    static RdmEndpoint open(String provider, String domainName, long bufferSize, FabricName server,
                            Duration stallTimeout) {
        Libfabric.ensureAvailable();
        RdmEndpoint e = new RdmEndpoint(stallTimeout);
        try {
            e.setUp(provider, domainName, bufferSize, server);
            e.postReceive();
            return e;
        } catch (RuntimeException failure) {
            e.close();
            throw failure;
        }
    }

    private static MemorySegment hints(String provider, String domainName, FabricName server) {
        MemorySegment hints = Libfabric.allocinfo();
        FiInfo.setCaps(hints, CAPS);
        FiInfo.setMode(hints, MODES);
        FiEpAttr.setType(FiInfo.epAttr(hints), FI_EP_RDM);
        FiDomainAttr.setMrMode(FiInfo.domainAttr(hints), MR_MODES);
        if (domainName != null) {
            FiDomainAttr.setName(FiInfo.domainAttr(hints), domainName);
        }
        FiFabricAttr.setProvName(FiInfo.fabricAttr(hints), provider);
        if (server != null) {
            FiInfo.setAddrFormat(hints, server.addrFormat());
            FiInfo.setDestAddr(hints, MemorySegment.ofArray(server.bytes())); // copied into libc memory
        }
        return hints;
    }

    private void setUp(String provider, String domainName, long wanted, FabricName server) {
        MemorySegment out = arena.allocate(ADDRESS);
        MemorySegment hints = hints(provider, domainName, server);
        try {
            check("fi_getinfo", Libfabric.getinfo(Libfabric.apiVersion(), MemorySegment.NULL, MemorySegment.NULL, 0,
                    hints, out));
        } finally {
            Libfabric.freeinfo(hints);
        }
        info = FiInfo.of(out.get(ADDRESS, 0)); // the provider's first answer, as fi_pingpong takes it

        check("fi_fabric", Libfabric.fabric(FiInfo.fabricAttr(info), out, MemorySegment.NULL));
        fabric = FidFabric.of(out.get(ADDRESS, 0));
        check("fi_domain", FidFabric.domain(fabric, info, out, MemorySegment.NULL));
        domain = FidDomain.of(out.get(ADDRESS, 0));

        allocateBuffers(wanted);

        MemorySegment cqAttr = FiCqAttr.allocate(arena);
        FiCqAttr.setFormat(cqAttr, FI_CQ_FORMAT_CONTEXT);
        FiCqAttr.setWaitObj(cqAttr, FI_WAIT_NONE); // only ever polled
        FiCqAttr.setSize(cqAttr, FiTxAttr.size(FiInfo.txAttr(info)));
        check("fi_cq_open", FidDomain.cqOpen(domain, cqAttr, out, MemorySegment.NULL));
        tx = new CompletionQueue("transmit", FidCq.of(out.get(ADDRESS, 0)));
        FiCqAttr.setSize(cqAttr, FiRxAttr.size(FiInfo.rxAttr(info)));
        check("fi_cq_open", FidDomain.cqOpen(domain, cqAttr, out, MemorySegment.NULL));
        rx = new CompletionQueue("receive", FidCq.of(out.get(ADDRESS, 0)));

        MemorySegment avAttr = FiAvAttr.allocate(arena);
        int avType = FiDomainAttr.avType(FiInfo.domainAttr(info));
        if (avType != FI_AV_UNSPEC) {
            FiAvAttr.setType(avAttr, avType);
        }
        check("fi_av_open", FidDomain.avOpen(domain, avAttr, out, MemorySegment.NULL));
        av = FidAv.of(out.get(ADDRESS, 0));

        check("fi_endpoint", FidDomain.endpoint(domain, info, out, MemorySegment.NULL));
        ep = FidEp.of(out.get(ADDRESS, 0));
        check("fi_ep_bind(av)", FidEp.bind(ep, av, 0));
        check("fi_ep_bind(tx cq)", FidEp.bind(ep, tx.cq, FI_TRANSMIT));
        check("fi_ep_bind(rx cq)", FidEp.bind(ep, rx.cq, FI_RECV));
        check("fi_enable", FidEp.enable(ep));
    }

    /**
     * fi_pingpong's {@code pp_alloc_msgs}: sends and receives of up to {@code wanted} bytes (capped by
     * {@code max_msg_size}, which is unsigned and {@code SIZE_MAX} for tcp) plus the provider's message prefix, at
     * least {@link #MIN_BUFFER}; one page-aligned block, registered once when {@code FI_MR_LOCAL} says local buffers
     * need a descriptor.
     */
    private void allocateBuffers(long wanted) {
        long maxMsg = FiEpAttr.maxMsgSize(FiInfo.epAttr(info));
        bufferSize = Long.compareUnsigned(wanted, maxMsg) > 0 ? maxMsg : wanted;
        long prefix = FiEpAttr.msgPrefixSize(FiInfo.epAttr(info));
        txPrefix = (FiTxAttr.mode(FiInfo.txAttr(info)) & FI_MSG_PREFIX) != 0 ? prefix : 0;
        rxPrefix = (FiRxAttr.mode(FiInfo.rxAttr(info)) & FI_MSG_PREFIX) != 0 ? prefix : 0;
        long rxLength = Math.max(bufferSize, MIN_BUFFER) + rxPrefix;
        long txLength = Math.max(bufferSize, MIN_BUFFER) + txPrefix;
        long txOffset = (rxLength + PAGE - 1) / PAGE * PAGE;
        MemorySegment block = arena.allocate(txOffset + txLength, PAGE); // zeroed: pages are backed now
        rxBuffer = block.asSlice(0, rxLength);
        txBuffer = block.asSlice(txOffset, txLength);
        if ((FiDomainAttr.mrMode(FiInfo.domainAttr(info)) & FI_MR_LOCAL) != 0) {
            MemorySegment out = arena.allocate(ADDRESS);
            check("fi_mr_reg", FidDomain.mrReg(domain, block, block.byteSize(), FI_SEND | FI_RECV, 0, MR_KEY, 0, out,
                    MemorySegment.NULL));
            mr = FidMr.of(out.get(ADDRESS, 0));
            desc = FidMr.desc(mr);
        }
        txContext = arena.allocate(FiContext2.LAYOUT);
        rxContext = arena.allocate(FiContext2.LAYOUT);
        finContext = arena.allocate(FiContext2.LAYOUT);
    }

    /** The endpoint's own name and address format, to send to the peer. */
    FabricName name() {
        MemorySegment length = arena.allocate(JAVA_LONG);
        int rc = FidEp.getname(ep, MemorySegment.NULL, length); // asks for the length first, as fi_pingpong
        if (rc != -FI_ETOOSMALL || length.get(JAVA_LONG, 0) <= 0) {
            check("fi_getname(length)", rc == 0 ? -FI_EOTHER : rc);
        }
        MemorySegment bytes = arena.allocate(length.get(JAVA_LONG, 0));
        check("fi_getname", FidEp.getname(ep, bytes, length));
        return new FabricName(bytes.asSlice(0, length.get(JAVA_LONG, 0)).toArray(JAVA_BYTE),
                FiInfo.addrFormat(info));
    }

    /** Puts the peer's name into the address vector; sends go there from now on. */
    void insertPeer(FabricName name) {
        MemorySegment bytes = arena.allocate(name.bytes().length);
        bytes.copyFrom(MemorySegment.ofArray(name.bytes()));
        MemorySegment address = arena.allocate(JAVA_LONG);
        int inserted = FidAv.insert(av, bytes, 1, address, 0, MemorySegment.NULL);
        if (inserted != 1) {
            check("fi_av_insert", inserted < 0 ? inserted : -FI_EOTHER);
        }
        peer = address.get(JAVA_LONG, 0);
    }

    /** Messages up to this size fit the buffers (fi_pingpong's {@code tx_size}). */
    long bufferSize() {
        return bufferSize;
    }

    /** Messages shorter than this are sent with {@code fi_inject}, as fi_pingpong does. */
    long injectSize() {
        return FiTxAttr.injectSize(FiInfo.txAttr(info));
    }

    /** The provider as libfabric names it, e.g. {@code tcp;ofi_rxm}, and its domain. */
    String description() {
        return FiFabricAttr.provName(FiInfo.fabricAttr(info)) + ", domain "
                + FiDomainAttr.name(FiInfo.domainAttr(info));
    }

    /** Where the next message to send is written (after the provider's prefix, if any). */
    MemorySegment sendPayload() {
        return txBuffer.asSlice(txPrefix);
    }

    /** Where the last received message is (after the provider's prefix, if any). */
    MemorySegment receivedPayload() {
        return rxBuffer.asSlice(rxPrefix);
    }

    /**
     * Sends {@code size} payload bytes: with {@code fi_inject} below the inject size (no completion: the buffer is
     * free on return), else with {@code fi_send}, waiting for its completion.
     */
    void send(int size) {
        long length = size + txPrefix;
        if (size < injectSize()) {
            postTransmit("fi_inject", () -> FidEp.inject(ep, txBuffer, length, peer));
            tx.completed++; // nothing will come for it
        } else {
            postTransmit("fi_send", () -> FidEp.send(ep, txBuffer, length, desc, peer, txContext));
            tx.await(tx.posted, stallTimeout);
        }
    }

    /** Waits for the posted receive to complete; the payload is then at {@link #receivedPayload()}. */
    void awaitReceive() {
        rx.await(rx.posted, stallTimeout);
    }

    /**
     * Posts the next receive, always of the full buffer (fi_pingpong posts for whatever may come next, a larger
     * size or the {@code fin}).
     */
    void postReceive() {
        long length = Math.max(bufferSize, MIN_BUFFER) + rxPrefix;
        while (true) {
            long rc = FidEp.recv(ep, rxBuffer, length, desc, FI_ADDR_UNSPEC, rxContext);
            if (rc == 0) {
                rx.posted++;
                return;
            }
            if (rc != -FI_EAGAIN) {
                check("fi_recv", rc);
            }
            // The provider is out of room: reap what completed (for about a second, as fi_pingpong), then retry.
            rx.await(rx.posted, Duration.ofSeconds(1), false);
        }
    }

    /**
     * fi_pingpong's {@code pp_finalize}: sends {@code "fin"} with {@code FI_TRANSMIT_COMPLETE}, waits for that,
     * then for the peer's {@code fin} in the receive posted last.
     */
    void finish() {
        MemorySegment.copy(MemorySegment.ofArray(FIN), 0, txBuffer, 0, FIN.length);
        MemorySegment iov = arena.allocate(Iovec.LAYOUT);
        Iovec.setBase(iov, txBuffer);
        Iovec.setLength(iov, FIN.length + txPrefix);
        MemorySegment descriptors = arena.allocate(ADDRESS);
        descriptors.set(ADDRESS, 0, desc);
        MemorySegment msg = FiMsg.allocate(arena);
        FiMsg.setMsgIov(msg, iov);
        FiMsg.setIovCount(msg, 1);
        FiMsg.setDesc(msg, descriptors);
        FiMsg.setAddr(msg, peer);
        FiMsg.setContext(msg, finContext);
        check("fi_sendmsg(fin)", FidEp.sendmsg(ep, msg, FI_TRANSMIT_COMPLETE));
        tx.posted++;
        tx.await(tx.posted, stallTimeout);
        awaitReceive();
    }

    /** Posts a transmit, reaping transmit completions while the provider says it has no room (-FI_EAGAIN). */
    private void postTransmit(String call, LongSupplier post) {
        while (true) {
            long rc = post.getAsLong();
            if (rc == 0) {
                tx.posted++;
                return;
            }
            if (rc != -FI_EAGAIN) {
                check(call, rc);
            }
            tx.await(tx.posted, stallTimeout);
        }
    }

    /** Closes in fi_pingpong's order: registration, endpoint, queues, address vector, domain, fabric. */
    @Override
    public void close() {
        closeFid(mr);
        closeFid(ep);
        if (rx != null) {
            closeFid(rx.cq);
        }
        if (tx != null) {
            closeFid(tx.cq);
        }
        closeFid(av);
        closeFid(domain);
        closeFid(fabric);
        Libfabric.freeinfo(info);
        mr = ep = av = domain = fabric = info = MemorySegment.NULL;
        rx = tx = null;
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }

    private static void closeFid(MemorySegment fid) {
        if (fid.address() != 0) {
            Fid.close(fid);
        }
    }

    private static void check(String call, long rc) {
        if (rc < 0) {
            throw new PingPongException(call + " failed: " + Libfabric.strerror((int) -rc) + " (" + rc + ")");
        }
    }

    /** A completion queue and the count of operations posted to it and completed on it. */
    private final class CompletionQueue {
        final String direction;
        final MemorySegment cq;
        /** One {@code FI_CQ_FORMAT_CONTEXT} entry per read, as fi_pingpong reads; nothing in it is needed. */
        final MemorySegment entry = arena.allocate(FiCqErrEntry.LAYOUT);
        long posted;
        long completed;

        CompletionQueue(String direction, MemorySegment cq) {
            this.direction = direction;
            this.cq = cq;
        }

        void await(long target, Duration limit) {
            await(target, limit, true);
        }

        /**
         * Reads completions until {@code target} operations have completed. {@code limit} counts from the last
         * completion; past it, a stall fails the run when {@code failOnStall}, else the wait just ends.
         */
        void await(long target, Duration limit, boolean failOnStall) {
            long last = System.nanoTime();
            while (completed < target) {
                long n = FidCq.read(cq, entry, 1);
                if (n > 0) {
                    completed += n;
                    last = System.nanoTime();
                } else if (n == -FI_EAGAIN) {
                    if (System.nanoTime() - last > limit.toNanos()) {
                        if (!failOnStall) {
                            return;
                        }
                        throw new PingPongException("no " + direction + " completion for " + limit.toSeconds()
                                + " s (" + completed + " of " + target + ")");
                    }
                    if (Thread.interrupted()) {
                        throw new PingPongException("interrupted while waiting for a " + direction
                                + " completion");
                    }
                    Thread.onSpinWait();
                } else if (n == -FI_EAVAIL) {
                    throw errorCompletion();
                } else {
                    check("fi_cq_read(" + direction + ")", n);
                }
            }
        }

        private PingPongException errorCompletion() {
            MemorySegment err = FiCqErrEntry.allocate(arena); // err_data_size 0: the provider lends its own buffer
            long rc = FidCq.readerr(cq, err, 0);
            if (rc < 0) {
                return new PingPongException("fi_cq_readerr(" + direction + ") failed: "
                        + Libfabric.strerror((int) -rc));
            }
            int errno = FiCqErrEntry.err(err);
            String providerText = FidCq.strerror(cq, FiCqErrEntry.provErrno(err), FiCqErrEntry.errData(err));
            return new PingPongException(direction + " completed with an error: " + Libfabric.strerror(errno)
                    + " (" + errno + ")" + (providerText == null ? "" : ": " + providerText));
        }
    }
}
