/**
 * The native layer every Linux backend shares: libc bound once with {@code java.lang.foreign}, and the POSIX structs
 * bound once. A backend's own {@code sys} package keeps only what is specific to its library (io_uring's system
 * calls and structs, futexes, libfabric, ibverbs and rdma_cm) and calls this package for the rest.
 *
 * <ul>
 *   <li>{@link dev.rivulet.core.sys.Downcalls}: linking libc (or any library's) functions, and {@code errno} captured
 *       with {@code Linker.Option.captureCallState("errno")} into a per-thread or caller-owned segment.</li>
 *   <li>{@link dev.rivulet.core.sys.Errno} and {@link dev.rivulet.core.sys.ErrnoException}: error numbers, libc's
 *       names and texts for them, and the exception a failed call throws.</li>
 *   <li>{@link dev.rivulet.core.sys.Libc} (C heap, environment, versioned symbols, {@code syscall}, clocks),
 *       {@link dev.rivulet.core.sys.Mappings} ({@code mmap}, page size), {@link dev.rivulet.core.sys.Descriptors}
 *       ({@code close}, {@code read}/{@code write}, {@code fcntl}, {@code eventfd}, {@code poll}/{@code ppoll}),
 *       {@link dev.rivulet.core.sys.Epoll} and {@link dev.rivulet.core.sys.LibcSockets} (sockets and their
 *       addresses).</li>
 *   <li>The POSIX structs: {@link dev.rivulet.core.sys.Iovec}, {@link dev.rivulet.core.sys.SockaddrIn},
 *       {@link dev.rivulet.core.sys.SockaddrIn6}, {@link dev.rivulet.core.sys.SockaddrStorage},
 *       {@link dev.rivulet.core.sys.Timespec}, {@link dev.rivulet.core.sys.Pollfd},
 *       {@link dev.rivulet.core.sys.Msghdr}, {@link dev.rivulet.core.sys.Linger},
 *       {@link dev.rivulet.core.sys.EpollEvent}.</li>
 * </ul>
 *
 * <h2>Binding a struct</h2>
 * Every native struct, here and in the backends, has one small final class named after the C struct and never
 * instantiated. It owns the struct's {@code public static final StructLayout LAYOUT}, built with the C member names
 * and explicit padding (so {@code LAYOUT.byteSize()} and every offset match the header), and its
 * {@code SIZE}. It resolves its accessors once from {@code LAYOUT} by member name into {@code private static
 * final} {@code VarHandle}s (or byte offsets, where a struct is read through raw pointers), and offers typed static
 * accessors that take the {@code MemorySegment} holding the struct (and an index for arrays of it). No other code
 * computes an offset of that struct. An ABI test compiles a C probe against the real header and compares the size
 * and every member offset of {@code LAYOUT}, and the value of every constant.
 *
 * <p>Exported only to Rivulet's backend modules; nothing here is API.
 */
@NullMarked
package dev.rivulet.core.sys;

import org.jspecify.annotations.NullMarked;
