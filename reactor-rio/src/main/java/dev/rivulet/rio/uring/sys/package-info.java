/**
 * Native binding for Linux io_uring, written against {@code java.lang.foreign} only: raw system calls through
 * libc's {@code syscall}, the kernel-shared rings mapped with libc's {@code mmap}, no liburing, no JNI, no C shim.
 * libc itself, errno and the POSIX structs (iovec, sockaddr, timespec, msghdr) are the shared native layer's, in
 * {@link dev.rivulet.core.sys}.
 *
 * <p>This is the binding layer, nothing more: layouts, constants, system calls and the ring mechanics a transport
 * builds on. Endpoints, credit, framing and reactive types live in the transport package above it.
 *
 * <ul>
 *   <li>{@link dev.rivulet.rio.uring.sys.IoUringSyscalls}: {@code io_uring_setup/enter/register}, returning
 *       {@code -errno} rather than throwing so expected outcomes ({@code ETIME}, {@code EINTR}) stay cheap.</li>
 *   <li>One small final class per native struct ({@link dev.rivulet.rio.uring.sys.IoUringParams},
 *       {@link dev.rivulet.rio.uring.sys.IoSqringOffsets}, {@link dev.rivulet.rio.uring.sys.IoCqringOffsets},
 *       {@link dev.rivulet.rio.uring.sys.IoUringSqe}, {@link dev.rivulet.rio.uring.sys.IoUringCqe},
 *       {@link dev.rivulet.rio.uring.sys.IoUringGeteventsArg}, {@link dev.rivulet.rio.uring.sys.IoUringProbe}),
 *       each owning its layout, explicit padding and cached {@code VarHandle}s; no raw offsets elsewhere.</li>
 *   <li>{@link dev.rivulet.rio.uring.sys.IoUringConstants}: the header's constants under their C names.</li>
 *   <li>{@link dev.rivulet.rio.uring.sys.IoUring}: one ring, with the memory-ordering rules of io_uring(7) applied
 *       through {@code VarHandle} acquire/release accesses, and allocation-free submission and reaping.</li>
 * </ul>
 *
 * <p>Failures of system calls surface as {@link dev.rivulet.core.sys.ErrnoException} (errno plus libc's text),
 * captured with {@code Linker.Option.captureCallState("errno")}. The ABI test compiles a C probe against the
 * installed {@code <linux/io_uring.h>} and compares every size, offset and constant used here.
 */
@NullMarked
package dev.rivulet.rio.uring.sys;

import org.jspecify.annotations.NullMarked;
