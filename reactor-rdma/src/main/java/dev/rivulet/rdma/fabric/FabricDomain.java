package dev.rivulet.rdma.fabric;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.NativeRegistration;
import dev.rivulet.core.sys.Iovec;
import dev.rivulet.rdma.fabric.sys.FiAvAttr;
import dev.rivulet.rdma.fabric.sys.FiCqAttr;
import dev.rivulet.rdma.fabric.sys.FiDomainAttr;
import dev.rivulet.rdma.fabric.sys.FiEpAttr;
import dev.rivulet.rdma.fabric.sys.FiFabricAttr;
import dev.rivulet.rdma.fabric.sys.FiInfo;
import dev.rivulet.rdma.fabric.sys.FiMrAttr;
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
import dev.rivulet.rdma.fabric.sys.LibfabricException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;

import static dev.rivulet.rdma.fabric.sys.FiConstants.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One provider's fabric, domain and address vector, shared by all endpoints of a transport, plus memory
 * registration honouring the provider's {@code mr_mode}. Setup and teardown only; the data path is
 * {@link FabricWire}. The fabric, domain and AV are closed once the transport closed them and the last of its
 * endpoints is closed in libfabric, which for {@code shm} can come later (see {@link SameProcessShm}).
 */
final class FabricDomain implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FabricDomain.class);

    /** Capabilities Rivulet asks for: messages with remote CQ data, RMA both ways, atomics where offered. */
    static final long WANTED_CAPS = FI_MSG | FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE | FI_REMOTE_READ
            | FI_REMOTE_WRITE | FI_SEND | FI_RECV;
    /** mr_mode obligations this transport can honour (what verbs and efa require included). */
    static final int OFFERED_MR_MODE = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;

    final String provider;
    final Arena arena = Arena.ofShared();
    final MemorySegment info;
    final MemorySegment fabric;
    final MemorySegment domain;
    final MemorySegment av;
    final int mrMode;
    final long mrKeyMask;
    final long injectSize;
    final boolean atomics;
    final boolean autoProgress;
    /** Largest single transfer the endpoint accepts ({@code ep_attr->max_msg_size}). */
    final long maxMsgSize;
    /**
     * Whether targets enforce keys on one-sided operations. shm copies with process_vm_writev and checks nothing;
     * the others check (tcp reports violations only for FI_DELIVERY_COMPLETE operations, which this transport uses).
     */
    final boolean checksRemoteKeys;
    /**
     * shm borrows the memory of peers in this process: its endpoints are closed in libfabric only when no endpoint
     * of the process can reach them any more ({@link SameProcessShm}).
     */
    final boolean sharesPeerMappings;
    /**
     * Whether the provider's connection does not survive a one-sided operation the target refused: tcp;ofi_rxm
     * drops it (the next operations on it fail with ENOTCONN / EPIPE until it reconnects on its own), and verbs and
     * efa reliable connections go to an error state. sockets answers the refusal and carries on.
     */
    final boolean refusalDropsConnection;
    /**
     * Whether completions carry the sender's {@code fi_addr_t} ({@code FI_SOURCE}): an endpoint then drops every
     * message that does not come from its peer, and posts its buffer again. Without it, any sender that reaches the
     * endpoint's address would be received.
     *
     * <p>Not {@code FI_DIRECTED_RECV}: libfabric 1.17's sockets matches a message whose sender is not in the AV
     * ({@code FI_ADDR_NOTAVAIL}, which equals {@code FI_ADDR_UNSPEC}) to any directed receive
     * ({@code sock_rx_entry.c}), so a stranger's messages were delivered; and tcp;ofi_rxm keeps a stranger's messages
     * that match no directed receive as unexpected messages for the endpoint's life, one 16 KiB receive buffer
     * each (100 000 messages of 1 KiB: +1.6 GiB resident here). A receive for any source that drops the stranger's
     * message empties that queue as fast as the endpoint polls.
     */
    final boolean reportsSource;
    /** {@code fi_info->addr_format}: the form of every endpoint name of this domain. */
    final int addrFormat;
    /**
     * Whether the provider reported {@code FI_HMEM}: only then does it honour the {@code iface} of a registration,
     * so only then is device memory registered as device memory ({@link HmemRegistration}).
     */
    final boolean hmem;
    /**
     * Whether an endpoint that may still wait for the answer to a read must have its connections cut before it is
     * closed in libfabric ({@link TcpConnectionCut}): tcp before libfabric 1.18.
     */
    final boolean cutsHalfReadsBeforeClose;
    /** Device memory declared for registration, by start address (see {@link #declareDevice}). */
    private final ConcurrentSkipListMap<Long, DeviceRange> deviceRanges = new ConcurrentSkipListMap<>();
    /**
     * The name of a scratch endpoint opened and closed at open: the form of this domain's names, against which a
     * peer's name is checked before anything is opened for that peer.
     */
    private byte[] sampleName;
    /** Endpoints opened so far, scratch ones included (tests count what a peer made this domain open). */
    private long opened;

    /** Endpoints the transport has not let go of yet. */
    private final Set<EndpointHandles> held = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Endpoints not yet closed in libfabric (let go but waiting included): the AV and domain outlive them. */
    private int openInLibfabric;
    private boolean closeRequested;
    private boolean closed;

    private FabricDomain(String provider, MemorySegment info, MemorySegment fabric, MemorySegment domain,
                         MemorySegment av, boolean atomics) {
        this.provider = provider;
        this.info = info;
        this.fabric = fabric;
        this.domain = domain;
        this.av = av;
        MemorySegment d = FiInfo.domainAttr(info);
        this.mrMode = FiDomainAttr.mrMode(d);
        long keyBytes = FiDomainAttr.mrKeySize(d);
        this.mrKeyMask = keyBytes >= 8 || keyBytes == 0 ? -1L : (1L << (8 * keyBytes)) - 1;
        this.injectSize = FiTxAttr.injectSize(FiInfo.txAttr(info));
        this.atomics = atomics;
        this.autoProgress = FiDomainAttr.dataProgress(d) == FI_PROGRESS_AUTO;
        this.maxMsgSize = FiEpAttr.maxMsgSize(FiInfo.epAttr(info));
        this.checksRemoteKeys = !"shm".equals(provider);
        this.sharesPeerMappings = "shm".equals(provider);
        this.refusalDropsConnection = !"sockets".equals(provider) && !"shm".equals(provider);
        this.addrFormat = FiInfo.addrFormat(info);
        this.reportsSource = (FiInfo.caps(info) & FI_SOURCE) != 0;
        this.hmem = (FiInfo.caps(info) & FI_HMEM) != 0;
        this.cutsHalfReadsBeforeClose = TcpConnectionCut.needed(provider);
    }

    /** Endpoints opened and not yet let go of. */
    synchronized int heldCount() {
        return held.size();
    }

    /** Endpoints opened since the domain was, let go of or not. */
    synchronized long openedCount() {
        return opened;
    }

    /** The name of an endpoint of this domain, for the form of names ({@link #sampleName}). */
    byte[] sampleName() {
        return sampleName;
    }

    /** Opens and closes a scratch endpoint to learn the form of this domain's names. */
    private void learnNameForm() {
        EndpointHandles h = openEndpoint(16, false);
        sampleName = h.name();
        closeEndpoint(h, FI_ADDR_NOTAVAIL, () -> { });
    }

    /**
     * Opens {@code provider} (e.g. {@code tcp}); the error lists what {@code fi_getinfo} offered instead.
     * {@code dataProgress} is the {@code fi_domain_attr.data_progress} hint: {@code FI_PROGRESS_UNSPEC} takes the
     * provider's own model, {@code FI_PROGRESS_MANUAL} asks for data to move only inside this transport's
     * {@code fi_cq_read} calls (providers that only progress automatically still match). {@code queueSize} is the
     * most operations, and the most receives, an endpoint of the transport keeps posted ({@link #sizeQueues}).
     */
    static FabricDomain open(String provider, int dataProgress, int queueSize) {
        Libfabric.ensureAvailable();
        // Source addresses first: every arrival then says who sent it, so a stranger who learned an endpoint's
        // address cannot feed its receive(). Then without atomics, then without either.
        MemorySegment info = null;
        boolean atomics = false;
        long[] attempts = {WANTED_CAPS | FI_SOURCE, WANTED_CAPS, (WANTED_CAPS & ~FI_ATOMIC) | FI_SOURCE,
                WANTED_CAPS & ~FI_ATOMIC};
        if (HmemRegistration.worthAsking(provider)) {
            // Device memory first, where a CUDA driver is present: each combination with FI_HMEM, then without.
            long[] withHmem = new long[attempts.length * 2];
            for (int i = 0; i < attempts.length; i++) {
                withHmem[i] = attempts[i] | FI_HMEM;
                withHmem[attempts.length + i] = attempts[i];
            }
            attempts = withHmem;
        }
        for (long caps : attempts) {
            info = getinfo(provider, caps, dataProgress);
            if (info != null) {
                atomics = (caps & FI_ATOMIC) != 0;
                break;
            }
        }
        if (info == null) {
            // shm, for one, refuses FI_PROGRESS_AUTO: say so rather than list shm among the offers.
            String progress = dataProgress == FI_PROGRESS_UNSPEC ? ""
                    : " and " + (dataProgress == FI_PROGRESS_MANUAL ? "manual" : "automatic")
                    + " data progress (fabric.dataProgress)";
            throw new TransportUnavailableException("libfabric offers no '" + provider
                    + "' provider with RDM endpoints, messages and RMA" + progress + "; it offers: "
                    + String.join(", ", offeredProviders()));
        }
        sizeQueues(info, queueSize);
        MemorySegment fabric = MemorySegment.NULL;
        MemorySegment domain = MemorySegment.NULL;
        FabricDomain d;
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment out = tmp.allocate(ADDRESS);
            check("fi_fabric", Libfabric.fabric(FiInfo.fabricAttr(info), out, MemorySegment.NULL));
            fabric = FidFabric.of(out.get(ADDRESS, 0));
            check("fi_domain", FidFabric.domain(fabric, info, out, MemorySegment.NULL));
            domain = FidDomain.of(out.get(ADDRESS, 0));
            MemorySegment avAttr = FiAvAttr.allocate(tmp);
            FiAvAttr.setType(avAttr, FiDomainAttr.avType(FiInfo.domainAttr(info)) == FI_AV_UNSPEC ? FI_AV_TABLE
                    : FiDomainAttr.avType(FiInfo.domainAttr(info)));
            FiAvAttr.setCount(avAttr, 256);
            check("fi_av_open", FidDomain.avOpen(domain, avAttr, out, MemorySegment.NULL));
            MemorySegment av = FidAv.of(out.get(ADDRESS, 0));
            if ((FiDomainAttr.mrMode(FiInfo.domainAttr(info)) & FI_MR_ENDPOINT) != 0) {
                throw new TransportUnavailableException("provider '" + provider
                        + "' requires FI_MR_ENDPOINT, which this transport does not implement yet");
            }
            if ("shm".equals(provider)) {
                ShmJanitor.sweepDead();
                ShmJanitor.removeOwnAtExit();
            }
            d = new FabricDomain(provider, info, fabric, domain, av, atomics);
        } catch (RuntimeException e) {
            if (domain.address() != 0) {
                Fid.close(domain);
            }
            if (fabric.address() != 0) {
                Fid.close(fabric);
            }
            Libfabric.freeinfo(info);
            throw e;
        }
        try {
            d.learnNameForm();
        } catch (RuntimeException e) {
            d.close();
            throw e;
        }
        return d;
    }

    /**
     * Sizes every endpoint's transmit and receive queues ({@code tx_attr->size}, {@code rx_attr->size}) to what one
     * endpoint posts at most, {@code queueSize}, where the provider offers more: rxm, for one, otherwise keeps
     * 2048-entry receive queues and send credits per endpoint, and shm sizes its region by them. A full queue
     * answers a post with {@code -FI_EAGAIN}, which the endpoint retries.
     */
    private static void sizeQueues(MemorySegment info, int queueSize) {
        MemorySegment tx = FiInfo.txAttr(info);
        MemorySegment rx = FiInfo.rxAttr(info);
        if (FiTxAttr.size(tx) > queueSize) {
            FiTxAttr.setSize(tx, queueSize);
        }
        if (FiRxAttr.size(rx) > queueSize) {
            FiRxAttr.setSize(rx, queueSize);
        }
    }

    private static MemorySegment getinfo(String provider, long caps, int dataProgress) {
        MemorySegment hints = Libfabric.allocinfo();
        try (Arena tmp = Arena.ofConfined()) {
            FiInfo.setCaps(hints, caps);
            FiInfo.setMode(hints, FI_CONTEXT | FI_CONTEXT2);
            FiEpAttr.setType(FiInfo.epAttr(hints), FI_EP_RDM);
            MemorySegment d = FiInfo.domainAttr(hints);
            // FI_MR_HMEM: device buffers are registered (and their descriptors passed), which the device path does.
            FiDomainAttr.setMrMode(d, (caps & FI_HMEM) != 0 ? OFFERED_MR_MODE | FI_MR_HMEM : OFFERED_MR_MODE);
            FiDomainAttr.setThreading(d, FI_THREAD_SAFE);
            FiDomainAttr.setDataProgress(d, dataProgress);
            FiFabricAttr.setProvName(FiInfo.fabricAttr(hints), provider);
            MemorySegment out = tmp.allocate(ADDRESS);
            int rc = Libfabric.getinfo(Libfabric.apiVersion(), MemorySegment.NULL, MemorySegment.NULL, 0, hints, out);
            if (rc == -FI_ENODATA) {
                return null;
            }
            check("fi_getinfo(" + provider + ")", rc);
            MemorySegment first = FiInfo.of(out.get(ADDRESS, 0));
            // Keep only the first entry: the provider's preferred fit.
            MemorySegment dup = Libfabric.dupinfo(first);
            Libfabric.freeinfo(first);
            return FiInfo.of(dup);
        } finally {
            Libfabric.freeinfo(hints);
        }
    }

    /** Provider names {@code fi_getinfo} offers for RDM endpoints with messages, for error messages. */
    static List<String> offeredProviders() {
        List<String> names = new ArrayList<>();
        MemorySegment hints = Libfabric.allocinfo();
        try (Arena tmp = Arena.ofConfined()) {
            FiInfo.setCaps(hints, FI_MSG);
            FiEpAttr.setType(FiInfo.epAttr(hints), FI_EP_RDM);
            FiDomainAttr.setMrMode(FiInfo.domainAttr(hints), OFFERED_MR_MODE);
            MemorySegment out = tmp.allocate(ADDRESS);
            if (Libfabric.getinfo(Libfabric.apiVersion(), MemorySegment.NULL, MemorySegment.NULL, 0, hints, out) == 0) {
                MemorySegment head = FiInfo.of(out.get(ADDRESS, 0));
                for (MemorySegment i = head; i.address() != 0; i = FiInfo.next(i)) {
                    String n = FiFabricAttr.provName(FiInfo.fabricAttr(i));
                    if (!names.contains(n)) {
                        names.add(n);
                    }
                }
                Libfabric.freeinfo(head);
            }
        } finally {
            Libfabric.freeinfo(hints);
        }
        return names;
    }

    /**
     * Opens an RDM endpoint with its own completion queue, bound to the shared AV, enabled. {@code sleepOnFd}: ask
     * for an {@code FI_WAIT_FD} queue (where the provider has one), so an idle progress thread can sleep in epoll on
     * it; otherwise the queue is {@code FI_WAIT_NONE}, cheaper to poll (tcp's progress then polls its sockets with
     * {@code poll} instead of keeping an epoll set behind the wait fd), and an idle thread sleeps on a timer.
     */
    EndpointHandles openEndpoint(int cqSize, boolean sleepOnFd) {
        // Counted among the open endpoints before the domain is touched, so that a close() racing with this (a
        // listener setting a connection up while its transport is disposed) waits for it instead of freeing the
        // domain under the provider's calls below; refused once the close was asked for.
        synchronized (this) {
            if (closeRequested) {
                throw new ResourceClosedException("the " + provider + " domain is closed: no new endpoint",
                        provider, 0, null, null);
            }
            openInLibfabric++;
        }
        boolean made = false;
        try {
            EndpointHandles h = openEndpointNow(cqSize, sleepOnFd);
            made = true;
            return h;
        } finally {
            if (!made) {
                closedInLibfabric(); // the reservation: the last one out closes the domain if asked to
            }
        }
    }

    private EndpointHandles openEndpointNow(int cqSize, boolean sleepOnFd) {
        MemorySegment cq = MemorySegment.NULL;
        MemorySegment ep = MemorySegment.NULL;
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment out = tmp.allocate(ADDRESS);
            MemorySegment cqAttr = FiCqAttr.allocate(tmp);
            FiCqAttr.setFormat(cqAttr, FI_CQ_FORMAT_DATA);
            FiCqAttr.setSize(cqAttr, cqSize);
            // A file descriptor to sleep on where the provider offers one (tcp, sockets); shm only offers
            // FI_WAIT_YIELD, whose blocking read never returns, so its queues are polled.
            boolean fd = sleepOnFd && !"shm".equals(provider);
            FiCqAttr.setWaitObj(cqAttr, fd ? FI_WAIT_FD : FI_WAIT_NONE);
            int rc = FidDomain.cqOpen(domain, cqAttr, out, MemorySegment.NULL);
            if (rc != 0 && fd) {
                fd = false;
                FiCqAttr.setWaitObj(cqAttr, FI_WAIT_NONE);
                rc = FidDomain.cqOpen(domain, cqAttr, out, MemorySegment.NULL);
            }
            check("fi_cq_open", rc);
            cq = out.get(ADDRESS, 0);
            int waitFd = -1;
            if (fd && FiCqAttr.waitObj(cqAttr) == FI_WAIT_FD) {
                MemorySegment fdOut = tmp.allocate(java.lang.foreign.ValueLayout.JAVA_INT);
                if (Fid.control(FidCq.of(cq), FI_GETWAIT, fdOut) == 0) {
                    waitFd = fdOut.get(java.lang.foreign.ValueLayout.JAVA_INT, 0);
                }
            }
            check("fi_endpoint", FidDomain.endpoint(domain, info, out, MemorySegment.NULL));
            ep = out.get(ADDRESS, 0);
            check("fi_ep_bind(av)", FidEp.bind(ep, av, 0));
            check("fi_ep_bind(cq)", FidEp.bind(ep, cq, FI_TRANSMIT | FI_RECV));
            check("fi_enable", FidEp.enable(ep));
            MemorySegment len = tmp.allocate(JAVA_LONG);
            len.set(JAVA_LONG, 0, 256);
            MemorySegment name = tmp.allocate(256);
            check("fi_getname", FidEp.getname(ep, name, len));
            byte[] bytes = name.asSlice(0, len.get(JAVA_LONG, 0)).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            EndpointHandles h = new EndpointHandles(FidEp.of(ep), FidCq.of(cq), bytes, waitFd);
            synchronized (this) {
                held.add(h);
                opened++;
            }
            if (sharesPeerMappings) {
                SameProcessShm.PROCESS.opened(bytes);
            }
            return h;
        } catch (RuntimeException e) {
            if (ep.address() != 0) {
                Fid.close(ep);
            }
            if (cq.address() != 0) {
                Fid.close(cq);
            }
            throw e;
        }
    }

    /**
     * Endpoint {@code h} will talk to {@code peerName}: inserts it into the AV and returns its {@code fi_addr_t}.
     * On shm, a peer of this process is kept open in libfabric while {@code h} is held, and one that is already
     * closed is refused ({@link SameProcessShm#peerKnown}).
     */
    long connectPeer(EndpointHandles h, byte[] peerName) {
        if (sharesPeerMappings) {
            SameProcessShm.PROCESS.peerKnown(h.name(), peerName);
        }
        return insert(peerName);
    }

    /** {@link #closeEndpoint(EndpointHandles, long, boolean, Runnable)} of an endpoint that posted no reads. */
    void closeEndpoint(EndpointHandles h, long peer, Runnable afterClose) {
        closeEndpoint(h, peer, false, afterClose);
    }

    /**
     * Lets go of an endpoint (once; later calls do nothing): {@code peer} ({@code FI_ADDR_NOTAVAIL} for none) leaves
     * the AV and the endpoint and its queue are closed in libfabric, at once or, on shm while another endpoint of
     * this process can still reach it, later; {@code afterClose} runs after that close (it frees what the provider
     * may use until then). {@code readsPosted}: reads posted on the endpoint may still wait for their answers, which
     * on tcp before libfabric 1.18 must end before the close ({@link TcpConnectionCut}); what the endpoint's queue
     * holds is discarded either way. On shm the caller has withdrawn its posted receives first and never polls the
     * endpoint again.
     */
    void closeEndpoint(EndpointHandles h, long peer, boolean readsPosted, Runnable afterClose) {
        synchronized (this) {
            if (!held.remove(h)) {
                return;
            }
        }
        if (!sharesPeerMappings) {
            if (readsPosted && cutsHalfReadsBeforeClose) {
                TcpConnectionCut.cut(h.name(), peer == FI_ADDR_NOTAVAIL ? null : lookup(peer), h.cq());
            }
            closeInLibfabric(h);
            if (peer != FI_ADDR_NOTAVAIL) {
                remove(peer);
            }
            afterClose.run();
            closedInLibfabric();
            return;
        }
        // The peer leaves the AV first, while this endpoint still exists: it must not name a region it may outlive.
        if (peer != FI_ADDR_NOTAVAIL) {
            remove(peer);
        }
        SameProcessShm.PROCESS.retire(h.name(), () -> {
            closeInLibfabric(h);
            afterClose.run();
            closedInLibfabric();
        });
    }

    private static void closeInLibfabric(EndpointHandles h) {
        int rc = Fid.close(h.ep());
        int rc2 = Fid.close(h.cq());
        if (rc != 0 || rc2 != 0) {
            log.warn("fi_close(ep/cq) = {}/{}", rc, rc2);
        }
        HeapTrim.SHARED.request(); // the provider's pools for this endpoint are free now: give the pages back
    }

    private void closedInLibfabric() {
        boolean last;
        synchronized (this) {
            openInLibfabric--;
            last = closeRequested && openInLibfabric == 0;
        }
        if (last) {
            closeNow();
        }
    }

    /**
     * Bits of a remote key a peer must guess here: none where the provider numbers keys itself
     * ({@code FI_MR_PROV_KEY}) or checks none (shm), else the bits of the random key the provider keeps
     * ({@code mr_key_size}).
     */
    int remoteKeyBits() {
        if (!checksRemoteKeys || (mrMode & FI_MR_PROV_KEY) != 0) {
            return 0;
        }
        return mrKeyMask == -1L ? 64 : Long.bitCount(mrKeyMask);
    }

    /** Inserts a peer's endpoint name into the AV; returns its {@code fi_addr_t}. */
    long insert(byte[] name) {
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment n = tmp.allocate(name.length);
            n.copyFrom(MemorySegment.ofArray(name));
            MemorySegment addr = tmp.allocate(JAVA_LONG);
            int inserted = FidAv.insert(av, n, 1, addr, 0, MemorySegment.NULL);
            if (inserted != 1) {
                throw new ProviderException("fi_av_insert failed (" + inserted + ")", provider, -inserted,
                        inserted < 0 ? Libfabric.strerror(-inserted) : "no address inserted", null);
            }
            return addr.get(JAVA_LONG, 0);
        }
    }

    /** The name behind {@code fiAddr} in the AV, or null when the provider cannot say. */
    byte @Nullable [] lookup(long fiAddr) {
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment name = tmp.allocate(256);
            MemorySegment len = tmp.allocate(JAVA_LONG);
            len.set(JAVA_LONG, 0, name.byteSize());
            int rc = FidAv.lookup(av, fiAddr, name, len);
            long n = len.get(JAVA_LONG, 0);
            return rc == 0 && n <= name.byteSize() ? name.asSlice(0, n).toArray(JAVA_BYTE) : null;
        }
    }

    void remove(long fiAddr) {
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment a = tmp.allocate(JAVA_LONG);
            a.set(JAVA_LONG, 0, fiAddr);
            FidAv.remove(av, a, 1, 0);
        }
    }

    /**
     * The {@link dev.rivulet.core.memory.Registrar} of this domain: {@code fi_mr_reg} with the domain's proposed
     * key (masked to the provider's key size) unless the provider picks keys itself ({@code FI_MR_PROV_KEY}); the
     * local descriptor only where {@code FI_MR_LOCAL} demands one; virtual addresses where
     * {@code FI_MR_VIRT_ADDR} says so, offsets otherwise.
     */
    NativeRegistration register(MemorySegment segment, Set<Access> access, long proposedKey) {
        checkAtomicAlignment(segment, access);
        if (!deviceRanges.isEmpty()) {
            DeviceRange device = deviceRangeOf(segment);
            if (device != null) {
                return registerDevice(segment, access, proposedKey, device);
            }
        }
        long flags = accessFlags(access);
        long key = proposedKey & mrKeyMask;
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment out = tmp.allocate(ADDRESS);
            check("fi_mr_reg", FidDomain.mrReg(domain, segment, segment.byteSize(), flags, 0, key, 0, out,
                    MemorySegment.NULL));
            MemorySegment mr = FidMr.of(out.get(ADDRESS, 0));
            long realKey = (mrMode & FI_MR_PROV_KEY) != 0 ? FidMr.key(mr) : key;
            MemorySegment desc = (mrMode & FI_MR_LOCAL) != 0 ? FidMr.desc(mr) : MemorySegment.NULL;
            long base = (mrMode & FI_MR_VIRT_ADDR) != 0 ? segment.address() : 0;
            return new NativeRegistration(realKey, base, desc, provider.getBytes(), () -> {
                int rc = Fid.close(mr);
                if (rc != 0) {
                    org.slf4j.LoggerFactory.getLogger(FabricDomain.class).warn("fi_close(mr) = {} ({})", rc,
                            Libfabric.strerror(-rc));
                }
            });
        }
    }

    /**
     * A provider that names memory by offset from a registration's first byte ({@code FI_MR_VIRT_ADDR} off, as tcp
     * and sockets) numbers a grant's window from 0, so a peer sees an aligned word where the memory's is not, and the
     * initiator's alignment check cannot hold for it: the provider would run the atomic on the misaligned word. An
     * atomic grant on such a provider must therefore start on an 8-byte boundary (where the handle's numbering and the
     * memory's agree).
     */
    private void checkAtomicAlignment(MemorySegment segment, Set<Access> access) {
        if (access.contains(Access.REMOTE_ATOMIC) && (mrMode & FI_MR_VIRT_ADDR) == 0 && (segment.address() & 7) != 0) {
            throw new InvalidRequestException("an atomic grant on libfabric " + provider + " must start on an 8-byte "
                    + "boundary: its peers number the window from 0, so a misaligned first byte would make their "
                    + "aligned words misaligned in memory (the window starts " + (segment.address() & 7)
                    + " bytes past one)");
        }
    }

    /**
     * Device memory ({@code FI_HMEM}) at {@code [address, address + length)}: an accelerator's memory, described to
     * the provider by its {@code fi_hmem_iface} and device ordinal.
     */
    record DeviceRange(long address, long length, int iface, int device) {
        boolean covers(long a, long n) {
            return a >= address && n >= 0 && a - address <= length - n;
        }
    }

    /**
     * From now on, registrations inside {@code range} (the region's own and its grants' windows) are made as device
     * memory with {@code fi_mr_regattr}. The memory domain's registrar interface carries no memory type, so the
     * device memory is declared here first and found again by address.
     */
    void declareDevice(DeviceRange range) {
        deviceRanges.put(range.address(), range);
    }

    /** Ends a {@link #declareDevice} (the device memory was deregistered). */
    void forgetDevice(DeviceRange range) {
        deviceRanges.remove(range.address(), range);
    }

    private DeviceRange deviceRangeOf(MemorySegment segment) {
        Map.Entry<Long, DeviceRange> e = deviceRanges.floorEntry(segment.address());
        return e != null && e.getValue().covers(segment.address(), segment.byteSize()) ? e.getValue() : null;
    }

    /**
     * {@code fi_mr_regattr} of device memory: one iovec, the device's {@code iface} and ordinal (fi_mr(3); the
     * layout is native-abi §a.8). Keys, descriptors and addresses follow the mr_mode as for host memory.
     */
    private NativeRegistration registerDevice(MemorySegment segment, Set<Access> access, long proposedKey,
                                              DeviceRange device) {
        long key = proposedKey & mrKeyMask;
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment iov = tmp.allocate(Iovec.LAYOUT);
            Iovec.setBase(iov, segment);
            Iovec.setLength(iov, segment.byteSize());
            MemorySegment attr = FiMrAttr.allocate(tmp);
            FiMrAttr.setMrIov(attr, iov);
            FiMrAttr.setIovCount(attr, 1);
            FiMrAttr.setAccess(attr, accessFlags(access));
            FiMrAttr.setRequestedKey(attr, key);
            FiMrAttr.setIface(attr, device.iface());
            FiMrAttr.setDeviceOrdinal(attr, device.device());
            MemorySegment out = tmp.allocate(ADDRESS);
            check("fi_mr_regattr(iface=" + device.iface() + ")", FidDomain.mrRegattr(domain, attr, 0, out));
            MemorySegment mr = FidMr.of(out.get(ADDRESS, 0));
            long realKey = (mrMode & FI_MR_PROV_KEY) != 0 ? FidMr.key(mr) : key;
            MemorySegment desc = (mrMode & FI_MR_LOCAL) != 0 || (mrMode & FI_MR_HMEM) != 0 ? FidMr.desc(mr)
                    : MemorySegment.NULL;
            long base = (mrMode & FI_MR_VIRT_ADDR) != 0 ? segment.address() : 0;
            return new NativeRegistration(realKey, base, desc, provider.getBytes(), () -> {
                int rc = Fid.close(mr);
                if (rc != 0) {
                    log.warn("fi_close(device mr) = {} ({})", rc, Libfabric.strerror(-rc));
                }
            });
        }
    }

    /**
     * The {@code fi_mr_reg} access flags for exactly {@code access}. A region's own registration is local
     * ({@code Access.LOCAL}); a grant's window is remote only. Remote write maps to {@code FI_REMOTE_WRITE} alone;
     * atomics need {@code FI_REMOTE_WRITE} and, because fetching atomics return the old value, {@code FI_REMOTE_READ}
     * too (libfabric checks fetching atomics against both), so an atomic grant lets the peer read its window.
     */
    static long accessFlags(Set<Access> access) {
        long flags = 0;
        if (access.contains(Access.LOCAL_READ) || access.contains(Access.LOCAL_WRITE)) {
            flags |= FI_SEND | FI_RECV | FI_READ | FI_WRITE;
        }
        if (access.contains(Access.REMOTE_READ)) {
            flags |= FI_REMOTE_READ;
        }
        if (access.contains(Access.REMOTE_WRITE)) {
            flags |= FI_REMOTE_WRITE;
        }
        if (access.contains(Access.REMOTE_ATOMIC)) {
            flags |= FI_REMOTE_WRITE | FI_REMOTE_READ;
        }
        return flags == 0 ? FI_SEND | FI_RECV : flags;
    }

    static void check(String call, long rc) {
        if (rc < 0) {
            LibfabricException e = new LibfabricException(call, (int) -rc);
            throw new ProviderException(call + " failed", null, (int) -rc, Libfabric.strerror((int) -rc), e);
        }
    }

    /** Endpoint, its CQ, its name as {@code fi_getname} gave it, and the CQ's wait fd (-1 when none). */
    record EndpointHandles(MemorySegment ep, MemorySegment cq, byte[] name, int waitFd) {
    }

    /** Closes the fabric, domain and AV now, or after the last endpoint still open in libfabric. */
    @Override
    public void close() {
        synchronized (this) {
            closeRequested = true;
            if (openInLibfabric > 0) {
                log.debug("{}: fabric closes after its last {} endpoint(s) close in libfabric", provider,
                        openInLibfabric);
                return;
            }
        }
        closeNow();
    }

    private void closeNow() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        Fid.close(av);
        Fid.close(domain);
        Fid.close(fabric);
        Libfabric.freeinfo(info);
        arena.close();
        if (sharesPeerMappings) {
            ShmJanitor.sweepDead(); // peers that died while connected left their regions behind
        }
    }
}
