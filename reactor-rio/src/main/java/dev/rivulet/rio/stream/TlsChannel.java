package dev.rivulet.rio.stream;

import dev.rivulet.core.loop.ProgressLoop;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * TLS between a {@link StreamWire} and the system layer's {@link StreamChannel}: the wire writes and reads plain
 * frames in buffers of this channel, which encrypts into the system channel's staging buffer and decrypts from its
 * receive buffer with an {@link SSLEngine} whose handshake was done at connection set-up. The plain path is untouched:
 * this layer exists only on connections configured with TLS.
 *
 * <p>Under TLS the wire writes one unit at a time and receives through the receive buffer only (no gather writes,
 * no scatter receives straight into payloads), since every byte passes through the engine anyway. A send completes
 * when all its bytes were encrypted and the kernel took the ciphertext. A receive completes with the plain bytes of as
 * many whole records as arrived; a receive that finds decrypted bytes already waiting completes on the next loop
 * cycle, never inside the post call. A record that fails to decrypt or authenticate completes the receive with
 * {@code -EPROTO} and the engine's text, which breaks the connection. Graceful close is the Rivulet CLOSE frame inside
 * TLS (a truncation cannot pass for a close), so no {@code close_notify} is sent.
 */
public final class TlsChannel implements StreamChannel, ChannelUser {

    /** Linux EPROTO: what a receive completes with when TLS rejects a record. */
    static final int EPROTO = 71;
    private static final int T_INNER_SEND = 2;
    private static final int T_INNER_RECV = 1;

    private final StreamChannel inner;
    private final SSLEngine engine;
    private final ProgressLoop loop;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment plainStaging;
    private final MemorySegment plainReceive;
    /** Ciphertext to send: the inner staging buffer. */
    private final ByteBuffer netOut;
    /** Ciphertext received and not yet decrypted: the inner receive buffer, in read mode between calls. */
    private final ByteBuffer netIn;
    private final MemorySegment netInSegment;
    /** Decrypted bytes not yet handed to the wire, in read mode between calls. */
    private final ByteBuffer appIn;
    private ChannelUser user;

    // ---- the one send in flight ----
    private int sendToken;
    private ByteBuffer sendPlain;
    private int sendPlainTotal;
    private int cipherLength;
    private int cipherSent;

    // ---- the one receive in flight ----
    private int recvToken;
    private MemorySegment recvInto;
    private boolean innerRecvPosted;
    private String lastFailure;
    private final Runnable deliverDecrypted = this::deliverDecrypted;

    public TlsChannel(StreamChannel inner, SSLEngine engine, ProgressLoop loop) {
        this.inner = inner;
        this.engine = engine;
        this.loop = loop;
        this.plainStaging = arena.allocate(inner.stagingBuffer().byteSize(), 4096);
        this.plainReceive = arena.allocate(inner.receiveBuffer().byteSize(), 4096);
        this.netOut = inner.stagingBuffer().asByteBuffer();
        this.netInSegment = inner.receiveBuffer();
        this.netIn = netInSegment.asByteBuffer();
        this.netIn.flip(); // empty, read mode
        int app = engine.getSession().getApplicationBufferSize();
        this.appIn = arena.allocate(inner.receiveBuffer().byteSize() + 2L * app, 64).asByteBuffer();
        this.appIn.flip();
    }

    @Override
    public void attach(ChannelUser user) {
        this.user = user;
        inner.attach(this);
    }

    // ---- ChannelUser: what the system channel reports ----

    @Override
    public void start() {
        user.start();
    }

    @Override
    public void onCompletion(int token, int result, int flags) {
        if ((flags & F_NOTIF) != 0 || (flags & F_MORE) != 0) {
            return; // zero-copy notifications: this layer never sends zero-copy
        }
        if ((token & 3) == T_INNER_RECV) {
            innerReceived(result);
        } else {
            innerSent(result);
        }
    }

    @Override
    public void abandon() {
        user.abandon();
    }

    @Override
    public void systemGone() {
        user.systemGone();
        freeMemory(); // the transport went away without releasing this channel: its plain buffers go now
    }

    // ---- StreamChannel: what the wire asks for ----

    @Override
    public MemorySegment stagingBuffer() {
        return plainStaging;
    }

    @Override
    public MemorySegment receiveBuffer() {
        return plainReceive;
    }

    @Override
    public boolean postSend(int token, MemorySegment buffer, long offset, int length, boolean staged) {
        MemorySegment bytes = buffer.asSlice(offset, length);
        sendToken = token;
        sendPlain = bytes.asByteBuffer();
        sendPlainTotal = (int) bytes.byteSize();
        return encryptAndSend();
    }

