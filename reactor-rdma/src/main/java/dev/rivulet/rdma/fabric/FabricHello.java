package dev.rivulet.rdma.fabric;

import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.rdma.fabric.sys.FiCqDataEntry;
import dev.rivulet.rdma.fabric.sys.FiCqErrEntry;
import dev.rivulet.rdma.fabric.sys.FidCq;
import dev.rivulet.rdma.fabric.sys.FidEp;
import dev.rivulet.rdma.fabric.sys.Libfabric;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_ADDR_UNSPEC;
import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_EAGAIN;
import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_EAVAIL;
import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_ECANCELED;

/**
 * The set-up's one fabric message: the client proves that its endpoint reaches the listener's, before the listener's
 * endpoint sends anything. The listener's handshake answer carries its endpoint name and a fresh random token
 * ({@link #answer}); the client puts the listener's name into its address vector and sends the token over its RDM
 * endpoint; the listener, which inserted the client's claimed name and posted one small receive for it
 * ({@link #expect}), takes the set-up on only when exactly that token arrives from the claimed address
 * ({@code FI_SOURCE}) within the set-up deadline.
 *
 * <p>So the listener's provider never opens a connection of its own for a new peer: the client's provider connects
 * to the listener, and the listener's later sends use that connection (tcp;ofi_rxm files the accepted connection
 * under the connecting socket's real IP address and the port its connection request names; sockets under the
 * address its connection header names; shm under the name the sender writes into the receiver's region). A client
 * that names an address it does not send from never gets an answer on the fabric, and nothing is sent to that
 * address. See {@code docs/fabric-transport.md} for what remains.
 *
 * <p>One instance per set-up, on its set-up thread, before the endpoint belongs to a progress loop (which is why it
 * may poll the endpoint's completion queue itself). The buffer and context it posts must outlive the operation:
 * {@link #release} only once the operation completed, or after the endpoint was closed in libfabric.
 */
final class FabricHello {

    static final int TOKEN_BYTES = 16;
    /** Room for more than a token, so that a longer message still completes (and is refused) instead of truncating. */
    private static final int BUFFER_BYTES = 64;
    private static final int CONTEXT_BYTES = 64; // struct fi_context2 is 64 bytes
    private static final int BATCH = 8;
    private static final long MAX_PAUSE_NANOS = 1_000_000;
    private static final long ABANDON_CHECK_NANOS = 50_000_000;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final MemoryAccess MEMORY = Internals.memory();

    private final FabricDomain fabric;
    private final FabricDomain.EndpointHandles handles;
    private final long peer;
    private final byte[] token;
    private final Buffer buffer;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment context = arena.allocate(CONTEXT_BYTES, 8);
    private final MemorySegment entries = FiCqDataEntry.allocateArray(arena, BATCH);
    private final MemorySegment sources = arena.allocate(ValueLayout.JAVA_LONG, BATCH);
    private final MemorySegment errEntry = FiCqErrEntry.allocate(arena);
    private boolean posted;
    private boolean released;
    private long nextAbandonCheck = System.nanoTime() + ABANDON_CHECK_NANOS;

    private FabricHello(FabricDomain fabric, MemoryDomain memory, FabricDomain.EndpointHandles handles, long peer,
                        byte[] token) {
        this.fabric = fabric;
        this.handles = handles;
        this.peer = peer;
        this.token = token;
        this.buffer = memory.allocate(BUFFER_BYTES);
    }

    // ------------------------------------------------------------------------------------------ the answer's form

    /** The listener's handshake answer: {@code u16 name length | name | token}. */
    static byte[] answer(byte[] name, byte[] token) {
        return ByteBuffer.allocate(2 + name.length + token.length).putShort((short) name.length).put(name).put(token)
                .array();
    }

    /** A listener's handshake answer taken apart, its form checked (the name's is checked by the caller). */
    record Answer(byte[] name, byte[] token) {
        static Answer parse(byte[] body) {
            if (body.length < 2 + TOKEN_BYTES) {
                throw new HandshakeException("the listener's answer is " + body.length + " bytes, too short for an "
                        + "endpoint name and a token");
            }
            int n = (body[0] & 0xFF) << 8 | (body[1] & 0xFF);
            if (2 + n + TOKEN_BYTES != body.length) {
                throw new HandshakeException("the listener's answer names " + n + " bytes of endpoint name in "
                        + body.length + " bytes");
            }
            return new Answer(Arrays.copyOfRange(body, 2, 2 + n), Arrays.copyOfRange(body, 2 + n, body.length));
        }
    }

