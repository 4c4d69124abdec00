/**
 * Native binding for libfabric (OFI) 1.17 through the Panama FFM API: layouts, downcall handles, constants and
 * typed accessors, nothing else. No JNI, no generated code, no C shim; the transport built on top lives in
 * {@code dev.rivulet.rdma.fabric}.
 *
 * <h2>Shape</h2>
 * <ul>
 *   <li>{@link dev.rivulet.rdma.fabric.sys.Libfabric} loads {@code libfabric.so.1} and binds the few functions the
 *       library really exports ({@code fi_getinfo}, {@code fi_freeinfo}, {@code fi_dupinfo}, {@code fi_fabric},
 *       {@code fi_version}, {@code fi_strerror}, {@code fi_tostr_r}), pinned to the symbol versions whose ABI
 *       the layouts describe. {@code isAvailable()} / {@code unavailableReason()} tell whether it can be used.</li>
 *   <li>One final class per native struct owns its {@code LAYOUT} (with explicit padding), its field offsets as
 *       {@code static final}s and static typed accessors taking the struct's {@code MemorySegment}:
 *       {@link dev.rivulet.rdma.fabric.sys.FiInfo} and its attribute structs, {@code FiCqAttr}, {@code FiAvAttr},
 *       {@code FiMrAttr}, the CQ entries, the {@code fi_msg*} / iov / ioc argument structs,
 *       {@code FiContext2}.</li>
 *   <li>The object types {@link dev.rivulet.rdma.fabric.sys.Fid}, {@code FidFabric}, {@code FidDomain},
 *       {@code FidEp}, {@code FidCq}, {@code FidAv}, {@code FidMr} carry the calls that libfabric's headers
 *       define {@code static inline}: they read the ops-table pointer out of the object, the function pointer out
 *       of the table, and invoke it through one address-less downcall handle per C signature. Each Java method
 *       has exactly the C parameter list (pointers as {@code MemorySegment}, {@code size_t}/{@code uint64_t}/
 *       {@code fi_addr_t} as {@code long}, enums as {@code int}) and returns the C result.</li>
 *   <li>{@link dev.rivulet.rdma.fabric.sys.FiConstants} holds every constant under its C name;
 *       {@code LibfabricAbiTest} checks all layouts and constants against a C probe built from the installed
 *       headers.</li>
 * </ul>
 *
 * <h2>Rules the caller keeps</h2>
 * <ul>
 *   <li><b>Ownership.</b> {@code fi_info} and its attribute structs are allocated and freed by libfabric
 *       ({@code allocinfo}/{@code dupinfo}/{@code getinfo} → {@code freeinfo}); strings and addresses stored in
 *       them are {@code free()}d by {@code fi_freeinfo}, so the setters for them copy into libc memory. Everything
 *       else Java passes in (attrs, iovs, CQ entry arrays, names) is caller memory from an {@code Arena} whose
 *       owner outlives the call, and for contexts and buffers, the operation.</li>
 *   <li><b>Errors.</b> Calls return C results: 0/positive on success, negative fabric errno on failure;
 *       {@code -FI_EAGAIN} from a post is back-pressure (drive CQs and retry), {@code -FI_EAVAIL} from a CQ read
 *       means an error entry awaits {@code FidCq.readerr}. A slot the provider leaves empty yields
 *       {@code -FI_ENOSYS} instead of a crash. {@link dev.rivulet.rdma.fabric.sys.LibfabricException#check} turns
 *       setup failures into exceptions.</li>
 *   <li><b>Threads.</b> Posting and polling calls are linked with {@code Linker.Option.critical(false)}: they must
 *       stay short, so the blocking {@code FidCq.sread} is not, and must only be used on CQs opened with a wait
 *       object. {@code -Ddev.rivulet.libfabric.critical=false} links everything as ordinary downcalls.</li>
 *   <li><b>Platform.</b> Linux LP64 (x86-64, aarch64) only: layouts assume 8-byte pointers/{@code size_t}, and
 *       errno-based error numbers carry Linux values.</li>
 * </ul>
 */
@NullMarked
package dev.rivulet.rdma.fabric.sys;

import org.jspecify.annotations.NullMarked;
