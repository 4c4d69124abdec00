package dev.rivulet.rio.windows.sys;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every RIO/Winsock constant and the WSAID_MULTIPLE_RIO bytes against the documented SDK values, written down as
 * data with the header each comes from. Checked in both directions: a constant added to Java without a documented
 * value here fails too.
 */
class RioConstantsTest {

    private static final Map<String, Long> DOCUMENTED = documented();

    private static Map<String, Long> documented() {
        Map<String, Long> m = new LinkedHashMap<>();
        // mswsockdef.h
        m.put("RIO_MSG_DONT_NOTIFY", 0x1L);
        m.put("RIO_MSG_DEFER", 0x2L);
        m.put("RIO_MSG_WAITALL", 0x4L);
        m.put("RIO_MSG_COMMIT_ONLY", 0x8L);
        m.put("RIO_INVALID_BUFFERID", 0xFFFFFFFFL);
        m.put("RIO_INVALID_CQ", 0L);
        m.put("RIO_INVALID_RQ", 0L);
        m.put("RIO_MAX_CQ_SIZE", 0x8000000L);
        m.put("RIO_CORRUPT_CQ", 0xFFFFFFFFL);
        // MSWSock.h: enum _RIO_NOTIFICATION_COMPLETION_TYPE
        m.put("RIO_EVENT_COMPLETION", 1L);
        m.put("RIO_IOCP_COMPLETION", 2L);
        // WinSock2.h
        m.put("WINSOCK_VERSION_2_2", 0x0202L);
        m.put("WSA_FLAG_OVERLAPPED", 0x01L);
        m.put("WSA_FLAG_NO_HANDLE_INHERIT", 0x80L);
        m.put("WSA_FLAG_REGISTERED_IO", 0x100L);
        m.put("INVALID_SOCKET", 0xFFFFFFFFFFFFFFFFL); // (SOCKET)(~0), 64-bit
        m.put("SOCKET_ERROR", -1L);
        m.put("SD_RECEIVE", 0L);
        m.put("SD_SEND", 1L);
        m.put("SD_BOTH", 2L);
        // ws2def.h: IOC_*, _WSAIORW(IOC_WS2, 6) and (IOC_WS2, 36)
        m.put("IOC_OUT", 0x40000000L);
        m.put("IOC_IN", 0x80000000L);
        m.put("IOC_WS2", 0x08000000L);
        m.put("SIO_GET_EXTENSION_FUNCTION_POINTER", 0x80000000L | 0x40000000L | 0x08000000L | 6);
        m.put("SIO_GET_MULTIPLE_EXTENSION_FUNCTION_POINTER", 0x80000000L | 0x40000000L | 0x08000000L | 36);
        m.put("AF_INET", 2L);
        m.put("AF_INET6", 23L);
        m.put("SOCK_STREAM", 1L);
        m.put("SOCK_DGRAM", 2L);
        m.put("IPPROTO_TCP", 6L);
        m.put("IPPROTO_UDP", 17L);
        m.put("IPPROTO_IPV6", 41L);
        m.put("SOL_SOCKET", 0xFFFFL);
        m.put("SO_REUSEADDR", 0x0004L);
        m.put("SO_EXCLUSIVEADDRUSE", (long) ~0x0004);
        m.put("SO_SNDBUF", 0x1001L);
        m.put("SO_RCVBUF", 0x1002L);
        m.put("TCP_NODELAY", 0x0001L);
        m.put("SO_KEEPALIVE", 0x0008L);
        // ws2ipdef.h: TCP_KEEPALIVE (TCP_KEEPIDLE), TCP_MAXRT, TCP_KEEPCNT, TCP_KEEPINTVL
        m.put("TCP_KEEPIDLE", 3L);
        m.put("TCP_MAXRT", 5L);
        m.put("TCP_KEEPCNT", 16L);
        m.put("TCP_KEEPINTVL", 17L);
        // WinSock2.h: WSAPoll event bits
        m.put("POLLRDNORM", 0x0100L);
        m.put("POLLWRNORM", 0x0010L);
        m.put("POLLERR", 0x0001L);
        m.put("POLLHUP", 0x0002L);
        m.put("POLLNVAL", 0x0004L);
        // ws2ipdef.h
        m.put("IPV6_V6ONLY", 27L);
        // WinBase.h / winerror.h / handleapi.h
        m.put("INVALID_HANDLE_VALUE", -1L);
        m.put("INFINITE", 0xFFFFFFFFL);
        m.put("WAIT_OBJECT_0", 0L);
        m.put("WAIT_TIMEOUT", 258L);
        m.put("WAIT_FAILED", 0xFFFFFFFFL);
        m.put("ERROR_INVALID_HANDLE", 6L);
        m.put("WSA_OPERATION_ABORTED", 995L);
        m.put("WSA_IO_PENDING", 997L);
        m.put("WSAEINTR", 10004L);
        m.put("WSAEFAULT", 10014L);
        m.put("WSAEINVAL", 10022L);
        m.put("WSAEWOULDBLOCK", 10035L);
        m.put("WSAEALREADY", 10037L);
        m.put("WSAEOPNOTSUPP", 10045L);
        m.put("WSAEADDRINUSE", 10048L);
        m.put("WSAECONNRESET", 10054L);
        m.put("WSAENOBUFS", 10055L);
        m.put("WSAECONNREFUSED", 10061L);
        m.put("WSANOTINITIALISED", 10093L);
        return m;
    }

    @Test
    void everyConstantHasItsDocumentedValue() throws IllegalAccessException {
        Map<String, Long> java = new LinkedHashMap<>();
        for (Class<?> type : new Class<?>[] {RioConstants.class, WinsockConstants.class}) {
            for (Field f : type.getDeclaredFields()) {
                int m = f.getModifiers();
                if (Modifier.isStatic(m) && Modifier.isFinal(m) && f.getType().isPrimitive()) {
                    java.put(f.getName(), f.getLong(null)); // widens short/int fields
                }
            }
        }
        assertThat(java.keySet()).containsExactlyInAnyOrderElementsOf(DOCUMENTED.keySet());
        java.forEach((name, v) -> {
            long documented = DOCUMENTED.get(name);
            // C's unsigned 32-bit values arrive as negative Java ints: compare their bit patterns.
            boolean same = v == documented || (v < 0 && v >= Integer.MIN_VALUE && (v & 0xFFFFFFFFL) == documented);
            assertThat(same).as("%s: Java %s, documented %s", name, v, documented).isTrue();
        });
    }

    @Test
    void wsaidMultipleRioHasTheDocumentedMemoryImage() {
        assertThat(HexFormat.ofDelimiter(" ").formatHex(Guid.WSAID_MULTIPLE_RIO.toBytes()))
                .isEqualTo("81 e0 09 85 dd 96 05 40 b1 65 9e 2e e8 c7 9e 3f");
        assertThat(Guid.WSAID_MULTIPLE_RIO).hasToString("8509e081-96dd-4005-b165-9e2ee8c79e3f");
    }
}
