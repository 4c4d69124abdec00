package dev.rivulet.rio.windows.sys;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every Windows layout against the documented 64-bit definitions. Nothing Windows can be compiled or run here,
 * so the expected numbers are written down as data, each traceable to the SDK header quoted next to it (as
 * mirrored in microsoft/win32metadata, generation/WinSDK/RecompiledIdlHeaders) under LLP64 rules: LONG, ULONG,
 * DWORD, BOOL, INT and enums are 4 bytes; HANDLE, PVOID, RIO_* handles, ULONG_PTR and SOCKET are 8; structures are
 * aligned to their widest member.
 */
class RioLayoutTest {

    /** name -> {size, alignment}. */
    private static final Map<String, long[]> SIZES = Map.ofEntries(
            // mswsockdef.h: typedef struct _RIO_BUF { RIO_BUFFERID BufferId; ULONG Offset; ULONG Length; }
            Map.entry("RIO_BUF", new long[] {16, 8}),
            // mswsockdef.h: typedef struct _RIORESULT { LONG Status; ULONG BytesTransferred;
            //               ULONGLONG SocketContext; ULONGLONG RequestContext; }
            Map.entry("RIORESULT", new long[] {24, 8}),
            // MSWSock.h: { RIO_NOTIFICATION_COMPLETION_TYPE Type; union { struct { HANDLE EventHandle;
            //            BOOL NotifyReset; } Event; struct { HANDLE IocpHandle; PVOID CompletionKey;
            //            PVOID Overlapped; } Iocp; }; }
            Map.entry("RIO_NOTIFICATION_COMPLETION", new long[] {32, 8}),
            // MSWSock.h: { DWORD cbSize; LPFN_RIORECEIVE RIOReceive; ... LPFN_RIORESIZEREQUESTQUEUE ...; }
            Map.entry("RIO_EXTENSION_FUNCTION_TABLE", new long[] {112, 8}),
            // guiddef.h: { unsigned long Data1; unsigned short Data2; unsigned short Data3; unsigned char Data4[8]; }
            Map.entry("GUID", new long[] {16, 4}),
            // WinSock2.h, _WIN64 branch: { WORD wVersion; WORD wHighVersion; unsigned short iMaxSockets;
            //   unsigned short iMaxUdpDg; char FAR *lpVendorInfo; char szDescription[257];
            //   char szSystemStatus[129]; }
            Map.entry("WSADATA", new long[] {408, 8}),
            // minwinbase.h: { ULONG_PTR Internal; ULONG_PTR InternalHigh; union { struct { DWORD Offset;
            //   DWORD OffsetHigh; }; PVOID Pointer; }; HANDLE hEvent; }
            Map.entry("OVERLAPPED", new long[] {32, 8}),
            // minwinbase.h: { ULONG_PTR lpCompletionKey; LPOVERLAPPED lpOverlapped; ULONG_PTR Internal;
            //   DWORD dwNumberOfBytesTransferred; }
            Map.entry("OVERLAPPED_ENTRY", new long[] {32, 8}),
            // ws2def.h: { ADDRESS_FAMILY sin_family; USHORT sin_port; IN_ADDR sin_addr; CHAR sin_zero[8]; }
            Map.entry("SOCKADDR_IN", new long[] {16, 4}),
            // ws2ipdef.h: { ADDRESS_FAMILY sin6_family; USHORT sin6_port; ULONG sin6_flowinfo; IN6_ADDR sin6_addr;
            //   union { ULONG sin6_scope_id; SCOPE_ID sin6_scope_struct; }; }
            Map.entry("SOCKADDR_IN6", new long[] {28, 4}),
            // WinSock2.h: typedef struct pollfd { SOCKET fd; SHORT events; SHORT revents; } WSAPOLLFD
            Map.entry("WSAPOLLFD", new long[] {16, 8}));

    /** "STRUCT.member" -> {offset, size}; nested named structs (Event, Iocp) listed with their members. */
    private static final Map<String, long[]> MEMBERS = members();

