package dev.rivulet.rdma.verbs;

import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.InsufficientResourcesException;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.rdma.verbs.sys.IbvCq;
import dev.rivulet.rdma.verbs.sys.IbvQp;
import dev.rivulet.rdma.verbs.sys.IbvQpAttr;
import dev.rivulet.rdma.verbs.sys.IbvQpInitAttr;
import dev.rivulet.rdma.verbs.sys.Ibverbs;
import dev.rivulet.rdma.verbs.sys.RdmaCmId;
import dev.rivulet.rdma.verbs.sys.Rdmacm;
import dev.rivulet.rdma.verbs.sys.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static dev.rivulet.rdma.verbs.sys.VerbsConstants.*;

/**
 * One connection's RC queue pair and the completion queue both its queues report to, created either on an rdma_cm id
 * ({@code rdma_create_qp}: rdma_cm moves it through INIT, RTR and RTS during connect/accept) or by hand
 * ({@code ibv_create_qp}, then {@link #toInit}, {@link #toRtr}, {@link #toRts}). The CQ signals the completion channel
 * of the polling thread the connection lives on.
 *
 * <p>{@link #destroy} tears it down in the order that keeps memory safe: the QP leaves the connected state (rdma_cm
 * disconnect, or ERR), is destroyed (after which the device never touches the connection's buffers again), then the
 * CQ; the rdma_cm id goes last, on a thread of its own.
 */
final class QueuePair {

    private static final Logger log = LoggerFactory.getLogger(QueuePair.class);

    /** Ack timeout, retry and RNR values for manual connections (rdma_cm takes them from the connect parameters). */
    static final int MIN_RNR_TIMER = 12;
    static final int RNR_RETRY_FOREVER = 7;
    static final int HOP_LIMIT = 64;

    final MemorySegment cq;
    final MemorySegment qp;
    /** The rdma_cm id the QP was created on, or NULL for a manual connection. */
    final MemorySegment cmId;
    final int maxSendWr;
    final int maxRecvWr;
    final int maxInline;
    final int psn;
    private final Runnable teardown;
    private boolean destroyed;

    private QueuePair(MemorySegment cq, MemorySegment qp, MemorySegment cmId, MemorySegment initAttr, CmEvents cm) {
        this(cq, qp, cmId, IbvQpInitAttr.maxSendWr(initAttr), IbvQpInitAttr.maxRecvWr(initAttr),
                IbvQpInitAttr.maxInlineData(initAttr), () -> teardown(cq, qp, cmId, cm));
    }

    /**
     * A queue pair torn down by {@code teardown}: for the factories below, and for tests that drive the wire over a
     * software device behind the same ops table.
     */
    QueuePair(MemorySegment cq, MemorySegment qp, MemorySegment cmId, int maxSendWr, int maxRecvWr, int maxInline,
              Runnable teardown) {
        this.cq = cq;
        this.qp = qp;
        this.cmId = cmId;
        this.maxSendWr = maxSendWr;
        this.maxRecvWr = maxRecvWr;
        this.maxInline = maxInline;
        this.teardown = teardown;
        this.psn = SetupMessages.randomPsn();
    }

    /** The sizes a connection asks for. */
    record Sizes(int sendWr, int recvWr, int inline, int compVector) {
        int cqe() {
            return sendWr + recvWr + 1;
        }
    }

