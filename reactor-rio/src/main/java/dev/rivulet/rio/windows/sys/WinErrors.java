package dev.rivulet.rio.windows.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * Error capture for Windows downcalls: {@code WSAGetLastError()} / {@code GetLastError()} saved by the JVM right
 * after the call ({@code Linker.Option.captureCallState}), before anything else can overwrite them.
 *
 * <p>Windows only: the capture names exist only in the Windows linker's capture layout, so initialising this
 * class elsewhere fails. Only code behind {@link Ws2_32#open()} (which refuses to run off Windows) touches it.
 */
final class WinErrors {

    static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    static final Linker.Option CAPTURE_WSA = Linker.Option.captureCallState("WSAGetLastError");
    static final Linker.Option CAPTURE_WIN32 = Linker.Option.captureCallState("GetLastError");

    private static final VarHandle WSA = CAPTURE_LAYOUT.varHandle(groupElement("WSAGetLastError"));
    private static final VarHandle WIN32 = CAPTURE_LAYOUT.varHandle(groupElement("GetLastError"));

    /** One capture segment per thread (RIO queues may be driven from several threads, each its own queues). */
    private static final ThreadLocal<MemorySegment> STATE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE_LAYOUT));

    private WinErrors() {
    }

    static MemorySegment state() {
        return STATE.get();
    }

    static int wsaError(MemorySegment state) {
        return (int) WSA.get(state, 0L);
    }

    static int win32Error(MemorySegment state) {
        return (int) WIN32.get(state, 0L);
    }

    static Linker.Option[] options(Win32Function.ErrorSource source) {
        return switch (source) {
            case RETURN_VALUE -> new Linker.Option[0];
            case WSA -> new Linker.Option[] {CAPTURE_WSA};
            case WIN32 -> new Linker.Option[] {CAPTURE_WIN32};
        };
    }

    /** A function's error, from wherever it reports it. */
    static WinErrorException failure(String function, Win32Function.ErrorSource source, MemorySegment state) {
        int code = source == Win32Function.ErrorSource.WIN32 ? win32Error(state) : wsaError(state);
        return new WinErrorException(function, code);
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }
}
