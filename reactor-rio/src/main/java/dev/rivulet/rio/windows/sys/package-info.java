/**
 * Native binding for Windows Registered I/O (RIO), written against {@code java.lang.foreign} only.
 *
 * <p>The binding layer, nothing more: one small final class per Windows structure (laid out for 64-bit Windows,
 * LLP64: {@code LONG}/{@code ULONG}/{@code DWORD}/{@code BOOL} are 4 bytes, handles and pointers 8), the constants
 * under their SDK names, the documented prototypes as {@link java.lang.foreign.FunctionDescriptor}s
 * ({@link dev.rivulet.rio.windows.sys.RioFunction}, {@link dev.rivulet.rio.windows.sys.Win32Function}), and typed
 * invokers: {@link dev.rivulet.rio.windows.sys.Ws2_32} (Winsock setup, sockets, the function-table ioctl, the event
 * and IOCP park phase) and {@link dev.rivulet.rio.windows.sys.RioFunctions} (the thirteen RIO functions, reached only
 * through the table WSAIoctl returns). Transport logic lives above it.
 *
 * <p>This code cannot run on the Linux build machines. There, {@link dev.rivulet.rio.windows.sys.Ws2_32#availability()}
 * answers "requires Windows" from the system properties and nothing is loaded; the tests check every layout,
 * constant, GUID byte and prototype against the documented Windows definitions instead.
 */
@NullMarked
package dev.rivulet.rio.windows.sys;

import org.jspecify.annotations.NullMarked;