    private static Map<String, long[]> members() {
        Map<String, long[]> m = new LinkedHashMap<>();
        m.put("RIO_BUF.BufferId", new long[] {0, 8});
        m.put("RIO_BUF.Offset", new long[] {8, 4});
        m.put("RIO_BUF.Length", new long[] {12, 4});

        m.put("RIORESULT.Status", new long[] {0, 4});
        m.put("RIORESULT.BytesTransferred", new long[] {4, 4});
        m.put("RIORESULT.SocketContext", new long[] {8, 8});
        m.put("RIORESULT.RequestContext", new long[] {16, 8});

        m.put("RIO_NOTIFICATION_COMPLETION.Type", new long[] {0, 4});
        m.put("RIO_NOTIFICATION_COMPLETION.Event", new long[] {8, 16});
        m.put("RIO_NOTIFICATION_COMPLETION.Event.EventHandle", new long[] {8, 8});
        m.put("RIO_NOTIFICATION_COMPLETION.Event.NotifyReset", new long[] {16, 4});
        m.put("RIO_NOTIFICATION_COMPLETION.Iocp", new long[] {8, 24});
        m.put("RIO_NOTIFICATION_COMPLETION.Iocp.IocpHandle", new long[] {8, 8});
        m.put("RIO_NOTIFICATION_COMPLETION.Iocp.CompletionKey", new long[] {16, 8});
        m.put("RIO_NOTIFICATION_COMPLETION.Iocp.Overlapped", new long[] {24, 8});

        m.put("RIO_EXTENSION_FUNCTION_TABLE.cbSize", new long[] {0, 4});
        List<String> slots = List.of("RIOReceive", "RIOReceiveEx", "RIOSend", "RIOSendEx", "RIOCloseCompletionQueue",
                "RIOCreateCompletionQueue", "RIOCreateRequestQueue", "RIODequeueCompletion", "RIODeregisterBuffer",
                "RIONotify", "RIORegisterBuffer", "RIOResizeCompletionQueue", "RIOResizeRequestQueue");
        for (int i = 0; i < slots.size(); i++) {
            m.put("RIO_EXTENSION_FUNCTION_TABLE." + slots.get(i), new long[] {8 + 8L * i, 8});
        }

        m.put("GUID.Data1", new long[] {0, 4});
        m.put("GUID.Data2", new long[] {4, 2});
        m.put("GUID.Data3", new long[] {6, 2});
        m.put("GUID.Data4", new long[] {8, 8});

        m.put("WSADATA.wVersion", new long[] {0, 2});
        m.put("WSADATA.wHighVersion", new long[] {2, 2});
        m.put("WSADATA.iMaxSockets", new long[] {4, 2});
        m.put("WSADATA.iMaxUdpDg", new long[] {6, 2});
        m.put("WSADATA.lpVendorInfo", new long[] {8, 8});
        m.put("WSADATA.szDescription", new long[] {16, 257});
        m.put("WSADATA.szSystemStatus", new long[] {273, 129});

        m.put("OVERLAPPED.Internal", new long[] {0, 8});
        m.put("OVERLAPPED.InternalHigh", new long[] {8, 8});
        m.put("OVERLAPPED.Offset", new long[] {16, 4});
        m.put("OVERLAPPED.OffsetHigh", new long[] {20, 4});
        m.put("OVERLAPPED.Pointer", new long[] {16, 8});
        m.put("OVERLAPPED.hEvent", new long[] {24, 8});

        m.put("OVERLAPPED_ENTRY.lpCompletionKey", new long[] {0, 8});
        m.put("OVERLAPPED_ENTRY.lpOverlapped", new long[] {8, 8});
        m.put("OVERLAPPED_ENTRY.Internal", new long[] {16, 8});
        m.put("OVERLAPPED_ENTRY.dwNumberOfBytesTransferred", new long[] {24, 4});

        m.put("SOCKADDR_IN.sin_family", new long[] {0, 2});
        m.put("SOCKADDR_IN.sin_port", new long[] {2, 2});
        m.put("SOCKADDR_IN.sin_addr", new long[] {4, 4});
        m.put("SOCKADDR_IN.sin_zero", new long[] {8, 8});

        m.put("SOCKADDR_IN6.sin6_family", new long[] {0, 2});
        m.put("SOCKADDR_IN6.sin6_port", new long[] {2, 2});
        m.put("SOCKADDR_IN6.sin6_flowinfo", new long[] {4, 4});
        m.put("SOCKADDR_IN6.sin6_addr", new long[] {8, 16});
        m.put("SOCKADDR_IN6.sin6_scope_id", new long[] {24, 4});

        m.put("WSAPOLLFD.fd", new long[] {0, 8});
        m.put("WSAPOLLFD.events", new long[] {8, 2});
        m.put("WSAPOLLFD.revents", new long[] {10, 2});
        return m;
    }

    private static final List<StructLayout> LAYOUTS = List.of(
            RioBuf.LAYOUT, RioResult.LAYOUT, RioNotificationCompletion.LAYOUT, RioExtensionFunctionTable.LAYOUT,
            Guid.LAYOUT, WsaData.LAYOUT, Overlapped.LAYOUT, OverlappedEntry.LAYOUT, SockaddrIn.LAYOUT,
            SockaddrIn6.LAYOUT, WsaPollFd.LAYOUT);

