package dev.rivulet.rdma.verbs;

import dev.rivulet.core.error.InsufficientResourcesException;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.NativeRegistration;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.rdma.verbs.sys.IbvContext;
import dev.rivulet.rdma.verbs.sys.IbvDeviceAttr;
import dev.rivulet.rdma.verbs.sys.IbvMr;
import dev.rivulet.rdma.verbs.sys.IbvPortAttr;
import dev.rivulet.rdma.verbs.sys.Ibverbs;
import dev.rivulet.rdma.verbs.sys.Rdmacm;
import dev.rivulet.rdma.verbs.sys.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static dev.rivulet.rdma.verbs.sys.VerbsConstants.*;

/**
 * One opened RDMA device port for a transport: the {@code ibv_context}, one protection domain, what the device and port
 * can do, and memory registration ({@link #register}, the transport's {@code Registrar}).
 *
 * <p>With rdma_cm connections the context is librdmacm's own ({@code rdma_get_devices}): the ids it resolves point
 * at those contexts, and a queue pair rdma_cm creates must use a PD of the same context. With manual connections the
 * device is opened with {@code ibv_open_device}, which needs no rdma_cm kernel support.
 *
 * <p>One PD serves every connection of the transport, so an rkey granted on one connection is honoured by the device on
 * every connection of the transport (see {@code Capabilities.grantScopeChecked}); each grant is still its own
 * registration of exactly its window and rights.
 */
