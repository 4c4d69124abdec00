package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Entry point of the libibverbs binding: loads {@code libibverbs.so.1} and binds the functions it really exports.
 * The data path ({@code ibv_post_send}, {@code ibv_post_recv}, {@code ibv_poll_cq}, {@code ibv_req_notify_cq}) is
 * header-inline and lives on {@link IbvQp} and {@link IbvCq}.
 *
 * <p><b>Loading.</b> The library is opened lazily on first use with {@link SymbolLookup#libraryLookup(String, Arena)}
 * and the global arena (never unloaded). If that fails, {@link #isAvailable()} is false, {@link #unavailableReason()}
 * says why and every call throws {@link UnsupportedOperationException}.
 * {@code -Ddev.rivulet.verbs.library=/path/to/libibverbs.so.1} selects another copy. A library that loads says
 * nothing about devices: {@link #getDeviceList} does.
 *
 * <p><b>Symbol versions.</b> Plain {@code dlsym} binds each symbol's default version ({@code IBVERBS_1.1} for most
 * calls, {@code IBVERBS_1.0} for the completion channel, 1.8 for {@code ibv_reg_mr_iova2}, 1.12 for
 * {@code ibv_reg_dmabuf_mr}); the hidden {@code IBVERBS_1.0} compatibility entries of the old ABI are never bound.
 *
 * <p><b>Macros over exports.</b> In rdma-core 44 {@code ibv_reg_mr} is a macro choosing between the exported
 * {@code ibv_reg_mr} and {@code ibv_reg_mr_iova2} by whether optional access bits are used; the exported
 * {@code ibv_reg_mr} forwards to {@code ibv_reg_mr_iova2} with the address as I/O virtual address, so
 * {@link #regMr} calls it for ordinary flags and {@link #regMrIova2} exists for optional ones.
 * {@code ibv_query_port} is a macro around an inline that prefers the provider's extended {@code query_port}: see
 * {@link #queryPort}.
 */
public final class Ibverbs {

    /** Soname of the library, as Debian's libibverbs1 package installs it. */
    public static final String LIBRARY = "libibverbs.so.1";

    /** The system property that names another copy of the library. */
    public static final String LIBRARY_PROPERTY = "dev.rivulet.verbs.library";

    private Ibverbs() {
    }

    // ------------------------------------------------------------------------------------------------ loading

    /** Whether the library loaded and has every function the binding uses. */
    public static boolean isAvailable() {
        return Loaded.FAILURE == null;
    }

    /** Why the library cannot be used, or empty when {@link #isAvailable()}. */
    public static Optional<String> unavailableReason() {
        return Optional.ofNullable(Loaded.FAILURE);
    }

    /**
     * Why {@code library} (a soname or a path) could not serve as libibverbs, or empty when it could: the check
     * {@link #isAvailable()} made for the configured library, for another copy. Loads it if it exists.
     */
    public static Optional<String> check(String library) {
        return Optional.ofNullable(attempt(library).failure());
    }

    // ------------------------------------------------------------------------------------------------ devices

    /**
     * The result of {@code ibv_get_device_list}: the NULL-terminated array (free it with {@link #freeDeviceList}),
     * how many devices it holds, and the {@code errno} when it was NULL. rdma-core returns NULL with {@code ENOSYS}
     * when the kernel has no RDMA support at all ({@code /sys/class/infiniband_verbs} missing) and an empty list when
     * it has the support but no device.
     */
    public record DeviceList(MemorySegment list, int count, int errno) {

        /** The {@code struct ibv_device *} at {@code i}. */
        public MemorySegment device(int i) {
            return list.getAtIndex(ADDRESS, i);
        }

        /** The devices' names ({@code mlx5_0}, {@code rxe0}...). */
        public List<String> names() {
            List<String> names = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                names.add(getDeviceName(device(i)));
            }
            return names;
        }
    }

    /** {@code struct ibv_device **ibv_get_device_list(int *num_devices)}. */
    public static DeviceList getDeviceList() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = Downcalls.errnoState(a);
            MemorySegment n = a.allocate(JAVA_INT);
            MemorySegment list = (MemorySegment) api().getDeviceList.invokeExact(capture, n);
            if (list.address() == 0) {
                return new DeviceList(MemorySegment.NULL, 0, Downcalls.errno(capture));
            }
            int count = n.get(JAVA_INT, 0);
            return new DeviceList(VerbsDispatch.sized(list, ADDRESS.byteSize() * (count + 1L)), count, 0);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code void ibv_free_device_list(struct ibv_device **list)}; NULL is ignored. */
    public static void freeDeviceList(MemorySegment list) {
        if (list.address() == 0) {
            return;
        }
        try {
            api().freeDeviceList.invokeExact(list);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code const char *ibv_get_device_name(struct ibv_device *device)}. */
    public static String getDeviceName(MemorySegment device) {
        try {
            return VerbsDispatch.string((MemorySegment) api().getDeviceName.invokeExact(device));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code struct ibv_context *ibv_open_device(struct ibv_device *device)}.
     *
     * @return the context, sized as {@link IbvContext#LAYOUT}; close it with {@link #closeDevice}
     * @throws VerbsException with {@code errno} when the device cannot be opened
     */
    public static MemorySegment openDevice(MemorySegment device) {
        return IbvContext.of(notNull("ibv_open_device", api().openDevice, device));
    }

    /** {@code int ibv_close_device(struct ibv_context *context)}: 0 or an errno value. */
    public static int closeDevice(MemorySegment context) {
        try {
            return (int) api().closeDevice.invokeExact(context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)}: 0 or an errno. */
    public static int queryDevice(MemorySegment context, MemorySegment attr) {
        try {
            return (int) api().queryDevice.invokeExact(context, attr);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ibv_query_port(context, port_num, port_attr)} as the header's macro does it: through the provider's
     * extended {@code query_port} with the full {@link IbvPortAttr#SIZE} when the context is extended and the slot
     * is there ({@link VerbsContext#queryPort}), else through the exported symbol, which fills only the first 48
     * bytes (the rest is zeroed first).
     *
     * @param port 1-based port number ({@code uint8_t})
     * @return 0 or an errno value
     */
    public static int queryPort(MemorySegment context, int port, MemorySegment attr) {
        long extended = VerbsContext.queryPort(context);
        try {
            if (extended != 0) {
                return (int) QUERY_PORT_EXTENDED.invokeExact(VerbsDispatch.target(extended), context, (byte) port,
                        attr, IbvPortAttr.SIZE);
            }
            attr.fill((byte) 0);
            return (int) api().queryPort.invokeExact(context, (byte) port, attr);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private static final MethodHandle QUERY_PORT_EXTENDED = VerbsDispatch.pointerDowncall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS, JAVA_LONG));

    /**
     * {@code int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)}.
     *
     * @param gid 16 bytes that receive the GID in network order
     * @return 0, or -1 when the index is not valid
     */
    public static int queryGid(MemorySegment context, int port, int index, MemorySegment gid) {
        try {
            return (int) api().queryGid.invokeExact(context, (byte) port, index, gid);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ------------------------------------------------------------------------------------------------ PD and MR

    /** {@code struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)}; throws {@link VerbsException} on NULL. */
    public static MemorySegment allocPd(MemorySegment context) {
        return IbvPd.of(notNull("ibv_alloc_pd", api().allocPd, context));
    }

    /** {@code int ibv_dealloc_pd(struct ibv_pd *pd)}: 0 or an errno ({@code EBUSY} while objects use it). */
    public static int deallocPd(MemorySegment pd) {
        try {
            return (int) api().deallocPd.invokeExact(pd);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)}: pins
     * {@code [addr, addr + length)} and makes it reachable with exactly {@code access}. Remote write and remote
     * atomic rights require {@code IBV_ACCESS_LOCAL_WRITE} too ({@code EINVAL} otherwise).
     *
     * @return the registration, sized as {@link IbvMr#LAYOUT}; release with {@link #deregMr}
     * @throws VerbsException on failure; {@code ENOMEM} usually means the locked-memory limit
     *                        ({@code ulimit -l}) is too low
     */
    public static MemorySegment regMr(MemorySegment pd, MemorySegment addr, long length, int access) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = Downcalls.errnoState(a);
            MemorySegment mr = (MemorySegment) api().regMr.invokeExact(capture, pd, addr, length, access);
            return IbvMr.of(checkPointer("ibv_reg_mr", mr, capture));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
     * unsigned int access)}: as {@link #regMr} with the address peers name chosen ({@code iova}) and optional access
     * bits ({@code IBV_ACCESS_RELAXED_ORDERING}) allowed.
     */
    public static MemorySegment regMrIova2(MemorySegment pd, MemorySegment addr, long length, long iova, int access) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = Downcalls.errnoState(a);
            MemorySegment mr = (MemorySegment) api().regMrIova2.invokeExact(capture, pd, addr, length, iova, access);
            return IbvMr.of(checkPointer("ibv_reg_mr_iova2", mr, capture));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova,
     * int fd, int access)}: registers device memory exported as a dma-buf (GPU memory), {@code offset} into it.
     */
    public static MemorySegment regDmabufMr(MemorySegment pd, long offset, long length, long iova, int fd,
                                            int access) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = Downcalls.errnoState(a);
            MemorySegment mr = (MemorySegment) api().regDmabufMr.invokeExact(capture, pd, offset, length, iova, fd,
                    access);
            return IbvMr.of(checkPointer("ibv_reg_dmabuf_mr", mr, capture));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code int ibv_dereg_mr(struct ibv_mr *mr)}: 0 or an errno value. */
    public static int deregMr(MemorySegment mr) {
        try {
            return (int) api().deregMr.invokeExact(mr);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ------------------------------------------------------------------------------------------------ CQ

    /** {@code struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)}. */
    public static MemorySegment createCompChannel(MemorySegment context) {
        return IbvCompChannel.of(notNull("ibv_create_comp_channel", api().createCompChannel, context));
    }

    /** {@code int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)}: {@code EBUSY} while CQs use it. */
    public static int destroyCompChannel(MemorySegment channel) {
        try {
            return (int) api().destroyCompChannel.invokeExact(channel);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
     * struct ibv_comp_channel *channel, int comp_vector)}.
     *
     * @param channel    NULL for a queue that is only polled
     * @param compVector which completion vector (interrupt) signals the channel: 0 ..
     *                   {@link IbvContext#numCompVectors} - 1
     */
    public static MemorySegment createCq(MemorySegment context, int cqe, MemorySegment cqContext,
                                         MemorySegment channel, int compVector) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = Downcalls.errnoState(a);
            MemorySegment cq = (MemorySegment) api().createCq.invokeExact(capture, context, cqe, cqContext, channel,
                    compVector);
            return IbvCq.of(checkPointer("ibv_create_cq", cq, capture));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code int ibv_destroy_cq(struct ibv_cq *cq)}: every event read from its channel must be acked first. */
    public static int destroyCq(MemorySegment cq) {
        try {
            return (int) api().destroyCq.invokeExact(cq);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)}: reads
     * one event. Blocks unless the channel's fd is non-blocking; then {@code -EAGAIN} means none is waiting.
     *
     * @param cq        8 bytes that receive the CQ the event is for
     * @param cqContext 8 bytes that receive its {@code cq_context}
     * @return 0, or {@code -errno}
     */
    public static int getCqEvent(MemorySegment channel, MemorySegment cq, MemorySegment cqContext,
                                 MemorySegment capture) {
        try {
            int rc = (int) api().getCqEvent.invokeExact(capture, channel, cq, cqContext);
            return rc == 0 ? 0 : -Math.max(1, Downcalls.errno(capture));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** Scratch for {@link #getCqEvent}'s {@code errno}, owned by the caller's arena. */
    public static MemorySegment errnoCapture(Arena arena) {
        return Downcalls.errnoState(arena);
    }

    /** {@code void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)}. */
    public static void ackCqEvents(MemorySegment cq, int nevents) {
        try {
            api().ackCqEvents.invokeExact(cq, nevents);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ------------------------------------------------------------------------------------------------ QP

    /**
     * {@code struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)}: a queue pair in
     * RESET; {@code qp_init_attr->cap} is updated with the sizes really made.
     */
    public static MemorySegment createQp(MemorySegment pd, MemorySegment initAttr) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = Downcalls.errnoState(a);
            MemorySegment qp = (MemorySegment) api().createQp.invokeExact(capture, pd, initAttr);
            return IbvQp.of(checkPointer("ibv_create_qp", qp, capture));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)}: 0 or an errno; an invalid
     * attribute or mask changes nothing. See {@link IbvQpAttr} for the transitions.
     */
    public static int modifyQp(MemorySegment qp, MemorySegment attr, int mask) {
        try {
            return (int) api().modifyQp.invokeExact(qp, attr, mask);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code int ibv_destroy_qp(struct ibv_qp *qp)}: outstanding work requests are dropped without completions. */
    public static int destroyQp(MemorySegment qp) {
        try {
            return (int) api().destroyQp.invokeExact(qp);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code const char *ibv_wc_status_str(enum ibv_wc_status status)}. Works without the library (the status's C name
     * then), so error paths never fail themselves.
     */
    public static String wcStatusStr(int status) {
        if (!isAvailable()) {
            return WcStatusNames.name(status);
        }
        try {
            String s = VerbsDispatch.string((MemorySegment) Loaded.API.wcStatusStr.invokeExact(status));
            return s == null ? WcStatusNames.name(status) : s;
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ------------------------------------------------------------------------------------------------ internals

    private static MemorySegment notNull(String call, MethodHandle h, MemorySegment arg) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment capture = Downcalls.errnoState(a);
            MemorySegment p = (MemorySegment) h.invokeExact(capture, arg);
            return checkPointer(call, p, capture);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private static MemorySegment checkPointer(String call, MemorySegment p, MemorySegment capture) {
        if (p.address() == 0) {
            throw new VerbsException(call, Downcalls.errno(capture));
        }
        return p;
    }

    private static Api api() {
        Api api = Loaded.API;
        if (api == null) {
            throw new UnsupportedOperationException("libibverbs is not available: " + Loaded.FAILURE);
        }
        return api;
    }

    /** The bound functions; one immutable instance so the JIT can treat the handles as constants. */
    private record Api(MethodHandle getDeviceList, MethodHandle freeDeviceList, MethodHandle getDeviceName,
                       MethodHandle openDevice, MethodHandle closeDevice, MethodHandle queryDevice,
                       MethodHandle queryPort, MethodHandle queryGid, MethodHandle allocPd, MethodHandle deallocPd,
                       MethodHandle regMr, MethodHandle regMrIova2, MethodHandle regDmabufMr, MethodHandle deregMr,
                       MethodHandle createCompChannel, MethodHandle destroyCompChannel, MethodHandle createCq,
                       MethodHandle destroyCq, MethodHandle getCqEvent, MethodHandle ackCqEvents,
                       MethodHandle createQp, MethodHandle modifyQp, MethodHandle destroyQp,
                       MethodHandle wcStatusStr) {
    }

    static NativeLibrary.Attempt<Api> attempt(String library) {
        return NativeLibrary.attempt(library, "install libibverbs1, or set -D" + LIBRARY_PROPERTY,
                " (rdma-core 44 or newer is needed)", lib -> new Api(
                        lib.errno("ibv_get_device_list", FunctionDescriptor.of(ADDRESS, ADDRESS)),
                        lib.plain("ibv_free_device_list", FunctionDescriptor.ofVoid(ADDRESS)),
                        lib.plain("ibv_get_device_name", FunctionDescriptor.of(ADDRESS, ADDRESS)),
                        lib.errno("ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS)),
                        lib.plain("ibv_close_device", FunctionDescriptor.of(JAVA_INT, ADDRESS)),
                        lib.plain("ibv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)),
                        lib.plain("ibv_query_port", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS)),
                        lib.plain("ibv_query_gid", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT,
                                ADDRESS)),
                        lib.errno("ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS)),
                        lib.plain("ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS)),
                        lib.errno("ibv_reg_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT)),
                        lib.errno("ibv_reg_mr_iova2", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG,
                                JAVA_LONG, JAVA_INT)),
                        lib.errno("ibv_reg_dmabuf_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG,
                                JAVA_LONG, JAVA_INT, JAVA_INT)),
                        lib.plain("ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS)),
                        lib.errno("ibv_create_comp_channel", FunctionDescriptor.of(ADDRESS, ADDRESS)),
                        lib.plain("ibv_destroy_comp_channel", FunctionDescriptor.of(JAVA_INT, ADDRESS)),
                        lib.errno("ibv_create_cq", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS,
                                JAVA_INT)),
                        lib.plain("ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS)),
                        // May block (a blocking channel fd): an ordinary downcall, never critical.
                        lib.errno("ibv_get_cq_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS)),
                        lib.plain("ibv_ack_cq_events", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT)),
                        lib.errno("ibv_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS)),
                        lib.plain("ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT)),
                        lib.plain("ibv_destroy_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS)),
                        lib.plain("ibv_wc_status_str", FunctionDescriptor.of(ADDRESS, JAVA_INT))));
    }

    /** Lazy holder: touching {@link Ibverbs} constants never loads the library. */
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
