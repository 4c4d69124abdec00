package dev.rivulet.rio.windows.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The function descriptors against the documented C prototypes, written here as data (return type and parameter
 * types exactly as the SDK spells them) and mapped to carriers by the Windows x64 (LLP64) rules below. A wrong
 * arity or a 32/64-bit mix-up would corrupt arguments on Windows; this test is where such a mistake shows up on a
 * Linux build.
 */
class RioPrototypeTest {

    /** C type -> carrier on Windows x64; {@code null} = void. */
    private static final Map<String, MemoryLayout> CARRIERS = carriers();

    private static Map<String, MemoryLayout> carriers() {
        Map<String, MemoryLayout> m = new LinkedHashMap<>();
        for (String t : new String[] {"BOOL", "INT", "int", "LONG", "ULONG", "DWORD", "GROUP"}) {
            m.put(t, JAVA_INT); // 32-bit even on 64-bit Windows (LLP64)
        }
        m.put("WORD", JAVA_SHORT);
        m.put("SOCKET", JAVA_LONG);    // UINT_PTR
        m.put("ULONG_PTR", JAVA_LONG);
        for (String t : new String[] {"RIO_RQ", "RIO_CQ", "RIO_BUFFERID", "HANDLE", "WSAEVENT", "PVOID", "LPVOID",
                "PCHAR", "PRIO_BUF", "PRIO_NOTIFICATION_COMPLETION", "PRIORESULT", "LPWSADATA",
                "LPWSAPROTOCOL_INFOW", "LPDWORD", "LPWSAOVERLAPPED", "LPWSAOVERLAPPED_COMPLETION_ROUTINE",
                "const struct sockaddr *", "struct sockaddr *", "int *", "const char *", "PULONG_PTR",
                "LPOVERLAPPED", "LPOVERLAPPED *", "char *", "LPWSAPOLLFD"}) {
            m.put(t, ADDRESS);
        }
        m.put("VOID", null);
        return m;
    }

    /** MSWSock.h 538-651, the LPFN_RIO* typedefs. */
    private static final Map<RioFunction, String> RIO_PROTOTYPES = Map.ofEntries(
            Map.entry(RioFunction.RIO_RECEIVE, "BOOL RIOReceive(RIO_RQ, PRIO_BUF, ULONG, DWORD, PVOID)"),
            Map.entry(RioFunction.RIO_RECEIVE_EX, "int RIOReceiveEx(RIO_RQ, PRIO_BUF, ULONG, PRIO_BUF, PRIO_BUF, "
                    + "PRIO_BUF, PRIO_BUF, DWORD, PVOID)"),
            Map.entry(RioFunction.RIO_SEND, "BOOL RIOSend(RIO_RQ, PRIO_BUF, ULONG, DWORD, PVOID)"),
            Map.entry(RioFunction.RIO_SEND_EX, "BOOL RIOSendEx(RIO_RQ, PRIO_BUF, ULONG, PRIO_BUF, PRIO_BUF, "
                    + "PRIO_BUF, PRIO_BUF, DWORD, PVOID)"),
            Map.entry(RioFunction.RIO_CLOSE_COMPLETION_QUEUE, "VOID RIOCloseCompletionQueue(RIO_CQ)"),
            Map.entry(RioFunction.RIO_CREATE_COMPLETION_QUEUE,
                    "RIO_CQ RIOCreateCompletionQueue(DWORD, PRIO_NOTIFICATION_COMPLETION)"),
            Map.entry(RioFunction.RIO_CREATE_REQUEST_QUEUE, "RIO_RQ RIOCreateRequestQueue(SOCKET, ULONG, ULONG, "
                    + "ULONG, ULONG, RIO_CQ, RIO_CQ, PVOID)"),
            Map.entry(RioFunction.RIO_DEQUEUE_COMPLETION, "ULONG RIODequeueCompletion(RIO_CQ, PRIORESULT, ULONG)"),
            Map.entry(RioFunction.RIO_DEREGISTER_BUFFER, "VOID RIODeregisterBuffer(RIO_BUFFERID)"),
            Map.entry(RioFunction.RIO_NOTIFY, "INT RIONotify(RIO_CQ)"),
            Map.entry(RioFunction.RIO_REGISTER_BUFFER, "RIO_BUFFERID RIORegisterBuffer(PCHAR, DWORD)"),
            Map.entry(RioFunction.RIO_RESIZE_COMPLETION_QUEUE, "BOOL RIOResizeCompletionQueue(RIO_CQ, DWORD)"),
            Map.entry(RioFunction.RIO_RESIZE_REQUEST_QUEUE, "BOOL RIOResizeRequestQueue(RIO_RQ, DWORD, DWORD)"));

