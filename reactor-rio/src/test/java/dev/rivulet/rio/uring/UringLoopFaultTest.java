package dev.rivulet.rio.uring;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.loop.ProgressEngine;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.progress.IdleStrategy;
import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.LibcSockets;
import dev.rivulet.rio.stream.ChannelUser;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A completion handler that throws on a real ring: the CQE is consumed, the ring's other channels go on receiving,
 * and the channel whose handler threw is reset, so its peer sees the connection end instead of a socket that
 * stays open and silent.
 */
@Timeout(60)
class UringLoopFaultTest {

    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(20);

    @BeforeAll
    static void requireIoUring() {
        Requirements.assume(new UringTransportProvider().availability(), "io_uring");
    }

    /** Receives into its channel's buffer and counts completions; throws an Error at the first when asked to. */
    private static final class Receiver implements ChannelUser {
        final AtomicInteger completions = new AtomicInteger();
        final boolean throwing;
        UringChannel channel;

        Receiver(boolean throwing) {
            this.throwing = throwing;
        }

        @Override
        public void start() {
            channel.postReceive(1, channel.receiveBuffer());
        }

        @Override
        public void onCompletion(int token, int result, int flags) {
            completions.incrementAndGet();
            if (throwing) {
                throw new NoClassDefFoundError("injected: a class the handler needs");
            }
            if (result > 0) {
                channel.postReceive(1, channel.receiveBuffer());
            }
        }

        @Override
        public void abandon() {
        }

        @Override
        public void systemGone() {
        }
    }

    @Test
    void aHandlerThatThrowsResetsItsChannelAndTheRingServesTheOthers() throws Exception {
        int listening = LibcSockets.socket(LibcSockets.AF_INET, LibcSockets.SOCK_STREAM | LibcSockets.SOCK_CLOEXEC, 0);
        LibcSockets.bind(listening, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        LibcSockets.listen(listening, 4);
        InetSocketAddress at = LibcSockets.localAddress(listening);
        Receiver failing = new Receiver(true);
        Receiver healthy = new Receiver(false);
        try (SocketChannel failingPeer = SocketChannel.open(at); SocketChannel healthyPeer = SocketChannel.open(at);
             ProgressEngine engine = new ProgressEngine("uring-faults", 1, () -> IdleStrategy.blocking(0),
                     TimeUnit.MILLISECONDS.toNanos(5))) {
            int failingFd = LibcSockets.accept4(listening, MemorySegment.NULL, MemorySegment.NULL,
                    LibcSockets.SOCK_CLOEXEC);
            int healthyFd = LibcSockets.accept4(listening, MemorySegment.NULL, MemorySegment.NULL,
                    LibcSockets.SOCK_CLOEXEC);
            ProgressLoop loop = engine.loops().getFirst();
            UringLoop ring = onLoop(loop, () -> {
                UringLoop r = new UringLoop(loop, 64, 4, false, Integer.MAX_VALUE, true);
                loop.register(r);
                loop.waiter(r);
                return r;
            });
            try {
                failing.channel = new UringChannel(ring, failingFd, 4096, 4096, true);
                healthy.channel = new UringChannel(ring, healthyFd, 4096, 4096, true);
                onLoop(loop, () -> {
                    failing.channel.attach(failing);
                    healthy.channel.attach(healthy);
                    return null;
                });

                failingPeer.write(ByteBuffer.wrap(new byte[]{1}));
                healthyPeer.write(ByteBuffer.wrap(new byte[]{1}));
                awaitTrue(() -> failing.completions.get() == 1 && healthy.completions.get() == 1, "both completions");
                assertThat(endOfStream(failingPeer)).as("the peer of the channel whose handler threw sees it end")
                        .isTrue();
                for (int i = 2; i <= 5; i++) {
                    healthyPeer.write(ByteBuffer.wrap(new byte[]{(byte) i}));
                    int expected = i;
                    awaitTrue(() -> healthy.completions.get() == expected, "the healthy channel's completion " + i);
                }
                assertThat(failing.completions).as("nothing more came for the channel that threw").hasValue(1);
            } finally {
                onLoop(loop, () -> {
                    healthy.channel.shutdown(true); // its receive completes, and is not re-posted after EOF
                    return null;
                });
                awaitTrue(() -> healthy.completions.get() == 6, "the healthy channel's last receive");
                onLoop(loop, () -> {
                    failing.channel.release();
                    healthy.channel.release();
                    return null;
                });
                engine.close();
                ring.close();
            }
        } finally {
            Descriptors.closeOrThrow(listening);
        }
    }

    /** Whether {@code peer} reads the end of the connection (EOF or a reset) within the timeout. */
    private static boolean endOfStream(SocketChannel peer) throws IOException {
        peer.socket().setSoTimeout((int) TimeUnit.NANOSECONDS.toMillis(TIMEOUT_NANOS));
        try {
            return peer.socket().getInputStream().read() == -1;
        } catch (IOException reset) {
            return !reset.getClass().getSimpleName().contains("Timeout");
        }
    }

    private static <T> T onLoop(ProgressLoop loop, Supplier<T> task) throws Exception {
        CompletableFuture<T> done = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                done.complete(task.get());
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        return done.get(20, TimeUnit.SECONDS);
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("timed out waiting for " + what).isNegative();
            Thread.onSpinWait();
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
    }
}
