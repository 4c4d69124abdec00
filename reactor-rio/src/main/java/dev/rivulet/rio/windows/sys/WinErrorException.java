package dev.rivulet.rio.windows.sys;

import java.util.Map;

/**
 * A failed Winsock, RIO or Win32 call with its error code ({@code WSAGetLastError()}, {@code GetLastError()}, or
 * the code a function returns directly). Local to the binding layer; the transport maps it to Rivulet's error
 * types, keeping {@link #code()}.
 */
public final class WinErrorException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(WinsockConstants.ERROR_INVALID_HANDLE, "ERROR_INVALID_HANDLE"),
            Map.entry(WinsockConstants.WAIT_TIMEOUT, "WAIT_TIMEOUT"),
            Map.entry(WinsockConstants.WSA_OPERATION_ABORTED, "WSA_OPERATION_ABORTED"),
            Map.entry(WinsockConstants.WSA_IO_PENDING, "WSA_IO_PENDING"),
            Map.entry(WinsockConstants.WSAEINTR, "WSAEINTR"),
            Map.entry(WinsockConstants.WSAEFAULT, "WSAEFAULT"),
            Map.entry(WinsockConstants.WSAEINVAL, "WSAEINVAL"),
            Map.entry(WinsockConstants.WSAEWOULDBLOCK, "WSAEWOULDBLOCK"),
            Map.entry(WinsockConstants.WSAEALREADY, "WSAEALREADY"),
            Map.entry(WinsockConstants.WSAEOPNOTSUPP, "WSAEOPNOTSUPP"),
            Map.entry(WinsockConstants.WSAEADDRINUSE, "WSAEADDRINUSE"),
            Map.entry(WinsockConstants.WSAECONNRESET, "WSAECONNRESET"),
            Map.entry(WinsockConstants.WSAENOBUFS, "WSAENOBUFS"),
            Map.entry(WinsockConstants.WSAECONNREFUSED, "WSAECONNREFUSED"),
            Map.entry(WinsockConstants.WSANOTINITIALISED, "WSANOTINITIALISED"));

    private final String function;
    private final int code;

    public WinErrorException(String function, int code) {
        super(function + " failed: " + name(code));
        this.function = function;
        this.code = code;
    }

    /** The symbolic name of a code this binding knows, else {@code "error N"}. */
    public static String name(int code) {
        String n = NAMES.get(code);
        return n != null ? n + " (" + code + ")" : "error " + code;
    }

    public String function() {
        return function;
    }

    public int code() {
        return code;
    }

    /** Queue full or a resource temporarily short: try again after reaping completions. */
    public boolean isRetryable() {
        return code == WinsockConstants.WSAENOBUFS || code == WinsockConstants.WSAEWOULDBLOCK
                || code == WinsockConstants.WSAEINTR;
    }
}