    /** WinSock2.h, WinBase.h / ioapiset.h / handleapi.h / synchapi.h, as on Microsoft Learn. */
    private static final Map<Win32Function, String> WIN32_PROTOTYPES = Map.ofEntries(
            Map.entry(Win32Function.WSA_STARTUP, "int WSAStartup(WORD, LPWSADATA)"),
            Map.entry(Win32Function.WSA_CLEANUP, "int WSACleanup()"),
            Map.entry(Win32Function.WSA_SOCKET_W,
                    "SOCKET WSASocketW(int, int, int, LPWSAPROTOCOL_INFOW, GROUP, DWORD)"),
            Map.entry(Win32Function.WSA_IOCTL, "int WSAIoctl(SOCKET, DWORD, LPVOID, DWORD, LPVOID, DWORD, LPDWORD, "
                    + "LPWSAOVERLAPPED, LPWSAOVERLAPPED_COMPLETION_ROUTINE)"),
            Map.entry(Win32Function.CLOSESOCKET, "int closesocket(SOCKET)"),
            Map.entry(Win32Function.BIND, "int bind(SOCKET, const struct sockaddr *, int)"),
            Map.entry(Win32Function.LISTEN, "int listen(SOCKET, int)"),
            Map.entry(Win32Function.ACCEPT, "SOCKET accept(SOCKET, struct sockaddr *, int *)"),
            Map.entry(Win32Function.CONNECT, "int connect(SOCKET, const struct sockaddr *, int)"),
            Map.entry(Win32Function.SETSOCKOPT, "int setsockopt(SOCKET, int, int, const char *, int)"),
            Map.entry(Win32Function.GETPEERNAME, "int getpeername(SOCKET, struct sockaddr *, int *)"),
            Map.entry(Win32Function.GETSOCKNAME, "int getsockname(SOCKET, struct sockaddr *, int *)"),
            Map.entry(Win32Function.SHUTDOWN, "int shutdown(SOCKET, int)"),
            Map.entry(Win32Function.RECV, "int recv(SOCKET, char *, int, int)"),
            Map.entry(Win32Function.SEND, "int send(SOCKET, const char *, int, int)"),
            Map.entry(Win32Function.WSA_POLL, "int WSAPoll(LPWSAPOLLFD, ULONG, INT)"),
            Map.entry(Win32Function.WSA_CREATE_EVENT, "WSAEVENT WSACreateEvent()"),
            Map.entry(Win32Function.WSA_SET_EVENT, "BOOL WSASetEvent(WSAEVENT)"),
            Map.entry(Win32Function.WSA_RESET_EVENT, "BOOL WSAResetEvent(WSAEVENT)"),
            Map.entry(Win32Function.WSA_CLOSE_EVENT, "BOOL WSACloseEvent(WSAEVENT)"),
            Map.entry(Win32Function.WAIT_FOR_SINGLE_OBJECT, "DWORD WaitForSingleObject(HANDLE, DWORD)"),
            Map.entry(Win32Function.CREATE_IO_COMPLETION_PORT,
                    "HANDLE CreateIoCompletionPort(HANDLE, HANDLE, ULONG_PTR, DWORD)"),
            Map.entry(Win32Function.GET_QUEUED_COMPLETION_STATUS,
                    "BOOL GetQueuedCompletionStatus(HANDLE, LPDWORD, PULONG_PTR, LPOVERLAPPED *, DWORD)"),
            Map.entry(Win32Function.POST_QUEUED_COMPLETION_STATUS,
                    "BOOL PostQueuedCompletionStatus(HANDLE, DWORD, ULONG_PTR, LPOVERLAPPED)"),
            Map.entry(Win32Function.CLOSE_HANDLE, "BOOL CloseHandle(HANDLE)"));