    // ------------------------------------------------------------------------------------------ listener's side

    /**
     * Posts the receive for the client's hello on {@code h}, whose peer {@code peer} is the client's claimed name,
     * and makes the token the answer carries. Nothing is sent.
     */
    static FabricHello expect(FabricDomain fabric, MemoryDomain memory, FabricDomain.EndpointHandles h, long peer) {
        byte[] token = new byte[TOKEN_BYTES];
        RANDOM.nextBytes(token);
        FabricHello hello = new FabricHello(fabric, memory, h, peer, token);
        try {
            hello.postReceive();
        } catch (RuntimeException e) {
            hello.release();
            throw e;
        }
        return hello;
    }

    byte[] token() {
        return token.clone();
    }

    /**
     * Waits until the token arrives from the peer's address, by {@code deadline} ({@link System#nanoTime()}).
     * Messages from anyone else (other sources, or too long to be a hello) are dropped and the receive posted again,
     * so a stranger cannot end the set-up; a wrong token from the peer's own address ends it.
     *
     * @throws HandshakeException when the deadline passes or the peer's hello is wrong
     */
    void awaitFromPeer(long deadline) {
        long pause = 0;
        for (;;) {
            long n = fabric.reportsSource ? FidCq.readfrom(handles.cq(), entries, BATCH, sources)
                    : FidCq.read(handles.cq(), entries, BATCH);
            if (n > 0) {
                for (int i = 0; i < n; i++) {
                    if (FiCqDataEntry.opContextAddress(entries, i) != context.address()) {
                        continue; // nothing else is posted on this endpoint yet
                    }
                    posted = false;
                    long source = fabric.reportsSource ? sources.getAtIndex(ValueLayout.JAVA_LONG, i) : peer;
                    if (source == peer) {
                        checkToken(FiCqDataEntry.len(entries, i));
                        return;
                    }
                    postReceive(); // a stranger's message: not the hello
                }
                pause = 0;
                continue;
            }
            if (n == -FI_EAVAIL) {
                takeError(); // a message too long for the buffer: error entries name no sender, so not a refusal
                continue;
            }
            if (n != -FI_EAGAIN) {
                throw FabricErrors.ofCall(fabric.provider, "fi_cq_read", n);
            }
            pause = pauseUntil(deadline, pause, "the client's fabric hello did not arrive from the address it named");
        }
    }

    private void checkToken(long len) {
        byte[] got = len == TOKEN_BYTES ? buffer.capacitySegment().asSlice(0, TOKEN_BYTES)
                .toArray(ValueLayout.JAVA_BYTE) : new byte[0];
        if (!MessageDigest.isEqual(got, token)) {
            throw new HandshakeException("the client's fabric hello does not carry the token this listener gave it");
        }
    }

    private void postReceive() {
        long rc = FidEp.recv(handles.ep(), buffer.capacitySegment(), BUFFER_BYTES, MEMORY.descriptor(buffer.region()),
                FI_ADDR_UNSPEC, context);
        if (rc != 0) {
            throw FabricErrors.ofCall(fabric.provider, "fi_recv(hello)", rc);
        }
        posted = true;
    }

    private void takeError() {
        errEntry.fill((byte) 0);
        if (FidCq.readerr(handles.cq(), errEntry, 0) == 1
                && FiCqErrEntry.opContext(errEntry).address() == context.address()) {
            posted = false;
            if (FiCqErrEntry.err(errEntry) != FI_ECANCELED) {
                postReceive();
            }
        }
    }

    // ------------------------------------------------------------------------------------------ client's side