    /** Encrypts as much of the pending plain bytes as fits into the inner staging buffer and sends it. */
    private boolean encryptAndSend() {
        netOut.clear();
        int packet = engine.getSession().getPacketBufferSize();
        try {
            while (sendPlain.hasRemaining() && netOut.remaining() >= packet) {
                SSLEngineResult r = engine.wrap(sendPlain, netOut);
                if (r.getStatus() != SSLEngineResult.Status.OK) {
                    lastFailure = "TLS wrap: " + r.getStatus();
                    return failSend();
                }
                runTasks();
            }
        } catch (SSLException e) {
            lastFailure = "TLS: " + e.getMessage();
            return failSend();
        }
        cipherLength = netOut.position();
        cipherSent = 0;
        return inner.postSend(T_INNER_SEND, inner.stagingBuffer(), 0, cipherLength, false);
    }

    private boolean failSend() {
        loop.execute(() -> user.onCompletion(sendToken, -EPROTO, 0));
        return true;
    }

    private void innerSent(int result) {
        if (result < 0) {
            user.onCompletion(sendToken, result, 0);
            return;
        }
        cipherSent += result;
        if (cipherSent < cipherLength) { // a short write: the rest of the same ciphertext
            if (!inner.postSend(T_INNER_SEND, inner.stagingBuffer(), cipherSent, cipherLength - cipherSent, false)) {
                user.onCompletion(sendToken, -EPROTO, 0);
            }
            return;
        }
        if (sendPlain.hasRemaining()) {
            if (!encryptAndSend()) {
                user.onCompletion(sendToken, -EPROTO, 0);
            }
            return;
        }
        sendPlain = null;
        user.onCompletion(sendToken, sendPlainTotal, 0);
    }

    @Override
    public boolean postReceive(int token, MemorySegment into) {
        recvToken = token;
        recvInto = into;
        if (appIn.hasRemaining() || decrypt()) {
            loop.execute(deliverDecrypted); // never complete inside the post call
            return true;
        }
        if (lastFailure != null) {
            loop.execute(deliverDecrypted);
            return true;
        }
        return postInnerReceive();
    }

    private boolean postInnerReceive() {
        // Receive into the free tail of the inner receive buffer, after the ciphertext already waiting there.
        netIn.compact();
        int at = netIn.position();
        netIn.flip();
        if (at == netIn.capacity()) {
            lastFailure = "TLS record larger than the receive buffer";
            loop.execute(deliverDecrypted);
            return true;
        }
        innerRecvPosted = inner.postReceive(T_INNER_RECV, netInSegment.asSlice(at, netInSegment.byteSize() - at));
        return innerRecvPosted;
    }

    private void innerReceived(int result) {
        innerRecvPosted = false;
        if (result <= 0) {
            user.onCompletion(recvToken, result, 0); // end of stream or an error, as is
            return;
        }
        netIn.limit(netIn.limit() + result);
        if (decrypt() || lastFailure != null) {
            deliverDecrypted();
        } else if (!postInnerReceive()) {
            user.onCompletion(recvToken, -EPROTO, 0);
        }
    }

    /** Decrypts every whole record waiting; true when plain bytes are ready for the wire. */
    private boolean decrypt() {
        appIn.compact();
        try {
            while (netIn.hasRemaining()) {
                SSLEngineResult r = engine.unwrap(netIn, appIn);
                runTasks();
                if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW
                        || r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                    break; // an incomplete record waits for more; a full appIn waits for the wire
                }
                if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                    lastFailure = "peer closed the TLS session";
                    break;
                }
            }
        } catch (SSLException e) {
            lastFailure = "TLS: " + e.getMessage();
        } finally {
            appIn.flip();
        }
        return appIn.hasRemaining();
    }

    private void deliverDecrypted() {
        if (recvInto == null) {
            return;
        }
        MemorySegment into = recvInto;
        recvInto = null;
        if (appIn.hasRemaining()) {
            int n = (int) Math.min(appIn.remaining(), into.byteSize());
            MemorySegment.copy(MemorySegment.ofBuffer(appIn), 0, into, 0, n);
            appIn.position(appIn.position() + n);
            user.onCompletion(recvToken, n, 0);
        } else {
            user.onCompletion(recvToken, -EPROTO, 0);
        }
    }

    private void runTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
            task.run();
        }
    }

    @Override
    public void shutdown(boolean both) {
        inner.shutdown(both);
    }

    /** The peer learns at once (RST where the system can), as on a plain connection; no TLS alert is sent. */
    @Override
    public void abort() {
        inner.abort();
    }

    @Override
    public void release() {
        inner.release();
        freeMemory();
    }

    private void freeMemory() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }

    @Override
    public String describe(int errno) {
        if (errno == EPROTO && lastFailure != null) {
            return lastFailure;
        }
        return inner.describe(errno);
    }

    @Override
    public String provider() {
        return inner.provider() + "+tls";
    }
}