    @Test
    void everyRioDescriptorMatchesItsDocumentedPrototype() {
        assertThat(RIO_PROTOTYPES.keySet()).containsExactlyInAnyOrder(RioFunction.values());
        for (RioFunction f : RioFunction.values()) {
            Prototype p = Prototype.parse(RIO_PROTOTYPES.get(f));
            assertThat(p.name).isEqualTo(f.cName());
            assertThat(f.descriptor()).as(p.text).isEqualTo(p.descriptor());
        }
    }

    @Test
    void everyWin32DescriptorMatchesItsDocumentedPrototype() {
        assertThat(WIN32_PROTOTYPES.keySet()).containsExactlyInAnyOrder(Win32Function.values());
        for (Win32Function f : Win32Function.values()) {
            Prototype p = Prototype.parse(WIN32_PROTOTYPES.get(f));
            assertThat(p.name).isEqualTo(f.cName());
            assertThat(f.descriptor()).as(p.text).isEqualTo(p.descriptor());
        }
    }

    @Test
    void rioFunctionsAreListedInFunctionTableOrder() {
        assertThat(Arrays.stream(RioFunction.values()).map(RioFunction::cName)).containsExactly(
                "RIOReceive", "RIOReceiveEx", "RIOSend", "RIOSendEx", "RIOCloseCompletionQueue",
                "RIOCreateCompletionQueue", "RIOCreateRequestQueue", "RIODequeueCompletion", "RIODeregisterBuffer",
                "RIONotify", "RIORegisterBuffer", "RIOResizeCompletionQueue", "RIOResizeRequestQueue");
    }

    @Test
    @SuppressWarnings("restricted")
    void everyDescriptorIsLinkable() {
        // Only shape is checked here (the local linker is not the Windows one); nothing is looked up or loaded.
        Linker linker = Linker.nativeLinker();
        for (RioFunction f : RioFunction.values()) {
            assertThat(linker.downcallHandle(f.descriptor())).as(f.cName()).isNotNull();
        }
        for (Win32Function f : Win32Function.values()) {
            assertThat(linker.downcallHandle(f.descriptor())).as(f.cName()).isNotNull();
        }
    }

    /** "RET NAME(T1, T2, ...)" parsed into a descriptor through {@link #CARRIERS}. */
    private record Prototype(String text, String name, String returnType, String[] parameters) {

        static Prototype parse(String text) {
            int open = text.indexOf('(');
            String head = text.substring(0, open).trim();
            int space = head.lastIndexOf(' ');
            String params = text.substring(open + 1, text.lastIndexOf(')')).trim();
            String[] p = params.isEmpty() ? new String[0]
                    : Arrays.stream(params.split(",")).map(String::trim).toArray(String[]::new);
            return new Prototype(text, head.substring(space + 1), head.substring(0, space).trim(), p);
        }

        FunctionDescriptor descriptor() {
            MemoryLayout[] args = Arrays.stream(parameters).map(Prototype::carrier).toArray(MemoryLayout[]::new);
            MemoryLayout result = carrier(returnType);
            return result == null ? FunctionDescriptor.ofVoid(args) : FunctionDescriptor.of(result, args);
        }

        private static MemoryLayout carrier(String cType) {
            assertThat(CARRIERS).as("carrier known for C type '%s'", cType).containsKey(cType);
            return CARRIERS.get(cType);
        }
    }
}