    /** The client's hello carrying {@code token}, for {@code h} to send to the listener ({@code peer}, in the AV). */
    static FabricHello toListener(FabricDomain fabric, MemoryDomain memory, FabricDomain.EndpointHandles h, long peer,
                                  byte[] token) {
        FabricHello hello = new FabricHello(fabric, memory, h, peer, token);
        MemorySegment.copy(token, 0, hello.buffer.capacitySegment(), ValueLayout.JAVA_BYTE, 0, token.length);
        return hello;
    }

    /** Tells whether the listener gave the set-up up meanwhile (it closed the bootstrap connection). */
    interface Abandoned {
        boolean check() throws IOException;
    }

    /**
     * Sends the token and waits, by {@code deadline}, until the provider completed the send (polling the queue also
     * drives the provider's connection to the listener), or {@code abandoned} says the listener gave up (asked every
     * {@link #ABANDON_CHECK_NANOS}: a listener that refused the hello closes the bootstrap connection, while the
     * provider keeps trying to connect to an endpoint that is gone). On failure {@link #release} only after the
     * endpoint closed.
     *
     * @throws HandshakeException when the send fails, does not complete in time, or the listener gave up
     */
    void send(long deadline, Abandoned abandoned) throws IOException {
        long pause = 0;
        long rc;
        while ((rc = FidEp.send(handles.ep(), buffer.capacitySegment(), token.length,
                MEMORY.descriptor(buffer.region()), peer, context)) == -FI_EAGAIN) {
            FidCq.read(handles.cq(), entries, BATCH); // progress; nothing else is posted yet
            pause = pauseUntil(deadline, pause, "the fabric hello could not be posted");
            checkAbandoned(abandoned);
        }
        if (rc != 0) {
            throw new HandshakeException("the fabric hello could not be sent: " + Libfabric.strerror((int) -rc));
        }
        posted = true;
        awaitSent(deadline, abandoned);
    }

    private void checkAbandoned(Abandoned abandoned) throws IOException {
        long now = System.nanoTime();
        if (now - nextAbandonCheck >= 0) {
            nextAbandonCheck = now + ABANDON_CHECK_NANOS;
            if (abandoned.check()) {
                throw new HandshakeException("the listener ended the set-up before it took the fabric hello");
            }
        }
    }

    private void awaitSent(long deadline, Abandoned abandoned) throws IOException {
        long pause = 0;
        for (;;) {
            long n = FidCq.read(handles.cq(), entries, BATCH);
            for (int i = 0; i < n; i++) {
                if (FiCqDataEntry.opContextAddress(entries, i) == context.address()) {
                    posted = false;
                    return;
                }
            }
            if (n == -FI_EAVAIL) {
                errEntry.fill((byte) 0);
                if (FidCq.readerr(handles.cq(), errEntry, 0) == 1
                        && FiCqErrEntry.opContext(errEntry).address() == context.address()) {
                    posted = false;
                    throw new HandshakeException("the fabric hello to the listener failed: "
                            + Libfabric.strerror(FiCqErrEntry.err(errEntry)));
                }
            } else if (n < 0 && n != -FI_EAGAIN) {
                throw FabricErrors.ofCall(fabric.provider, "fi_cq_read", n);
            }
            pause = n > 0 ? 0 : pauseUntil(deadline, pause, "the fabric hello did not reach the listener");
            checkAbandoned(abandoned);
        }
    }

    // ------------------------------------------------------------------------------------------ both

    /** Waits a little (growing to 1 ms) or throws once {@code deadline} passed; returns the next pause. */
    private long pauseUntil(long deadline, long pause, String what) {
        if (System.nanoTime() - deadline >= 0) {
            throw new HandshakeException(what + " within the set-up deadline");
        }
        long next = pause == 0 ? 20_000 : Math.min(MAX_PAUSE_NANOS, pause * 2);
        LockSupport.parkNanos(next);
        return next;
    }

    /**
     * Withdraws a receive still posted (shm may keep the endpoint open in libfabric after it is let go, and must
     * never write into the buffer once it is released). Call before the endpoint is let go.
     */
    void withdraw() {
        if (posted) {
            FidEp.cancel(handles.ep(), context);
        }
    }

    /** Frees the buffer and context: once the operation completed, or after the endpoint was closed in libfabric. */
    void release() {
        if (released) {
            return;
        }
        released = true;
        buffer.release();
        arena.close();
    }
}
