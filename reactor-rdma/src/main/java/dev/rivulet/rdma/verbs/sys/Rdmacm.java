package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.rivulet.core.sys.Downcalls;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * Entry point of the librdmacm binding: connection management for RDMA the way sockets do it for TCP. An
 * {@code rdma_cm_id} is resolved to an IP address and port ({@code rdma_resolve_addr}, then a route), connected
 * ({@code rdma_connect} / {@code rdma_listen} + {@code rdma_accept}) with up to 56 / 196 bytes of private data each
 * way, and moves its queue pair through INIT, RTR and RTS itself. Every step completes with an event on an event
 * channel ({@link #getCmEvent}), which must be acknowledged ({@link #ackCmEvent}).
 *
 * <p>Loading is as {@link Ibverbs}'s ({@code -Ddev.rivulet.rdmacm.library} selects another copy). All calls that
 * return {@code int} here return 0 or {@code -errno} (the C functions return -1 and set {@code errno}; the binding
 * captures it). rdma_cm's own {@code rdma_post_*} / {@code rdma_reg_*} helpers are header-inline wrappers of the
 * verbs calls and are not bound: use {@link IbvQp} and {@link Ibverbs} directly.
 */
public final class Rdmacm {

    /** Soname of the library, as Debian's librdmacm1 package installs it. */
    public static final String LIBRARY = "librdmacm.so.1";

    /** The system property that names another copy of the library. */
    public static final String LIBRARY_PROPERTY = "dev.rivulet.rdmacm.library";

    private Rdmacm() {
    }

    /** Whether the library loaded and has every function the binding uses. */
    public static boolean isAvailable() {
        return Loaded.FAILURE == null;
    }

    /** Why the library cannot be used, or empty when {@link #isAvailable()}. */
    public static Optional<String> unavailableReason() {
        return Optional.ofNullable(Loaded.FAILURE);
    }

    /** Why {@code library} could not serve as librdmacm, or empty when it could (loads it if it exists). */
    public static Optional<String> check(String library) {
        return Optional.ofNullable(attempt(library).failure());
    }

    // ------------------------------------------------------------------------------------------------ channel, ids

    /**
     * {@code struct rdma_event_channel *rdma_create_event_channel(void)}.
     *
     * @throws VerbsException with {@code ENODEV} when the kernel offers no rdma_cm ({@code /dev/infiniband/rdma_cm})
     */
    public static MemorySegment createEventChannel() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = Downcalls.errnoState(a);
            MemorySegment ch = (MemorySegment) api().createEventChannel.invokeExact(capture);
            if (ch.address() == 0) {
                throw new VerbsException("rdma_create_event_channel", Downcalls.errno(capture));
            }
            return RdmaEventChannel.of(ch);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code void rdma_destroy_event_channel(struct rdma_event_channel *channel)}: every id on it must be gone. */
    public static void destroyEventChannel(MemorySegment channel) {
        try {
            api().destroyEventChannel.invokeExact(channel);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
     * enum rdma_port_space ps)}.
     *
     * @param id 8 bytes that receive the new {@code rdma_cm_id *}
     */
    public static int createId(MemorySegment channel, MemorySegment id, MemorySegment context, int ps) {
        return call(api().createId, channel, id, context, ps);
    }

    /** {@code int rdma_destroy_id(struct rdma_cm_id *id)}: waits until every event of the id has been acked. */
    public static int destroyId(MemorySegment id) {
        return call(api().destroyId, id);
    }

    /**
     * {@code int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)} (a
     * {@link dev.rivulet.core.sys.SockaddrIn} or {@link dev.rivulet.core.sys.SockaddrIn6}).
     */
    public static int bindAddr(MemorySegment id, MemorySegment addr) {
        return call(api().bindAddr, id, addr);
    }

    /**
     * {@code int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr,
     * int timeout_ms)}: picks the local device and port that reach {@code dst} (NULL {@code src}: by the routing
     * table); {@code RDMA_CM_EVENT_ADDR_RESOLVED} or {@code _ADDR_ERROR} follows.
     */
    public static int resolveAddr(MemorySegment id, MemorySegment src, MemorySegment dst, int timeoutMs) {
        return call(api().resolveAddr, id, src, dst, timeoutMs);
    }

    /** {@code int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)}: {@code _ROUTE_RESOLVED} follows. */
    public static int resolveRoute(MemorySegment id, int timeoutMs) {
        return call(api().resolveRoute, id, timeoutMs);
    }

    /**
     * {@code int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)}: a
     * queue pair on the id's device ({@link RdmaCmId#qp}), moved to INIT; connect/accept take it to RTS. The pd must
     * belong to the id's {@code verbs} context.
     */
    public static int createQp(MemorySegment id, MemorySegment pd, MemorySegment initAttr) {
        return call(api().createQp, id, pd, initAttr);
    }

    /** {@code void rdma_destroy_qp(struct rdma_cm_id *id)}. */
    public static void destroyQp(MemorySegment id) {
        try {
            api().destroyQp.invokeExact(id);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ------------------------------------------------------------------------------------------------ connections

    /** {@code int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)}: ESTABLISHED follows. */
    public static int connect(MemorySegment id, MemorySegment connParam) {
        return call(api().connect, id, connParam);
    }

    /** {@code int rdma_listen(struct rdma_cm_id *id, int backlog)}: CONNECT_REQUEST events follow. */
    public static int listen(MemorySegment id, int backlog) {
        return call(api().listen, id, backlog);
    }

    /** {@code int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)}. */
    public static int accept(MemorySegment id, MemorySegment connParam) {
        return call(api().accept, id, connParam);
    }

    /**
     * {@code int rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)}: the peer sees
     * {@code RDMA_CM_EVENT_REJECTED} with the data.
     */
    public static int reject(MemorySegment id, MemorySegment privateData) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = Downcalls.errnoState(a);
            int rc = (int) api().reject.invokeExact(capture, id, privateData, (byte) privateData.byteSize());
            return rc == 0 ? 0 : -Math.max(1, Downcalls.errno(capture));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code int rdma_disconnect(struct rdma_cm_id *id)}: moves the QP to ERR; both sides get DISCONNECTED. */
    public static int disconnect(MemorySegment id) {
        return call(api().disconnect, id);
    }

    /**
     * {@code int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)}: blocks unless
     * the channel's fd is non-blocking ({@code -EAGAIN} then means none waits).
     *
     * @param event 8 bytes that receive the event, sized by {@link RdmaCmEvent#of}
     */
    public static int getCmEvent(MemorySegment channel, MemorySegment event) {
        return call(api().getCmEvent, channel, event);
    }

    /** {@code int rdma_ack_cm_event(struct rdma_cm_event *event)}: frees the event. */
    public static int ackCmEvent(MemorySegment event) {
        return call(api().ackCmEvent, event);
    }

    /** {@code const char *rdma_event_str(enum rdma_cm_event_type event)}; works without the library. */
    public static String eventStr(int event) {
        if (!isAvailable()) {
            return "rdma_cm event " + event;
        }
        try {
            return VerbsDispatch.string((MemorySegment) Loaded.API.eventStr.invokeExact(event));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code __be16 rdma_get_src_port(struct rdma_cm_id *id)}, in host order: the port an id is bound to. */
    public static int getSrcPort(MemorySegment id) {
        try {
            short be = (short) api().getSrcPort.invokeExact(id);
            return Short.toUnsignedInt(java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.BIG_ENDIAN ? be
                    : Short.reverseBytes(be));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code struct ibv_context **rdma_get_devices(int *num_devices)}: the contexts librdmacm opened, one per device;
     * ids resolve to these same pointers, so a PD meant for rdma_cm's queue pairs must be allocated on one of them.
     * Free the array (not the contexts) with {@link #freeDevices}.
     *
     * @return the NULL-terminated array (sized), or NULL when there is none; {@code count} receives the length
     */
    public static MemorySegment getDevices(MemorySegment count) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = Downcalls.errnoState(a);
            MemorySegment list = (MemorySegment) api().getDevices.invokeExact(capture, count);
            if (list.address() == 0) {
                return MemorySegment.NULL;
            }
            return VerbsDispatch.sized(list, ADDRESS.byteSize() * (count.get(JAVA_INT, 0) + 1L));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code void rdma_free_devices(struct ibv_context **list)}. */
    public static void freeDevices(MemorySegment list) {
        if (list.address() == 0) {
            return;
        }
        try {
            api().freeDevices.invokeExact(list);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ------------------------------------------------------------------------------------------------ internals

    private static int call(MethodHandle h, Object... args) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = Downcalls.errnoState(a);
            Object[] all = new Object[args.length + 1];
            all[0] = capture;
            System.arraycopy(args, 0, all, 1, args.length);
            int rc = (int) h.invokeWithArguments(all);
            return rc == 0 ? 0 : -Math.max(1, Downcalls.errno(capture));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private static Api api() {
        Api api = Loaded.API;
        if (api == null) {
            throw new UnsupportedOperationException("librdmacm is not available: " + Loaded.FAILURE);
        }
        return api;
    }

    private record Api(MethodHandle createEventChannel, MethodHandle destroyEventChannel, MethodHandle createId,
                       MethodHandle destroyId, MethodHandle bindAddr, MethodHandle resolveAddr,
                       MethodHandle resolveRoute, MethodHandle createQp, MethodHandle destroyQp,
                       MethodHandle connect, MethodHandle listen, MethodHandle accept, MethodHandle reject,
                       MethodHandle disconnect, MethodHandle getCmEvent, MethodHandle ackCmEvent,
                       MethodHandle eventStr, MethodHandle getSrcPort, MethodHandle getDevices,
                       MethodHandle freeDevices) {
    }

    static NativeLibrary.Attempt<Api> attempt(String library) {
        return NativeLibrary.attempt(library, "install librdmacm1, or set -D" + LIBRARY_PROPERTY,
                "", lib -> new Api(
                        lib.errno("rdma_create_event_channel", FunctionDescriptor.of(ADDRESS)),
                        lib.plain("rdma_destroy_event_channel", FunctionDescriptor.ofVoid(ADDRESS)),
                        lib.errno("rdma_create_id", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
                                JAVA_INT)),
                        lib.errno("rdma_destroy_id", FunctionDescriptor.of(JAVA_INT, ADDRESS)),
                        lib.errno("rdma_bind_addr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)),
                        lib.errno("rdma_resolve_addr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS,
                                JAVA_INT)),
                        lib.errno("rdma_resolve_route", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT)),
                        lib.errno("rdma_create_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS)),
                        lib.plain("rdma_destroy_qp", FunctionDescriptor.ofVoid(ADDRESS)),
                        lib.errno("rdma_connect", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)),
                        lib.errno("rdma_listen", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT)),
                        lib.errno("rdma_accept", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)),
                        lib.errno("rdma_reject", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE)),
                        lib.errno("rdma_disconnect", FunctionDescriptor.of(JAVA_INT, ADDRESS)),
                        lib.errno("rdma_get_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)),
                        lib.errno("rdma_ack_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS)),
                        lib.plain("rdma_event_str", FunctionDescriptor.of(ADDRESS, JAVA_INT)),
                        lib.plain("rdma_get_src_port", FunctionDescriptor.of(JAVA_SHORT, ADDRESS)),
                        lib.errno("rdma_get_devices", FunctionDescriptor.of(ADDRESS, ADDRESS)),
                        lib.plain("rdma_free_devices", FunctionDescriptor.ofVoid(ADDRESS))));
    }

    /** Lazy holder: touching {@link Rdmacm} constants never loads the library. */
    private static final class Loaded {
        static final Api API;
        static final String FAILURE;

        static {
            NativeLibrary.Attempt<Api> a = attempt(System.getProperty(LIBRARY_PROPERTY, LIBRARY));
            API = a.api();
            FAILURE = a.failure();
        }
    }
}