    /** A CQ and an RC QP made by hand on {@code device}'s PD, in RESET. */
    static QueuePair createManual(VerbsDevice device, MemorySegment channel, Sizes sizes) {
        MemorySegment cq = createCq(device, channel, sizes);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment init = IbvQpInitAttr.allocate(a);
            IbvQpInitAttr.setRc(init, cq, sizes.sendWr(), sizes.recvWr(), sizes.inline());
            MemorySegment qp = Ibverbs.createQp(device.pd, init);
            return new QueuePair(cq, qp, MemorySegment.NULL, init, null);
        } catch (VerbsException e) {
            Ibverbs.destroyCq(cq);
            throw qpFailure(e, sizes);
        } catch (RuntimeException e) {
            Ibverbs.destroyCq(cq);
            throw e;
        }
    }

    /** A CQ and an RC QP made by rdma_cm on {@code id} (resolved or requested), in INIT. */
    static QueuePair createOnCmId(VerbsDevice device, MemorySegment id, MemorySegment channel, Sizes sizes,
                                  CmEvents cm) {
        if (RdmaCmId.verbs(id).address() != device.context.address()) {
            throw new ConnectionRefusedException("the connection goes through another RDMA device than this "
                    + "transport's " + device + " (use an address of " + device.name + "'s interface, or open the "
                    + "transport on that device)");
        }
        MemorySegment cq = createCq(device, channel, sizes);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment init = IbvQpInitAttr.allocate(a);
            IbvQpInitAttr.setRc(init, cq, sizes.sendWr(), sizes.recvWr(), sizes.inline());
            int rc = Rdmacm.createQp(id, device.pd, init);
            if (rc != 0) {
                throw qpFailure(new VerbsException("rdma_create_qp", -rc), sizes);
            }
            return new QueuePair(cq, RdmaCmId.qp(id), id, init, cm);
        } catch (RuntimeException e) {
            Ibverbs.destroyCq(cq);
            throw e;
        }
    }

    private static MemorySegment createCq(VerbsDevice device, MemorySegment channel, Sizes sizes) {
        try {
            return Ibverbs.createCq(device.context, sizes.cqe(), MemorySegment.NULL, channel, sizes.compVector());
        } catch (VerbsException e) {
            throw new InsufficientResourcesException("cannot create a completion queue of " + sizes.cqe()
                    + " entries on " + device + ": " + e.getMessage());
        }
    }

    private static RuntimeException qpFailure(VerbsException e, Sizes sizes) {
        if (e.errno() == Errno.ENOMEM || e.errno() == Errno.EINVAL) {
            return new InsufficientResourcesException("cannot create a queue pair with " + sizes.sendWr()
                    + " send and " + sizes.recvWr() + " receive requests and " + sizes.inline()
                    + " bytes inline (lower the queue depths or verbs.maxInline): " + e.getMessage());
        }
        return e;
    }

    int qpNum() {
        return IbvQp.qpNum(qp);
    }

    /** Manual: RESET → INIT on the device's port, serving remote reads, writes and atomics (the MRs decide). */
    void toInit(VerbsDevice device) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = IbvQpAttr.allocate(a);
            int mask = IbvQpAttr.toInit(attr, device.port, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ
                    | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
            VerbsException.check("ibv_modify_qp(INIT)", Ibverbs.modifyQp(qp, attr, mask));
        }
    }

    /**
     * Manual: INIT → RTR towards {@code peer}: path MTU the smaller of both ports', a GRH with the peer's GID when it
     * sent one (RoCE always does), reads and atomics served up to what this device and the peer's initiator allow.
     */
    void toRtr(VerbsDevice device, SetupMessages.QpInfo peer) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = IbvQpAttr.allocate(a);
            int mtu = Math.min(device.activeMtu, peer.mtu());
            byte[] dgid = peer.hasGid() ? peer.gid() : null;
            if (dgid == null && device.linkLayer == IBV_LINK_LAYER_ETHERNET) {
                throw new ConnectionRefusedException("the peer sent no GID, which RoCE needs");
            }
            int mask = IbvQpAttr.toRtr(attr, mtu, peer.qpn(), peer.psn(), responderResources(device),
                    MIN_RNR_TIMER, device.port, peer.lid(), dgid, Math.max(0, device.gidIndex), HOP_LIMIT);
            VerbsException.check("ibv_modify_qp(RTR)", Ibverbs.modifyQp(qp, attr, mask));
        }
    }

    /** Manual: RTR → RTS with our PSN; reads and atomics in flight bounded by both ends. */
    void toRts(VerbsDevice device, SetupMessages.QpInfo peer, int ackTimeout, int retryCount) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = IbvQpAttr.allocate(a);
            int rd = Math.min(initiatorDepth(device), peer.responderResources());
            int mask = IbvQpAttr.toRts(attr, psn, ackTimeout, retryCount, RNR_RETRY_FOREVER, rd);
            VerbsException.check("ibv_modify_qp(RTS)", Ibverbs.modifyQp(qp, attr, mask));
        }
    }

    /** What this side tells the peer for a manual connection. */
    SetupMessages.QpInfo describe(VerbsDevice device) {
        return new SetupMessages.QpInfo(qpNum(), psn, device.lid, device.gid, device.activeMtu,
                responderResources(device));
    }

    /**
     * RDMA reads and atomics this side serves at once for a peer (its responder resources): the device's limit, at
     * most 16, which covers a flush and every get and atomic a send queue of ordinary depth keeps in flight.
     */
    static int responderResources(VerbsDevice device) {
        return Math.min(16, device.maxQpRdAtom);
    }

    /** RDMA reads and atomics this side keeps in flight at a peer (its initiator depth), at most 16. */
    static int initiatorDepth(VerbsDevice device) {
        return Math.min(16, device.maxQpInitRdAtom);
    }

    /**
     * Tears the queue pair down (idempotent): out of the connected state, QP, CQ, then the rdma_cm id (later, on its
     * own thread). Every event read from the completion channel has been acknowledged by then (the waiter acks each
     * one as it reads it), which {@code ibv_destroy_cq} requires.
     */
    void destroy() {
        if (destroyed) {
            return;
        }
        destroyed = true;
        teardown.run();
    }

    private static void teardown(MemorySegment cq, MemorySegment qp, MemorySegment cmId, CmEvents cm) {
        if (cmId.address() != 0) {
            cm.unregister(cmId);
            Rdmacm.disconnect(cmId); // fails harmlessly when never connected
            Rdmacm.destroyQp(cmId);
        } else {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment attr = IbvQpAttr.allocate(a);
                Ibverbs.modifyQp(qp, attr, IbvQpAttr.toErr(attr));
            }
            warnIfFailed("ibv_destroy_qp", Ibverbs.destroyQp(qp));
        }
        warnIfFailed("ibv_destroy_cq", Ibverbs.destroyCq(cq));
        if (cmId.address() != 0) {
            cm.destroyLater(cmId);
        }
    }

    private static void warnIfFailed(String call, int rc) {
        if (rc != 0) {
            log.warn("{} = {} ({})", call, rc, Errno.describe(Math.abs(rc)));
        }
    }
}
