/**
 * The few Linux system calls the shared-memory transport cannot make through the JDK, bound with
 * {@code java.lang.foreign} only: {@code futex} (wake) and {@code futex_waitv} (one sleep on many words) through
 * libc's {@code syscall}, libc's {@code process_vm_readv}/{@code process_vm_writev} (cross-memory attach), and
 * {@code prctl(PR_SET_DUMPABLE)} and {@code fcntl(F_SETFD)} for the transport's hardening. Files, mappings and
 * sockets go through {@code java.nio}; nothing else here.
 *
 * <p>Failures surface as {@link dev.rivulet.rio.uring.sys.ErrnoException}, errno captured with
 * {@code Linker.Option.captureCallState("errno")} as in the io_uring binding.
 */
@NullMarked
package dev.rivulet.rio.shm.sys;

import org.jspecify.annotations.NullMarked;