    @Test
    void everyStructHasTheDocumentedSizeAndAlignment() {
        assertThat(LAYOUTS).extracting(l -> l.name().orElseThrow()).containsExactlyInAnyOrderElementsOf(SIZES.keySet());
        for (StructLayout layout : LAYOUTS) {
            String name = layout.name().orElseThrow();
            assertThat(new long[] {layout.byteSize(), layout.byteAlignment()}).as("size, alignment of %s", name)
                    .containsExactly(SIZES.get(name));
        }
    }

    @Test
    void everyMemberHasTheDocumentedOffsetAndSize() {
        Map<String, long[]> java = new LinkedHashMap<>();
        for (StructLayout layout : LAYOUTS) {
            walk(layout, layout.name().orElseThrow(), 0, java);
        }
        assertThat(java.keySet()).containsExactlyInAnyOrderElementsOf(MEMBERS.keySet());
        MEMBERS.forEach((path, expected) ->
                assertThat(java.get(path)).as("offset, size of %s", path).containsExactly(expected));
    }

    @Test
    void functionTableSlotsFollowRioFunctionOrder() {
        for (RioFunction f : RioFunction.values()) {
            assertThat(RioExtensionFunctionTable.offsetOf(f)).as(f.cName()).isEqualTo(8 + 8L * f.ordinal());
        }
    }

    @Test
    void notificationSettersWriteTheDocumentedOffsets() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment n = arena.allocate(RioNotificationCompletion.LAYOUT);
            RioNotificationCompletion.setIocp(n, MemorySegment.ofAddress(0x1111), 0x2222, MemorySegment.ofAddress(0x3333));
            assertThat(n.get(ValueLayout.JAVA_INT, 0)).isEqualTo(RioConstants.RIO_IOCP_COMPLETION);
            assertThat(n.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(0x1111);
            assertThat(n.get(ValueLayout.JAVA_LONG, 16)).isEqualTo(0x2222);
            assertThat(n.get(ValueLayout.JAVA_LONG, 24)).isEqualTo(0x3333);

            RioNotificationCompletion.setEvent(n, MemorySegment.ofAddress(0x4444), true);
            assertThat(n.get(ValueLayout.JAVA_INT, 0)).isEqualTo(RioConstants.RIO_EVENT_COMPLETION);
            assertThat(n.get(ValueLayout.JAVA_LONG, 8)).isEqualTo(0x4444);
            assertThat(n.get(ValueLayout.JAVA_INT, 16)).isEqualTo(1);
            assertThat(n.get(ValueLayout.JAVA_LONG, 24)).as("stale IOCP field cleared").isZero();
        }
    }

    @Test
    void rioBufArrayElementsAreSixteenBytesApart() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bufs = arena.allocate(RioBuf.LAYOUT, 2);
            RioBuf.set(bufs, 1, MemorySegment.ofAddress(0xABCD), 64, 1024);
            assertThat(bufs.get(ValueLayout.JAVA_LONG, 16)).isEqualTo(0xABCD);
            assertThat(bufs.get(ValueLayout.JAVA_INT, 24)).isEqualTo(64);
            assertThat(bufs.get(ValueLayout.JAVA_INT, 28)).isEqualTo(1024);
        }
    }

    @Test
    void windowsSockaddrUsesItsOwnFamilyNumbersAndNetworkOrderPorts() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            var v6 = new java.net.InetSocketAddress(java.net.InetAddress.getByName("::1"), 0x1F90);
            MemorySegment s = Ws2_32.sockaddr(arena, v6);
            assertThat(s.byteSize()).isEqualTo(28);
            assertThat(s.toArray(ValueLayout.JAVA_BYTE)).startsWith((byte) 23, (byte) 0, (byte) 0x1F, (byte) 0x90);
            assertThat(Ws2_32.decode(s)).isEqualTo(v6);

            var v4 = new java.net.InetSocketAddress(java.net.InetAddress.getByName("127.0.0.1"), 80);
            assertThat(Ws2_32.sockaddr(arena, v4).toArray(ValueLayout.JAVA_BYTE))
                    .startsWith((byte) 2, (byte) 0, (byte) 0, (byte) 80, (byte) 127, (byte) 0, (byte) 0, (byte) 1);
        }
    }

    /** Named, non-padding members with absolute offsets; anonymous unions/structs add no name segment. */
    private static void walk(GroupLayout group, String prefix, long base, Map<String, long[]> out) {
        long offset = 0;
        for (MemoryLayout member : group.memberLayouts()) {
            long at = group instanceof StructLayout ? offset : 0;
            if (!(member instanceof PaddingLayout)) {
                String path = member.name().map(n -> prefix + "." + n).orElse(prefix);
                if (member.name().isPresent()) {
                    out.put(path, new long[] {base + at, member.byteSize()});
                }
                if (member instanceof GroupLayout nested) {
                    walk(nested, path, base + at, out);
                }
            }
            offset += member.byteSize();
        }
    }
}