final class VerbsDevice implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(VerbsDevice.class);
    private static final byte[] PROVIDER_BYTES = "verbs".getBytes(StandardCharsets.US_ASCII);

    final String name;
    final int port;
    final MemorySegment context;
    final MemorySegment pd;
    final int linkLayer;
    final int activeMtu;
    final int lid;
    final long maxMsgSize;
    final int maxQpWr;
    final int maxCqe;
    final int maxQpRdAtom;
    final int maxQpInitRdAtom;
    final int atomicCap;
    final int numCompVectors;
    /** The GID index and GID a manual connection sends from; -1 and zeros when none is used (IB within a subnet). */
    final int gidIndex;
    final byte[] gid;
    private final Runnable releaseContext;
    private boolean closed;

    private VerbsDevice(String name, int port, MemorySegment context, MemorySegment deviceAttr,
                        MemorySegment portAttr, int gidIndex, byte[] gid, Runnable releaseContext) {
        this.name = name;
        this.port = port;
        this.context = context;
        this.linkLayer = IbvPortAttr.linkLayer(portAttr);
        this.activeMtu = IbvPortAttr.activeMtu(portAttr);
        this.lid = IbvPortAttr.lid(portAttr);
        this.maxMsgSize = IbvPortAttr.maxMsgSz(portAttr);
        this.maxQpWr = IbvDeviceAttr.maxQpWr(deviceAttr);
        this.maxCqe = IbvDeviceAttr.maxCqe(deviceAttr);
        this.maxQpRdAtom = IbvDeviceAttr.maxQpRdAtom(deviceAttr);
        this.maxQpInitRdAtom = IbvDeviceAttr.maxQpInitRdAtom(deviceAttr);
        this.atomicCap = IbvDeviceAttr.atomicCap(deviceAttr);
        this.numCompVectors = Math.max(1, IbvContext.numCompVectors(context));
        this.gidIndex = gidIndex;
        this.gid = gid.clone();
        this.releaseContext = releaseContext;
        this.pd = Ibverbs.allocPd(context);
    }

    /**
     * Opens {@code device} ({@code auto}: the first with an active port) on {@code port} (0: its first active port).
     *
     * @param manual   open with {@code ibv_open_device} rather than take librdmacm's context
     * @param gidIndex manual only: the GID index to send from, -1 to pick one
     * @throws TransportUnavailableException when no such device or no active port exists
     * @throws InvalidRequestException       when a named device, port or GID index does not exist
     */
    static VerbsDevice open(String device, int port, boolean manual, int gidIndex) {
        List<Candidate> candidates = new ArrayList<>();
        Runnable releaseList;
        if (manual) {
            Ibverbs.DeviceList list = Ibverbs.getDeviceList();
            if (list.count() == 0) {
                Ibverbs.freeDeviceList(list.list());
                throw new TransportUnavailableException("verbs is unavailable: " + noDevice(list.errno()));
            }
            for (int i = 0; i < list.count(); i++) {
                candidates.add(new Candidate(Ibverbs.getDeviceName(list.device(i)), list.device(i), null));
            }
            releaseList = () -> Ibverbs.freeDeviceList(list.list());
        } else {
            MemorySegment contexts;
            int count;
            try (Arena a = Arena.ofConfined()) {
                MemorySegment n = a.allocate(ValueLayout.JAVA_INT);
                contexts = Rdmacm.getDevices(n);
                count = contexts.address() == 0 ? 0 : n.get(ValueLayout.JAVA_INT, 0);
            }
            if (count == 0) {
                Rdmacm.freeDevices(contexts);
                throw new TransportUnavailableException("verbs is unavailable: librdmacm found no RDMA device "
                        + "(is the rdma_ucm module loaded? verbs.connection=manual needs only the device)");
            }
            for (int i = 0; i < count; i++) {
                MemorySegment ctx = IbvContext.of(contexts.getAtIndex(ValueLayout.ADDRESS, i));
                candidates.add(new Candidate(Ibverbs.getDeviceName(IbvContext.device(ctx)), null, ctx));
            }
            MemorySegment list = contexts;
            releaseList = () -> Rdmacm.freeDevices(list);
        }
        try {
            return choose(candidates, device, port, manual, gidIndex, releaseList);
        } catch (RuntimeException e) {
            releaseList.run();
            throw e;
        }
    }

    private record Candidate(String name, MemorySegment device, MemorySegment context) {
    }

    private static VerbsDevice choose(List<Candidate> candidates, String device, int port, boolean manual,
                                      int gidIndex, Runnable releaseList) {
        boolean auto = device.equals("auto");
        if (!auto && candidates.stream().noneMatch(c -> c.name().equals(device))) {
            throw new InvalidRequestException("no RDMA device '" + device + "'; present: "
                    + candidates.stream().map(Candidate::name).toList());
        }
        List<String> seen = new ArrayList<>();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment deviceAttr = IbvDeviceAttr.allocate(a);
            MemorySegment portAttr = IbvPortAttr.allocate(a);
            for (Candidate c : candidates) {
                if (!auto && !c.name().equals(device)) {
                    continue;
                }
                MemorySegment ctx = manual ? Ibverbs.openDevice(c.device()) : c.context();
                boolean keep = false;
                try {
                    VerbsException.check("ibv_query_device(" + c.name() + ")", Ibverbs.queryDevice(ctx, deviceAttr));
                    int ports = IbvDeviceAttr.physPortCnt(deviceAttr);
                    if (port > ports) {
                        throw new InvalidRequestException(c.name() + " has ports 1.." + ports + ", not " + port);
                    }
                    for (int p = port == 0 ? 1 : port; p <= (port == 0 ? ports : port); p++) {
                        VerbsException.check("ibv_query_port(" + c.name() + ", " + p + ")",
                                Ibverbs.queryPort(ctx, p, portAttr));
                        int state = IbvPortAttr.state(portAttr);
                        seen.add(c.name() + ":" + p + " " + portState(state));
                        if (state != IBV_PORT_ACTIVE) {
                            continue;
                        }
                        int[] chosen = {-1};
                        byte[] gid = manual ? manualGid(ctx, c.name(), p, IbvPortAttr.linkLayer(portAttr),
                                IbvPortAttr.gidTblLen(portAttr), gidIndex, chosen) : new byte[16];
                        Runnable release = manual ? closeDevice(ctx, c.name(), releaseList) : releaseList;
                        VerbsDevice d = new VerbsDevice(c.name(), p, ctx, deviceAttr, portAttr, chosen[0], gid,
                                release);
                        keep = true; // the device owns the context now
                        return d;
                    }
                } finally {
                    if (manual && !keep) {
                        Ibverbs.closeDevice(ctx);
                    }
                }
            }
        }
        throw new TransportUnavailableException("verbs is unavailable: no active port on "
                + (auto ? "any RDMA device" : device + (port == 0 ? "" : " port " + port)) + " (" + seen + ")");
    }

    private static Runnable closeDevice(MemorySegment ctx, String name, Runnable releaseList) {
        return () -> {
            int rc = Ibverbs.closeDevice(ctx);
            if (rc != 0) {
                log.warn("ibv_close_device({}) = {}", name, rc);
            }
            releaseList.run();
        };
    }

    /**
     * The GID a manual connection sends from: the one at {@code gidIndex}, or (-1) on Ethernet the port's first
     * RoCE v2 GID (sysfs {@code gid_attrs/types}; RoCE v2 is routable, v1 only within one L2 segment), falling back to
     * its first non-zero GID; on InfiniBand none (LID routing within the subnet).
     */
    private static byte[] manualGid(MemorySegment ctx, String device, int port, int linkLayer, int tableLength,
                                    int gidIndex, int[] chosen) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment gid = a.allocate(16);
            if (gidIndex >= 0) {
                if (gidIndex >= tableLength || Ibverbs.queryGid(ctx, port, gidIndex, gid) != 0) {
                    throw new InvalidRequestException("verbs.gidIndex " + gidIndex + " is not valid on " + device
                            + " port " + port + " (table of " + tableLength + ")");
                }
                chosen[0] = gidIndex;
                return gid.toArray(ValueLayout.JAVA_BYTE);
            }
            if (linkLayer != IBV_LINK_LAYER_ETHERNET) {
                return new byte[16];
            }
            int firstNonZero = -1;
            byte[] fallback = null;
            for (int i = 0; i < tableLength; i++) {
                if (Ibverbs.queryGid(ctx, port, i, gid) != 0) {
                    continue;
                }
                byte[] g = gid.toArray(ValueLayout.JAVA_BYTE);
                if (isZero(g)) {
                    continue;
                }
                if (firstNonZero < 0) {
                    firstNonZero = i;
                    fallback = g;
                }
                if ("RoCE v2".equals(gidType(device, port, i))) {
                    chosen[0] = i;
                    return g;
                }
            }
            if (firstNonZero < 0) {
                throw new TransportUnavailableException("verbs is unavailable: " + device + " port " + port
                        + " has no GID (no IP address on the RoCE interface?)");
            }
            chosen[0] = firstNonZero;
            return fallback;
        }
    }

    /** {@code /sys/class/infiniband/<dev>/ports/<port>/gid_attrs/types/<i>}: "RoCE v2", "IB/RoCE v1", or null. */
    static String gidType(String device, int port, int index) {
        Path p = Path.of("/sys/class/infiniband", device, "ports", Integer.toString(port), "gid_attrs", "types",
                Integer.toString(index));
        try {
            return Files.readString(p).trim();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static boolean isZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    /** Why a device list came back empty, for the unavailability reason. */
    static String noDevice(int errno) {
        if (errno == Errno.ENOSYS) {
            return "no RDMA device: the kernel has no RDMA support (/sys/class/infiniband_verbs is missing; "
                    + "ibv_get_device_list: ENOSYS)";
        }
        return "no RDMA device: ibv_get_device_list found none" + (errno == 0 ? ""
                : " (" + Errno.describe(errno) + ", errno " + errno + ")");
    }

    static String portState(int state) {
        return switch (state) {
            case IBV_PORT_NOP -> "NOP";
            case IBV_PORT_DOWN -> "DOWN";
            case IBV_PORT_INIT -> "INIT";
            case IBV_PORT_ARMED -> "ARMED";
            case IBV_PORT_ACTIVE -> "ACTIVE";
            case IBV_PORT_ACTIVE_DEFER -> "ACTIVE_DEFER";
            default -> "state " + state;
        };
    }

    // ------------------------------------------------------------------------------------------------ memory

    /**
     * The {@code ibv_reg_mr} access flags for {@code access}, and nothing more: local read needs no flag, a remote
     * right is given only when asked for, and {@code IBV_ACCESS_LOCAL_WRITE} is added where verbs requires it for
     * remote write and remote atomics (the registration is refused otherwise); it lets this host's device write the
     * memory, it exposes nothing to a peer.
     */
    static int accessFlags(Set<Access> access) {
        int flags = 0;
        if (access.contains(Access.LOCAL_WRITE) || access.contains(Access.REMOTE_WRITE)
                || access.contains(Access.REMOTE_ATOMIC)) {
            flags |= IBV_ACCESS_LOCAL_WRITE;
        }
        if (access.contains(Access.REMOTE_READ)) {
            flags |= IBV_ACCESS_REMOTE_READ;
        }
        if (access.contains(Access.REMOTE_WRITE)) {
            flags |= IBV_ACCESS_REMOTE_WRITE;
        }
        if (access.contains(Access.REMOTE_ATOMIC)) {
            flags |= IBV_ACCESS_REMOTE_ATOMIC;
        }
        return flags;
    }

    /**
     * The memory domain's registrar: one {@code ibv_reg_mr} of exactly {@code segment} with exactly
     * {@link #accessFlags}. The key is the registration's rkey (the device chooses it; {@code proposedKey} is
     * ignored), the remote base its virtual address (verbs RDMA names memory by address), the descriptor the
     * {@code ibv_mr} itself (its lkey goes into local scatter/gather entries).
     */
    NativeRegistration register(MemorySegment segment, Set<Access> access, long proposedKey) {
        MemorySegment mr;
        try {
            mr = Ibverbs.regMr(pd, segment, segment.byteSize(), accessFlags(access));
        } catch (VerbsException e) {
            if (e.errno() == Errno.ENOMEM) {
                throw new InsufficientResourcesException("cannot register " + segment.byteSize() + " bytes with "
                        + name + ": " + e.getMessage() + " (raise the locked-memory limit, ulimit -l)");
            }
            throw new InvalidMemoryException("cannot register " + segment.byteSize() + " bytes with " + name + ": "
                    + e.getMessage());
        }
        long rkey = Integer.toUnsignedLong(IbvMr.rkey(mr));
        return new NativeRegistration(rkey, segment.address(), mr, PROVIDER_BYTES, () -> {
            int rc = Ibverbs.deregMr(mr);
            if (rc != 0) {
                log.warn("ibv_dereg_mr on {} = {} ({})", name, rc, Errno.describe(rc));
            }
        });
    }

    /** The lkey of a registration made by {@link #register} (its descriptor). */
    static int lkey(MemorySegment descriptor) {
        return IbvMr.lkey(descriptor);
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        int rc = Ibverbs.deallocPd(pd);
        if (rc != 0) {
            log.warn("ibv_dealloc_pd on {} = {} ({})", name, rc, Errno.describe(rc));
        }
        releaseContext.run();
    }

    @Override
    public String toString() {
        return name + ":" + port;
    }
}
