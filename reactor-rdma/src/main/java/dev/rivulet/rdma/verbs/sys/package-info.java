/**
 * Native binding for libibverbs and librdmacm (rdma-core 44) through the Panama FFM API: layouts, downcall handles,
 * constants and typed accessors, nothing else. No JNI, no generated code, no C shim; the transport built on top lives
 * in {@code dev.rivulet.rdma.verbs}.
 *
 * <h2>Shape</h2>
 * <ul>
 *   <li>{@link dev.rivulet.rdma.verbs.sys.Ibverbs} loads {@code libibverbs.so.1} and binds what it exports (device list,
 *       open/close, queries, PD, MR, completion channel, CQ, QP, {@code ibv_wc_status_str});
 *       {@link dev.rivulet.rdma.verbs.sys.Rdmacm} does the same for {@code librdmacm.so.1} (event channel, ids, address and
 *       route resolution, connect/listen/accept/reject/disconnect, events). Each says whether it loaded and, if not,
 *       why.</li>
 *   <li>The data path is {@code static inline} in {@code verbs.h}: {@link dev.rivulet.rdma.verbs.sys.IbvQp#postSend},
 *       {@link dev.rivulet.rdma.verbs.sys.IbvQp#postRecv}, {@link dev.rivulet.rdma.verbs.sys.IbvCq#poll} and
 *       {@link dev.rivulet.rdma.verbs.sys.IbvCq#reqNotify} read the function pointer from the ops table embedded in the
 *       object's {@code ibv_context} ({@link dev.rivulet.rdma.verbs.sys.IbvContextOps}) and call it through one
 *       address-less downcall handle per C signature.</li>
 *   <li>One final class per native struct owns its {@code LAYOUT} (explicit padding, C member names; C's anonymous
 *       unions are named {@code $anon_*}), its offsets as {@code static final}s, and typed accessors or whole-struct
 *       encoders ({@link dev.rivulet.rdma.verbs.sys.IbvSendWr}, {@link dev.rivulet.rdma.verbs.sys.IbvQpAttr}).
 *       {@link dev.rivulet.rdma.verbs.sys.VerbsConstants} holds the constants under their C names; libc, errno and the
 *       POSIX structs ({@code sockaddr_in}, {@code pollfd}) are the shared layer's, {@link dev.rivulet.core.sys}.
 *       {@code VerbsAbiTest} checks every layout and constant, and the bytes of every encoder, against a C probe
 *       built from the installed headers.</li>
 * </ul>
 *
 * <h2>Rules the caller keeps</h2>
 * <ul>
 *   <li><b>Errors.</b> Set-up calls returning a pointer throw {@link dev.rivulet.rdma.verbs.sys.VerbsException} with the
 *       captured {@code errno}; librdmacm calls return 0 or {@code -errno}; libibverbs calls return what C returns (0
 *       or a positive errno; a post's {@code ENOMEM} is a full queue, not a failure).</li>
 *   <li><b>Threads.</b> Posts, polls and arming are linked with {@code Linker.Option.critical(false)}: short,
 *       non-blocking, never calling back. {@code ibv_get_cq_event} and {@code rdma_get_cm_event} are ordinary
 *       downcalls; make their descriptors non-blocking and wait with {@link dev.rivulet.core.sys.Descriptors#ppoll}.
 *       {@code -Ddev.rivulet.verbs.critical=false} links everything as ordinary downcalls.</li>
 *   <li><b>Ownership.</b> Work requests, scatter/gather lists and attribute structs are caller memory from an arena
 *       that outlives the call (for receive buffers and inline-less sends: the operation); events and device lists
 *       belong to the libraries until acknowledged or freed.</li>
 *   <li><b>Platform.</b> Linux LP64. Layouts are checked on x86-64; on aarch64 only the pthread members differ
 *       ({@code Pthread}), which the binding accounts for but has not run.</li>
 * </ul>
 */
@NullMarked
package dev.rivulet.rdma.verbs.sys;

import org.jspecify.annotations.NullMarked;
