package dev.rivulet.docs;

import dev.rivulet.core.CloseReason;
import dev.rivulet.core.Completion;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.local.LocalOptions;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteRead;
import dev.rivulet.core.memory.RemoteWrite;
import dev.rivulet.core.progress.IdleStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The examples of {@code docs/api-by-example.md}, compiled and run: each is a region of this file between
 * {@code // snippet:begin NAME} and {@code // snippet:end}, and {@code DocsSnippetsTest} checks that the page shows
 * exactly these regions.
 */
class ApiByExampleTest {

    private static final Logger log = LoggerFactory.getLogger(ApiByExampleTest.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Transport transport;
    private RivuletServer.BoundServer server;
    private Endpoint ep;

    @BeforeEach
    void open() {
        LeakDetector.enable();
        LeakDetector.reset();
        transport = Transports.open("local", TransportConfig.defaults());
    }

    @AfterEach
    void close() {
        try {
            if (ep != null) {
                ep.dispose();
            }
            if (server != null) {
                server.disposeNow(TIMEOUT);
            }
            transport.dispose();
            LeakDetector.awaitNoLeaks(TIMEOUT);
        } finally {
            LeakDetector.disable();
        }
    }

    /** A server whose endpoints echo every message (buffers retained: the send takes them). */
    private void echoServer(String address) {
        server = RivuletServer.create().runOn(transport).bindAddress(address)
                .handle(peer -> peer.send(peer.receive().retain())).bindNow();
    }

    @Test
    void connectAndExchangeMessages() {
        // snippet:begin connect
        RivuletServer.BoundServer server = RivuletServer.create()
                .bindAddress("local://greeter")
                .handle(peer -> peer.receive()
                        .asString()
                        .flatMap(name -> peer.send("hello, " + name))
                        .then())
                .bindNow();

        Endpoint ep = RivuletClient.create()
                .remoteAddress("local://greeter")
                .connectNow();

        String reply = ep.send("world")
                .then(ep.receive().asString().next())
                .block();
        // snippet:end
        this.ep = ep;
        this.server = server;
        assertThat(reply).isEqualTo("hello, world");
    }

    @Test
    void streamingSendFromPooledBuffers() {
        echoServer("local://stream");
        ep = RivuletClient.create().runOn(transport).remoteAddress("local://stream").connectNow();
        Endpoint ep = this.ep;
        Mono<Long> echoed = ep.receive().take(10_000).count();
        // snippet:begin streaming-send
        Flux<Buffer> messages = Flux.range(0, 10_000)
                .map(i -> {
                    Buffer b = ep.memory().allocate(16);          // registered, pooled
                    b.segment().set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                    return b;
                });
        Mono<Void> sent = ep.send(messages);                       // takes each buffer's reference
        // snippet:end
        assertThat(echoed.zipWith(sent.thenReturn(1), (n, x) -> n).block(TIMEOUT)).isEqualTo(10_000);
    }

    /** A price tick, as an application would stream it. */
    record Tick(long instrument, double price) {
    }

    @Test
    void claimedSendEncodesInPlace() {
        echoServer("local://claimed");
        ep = RivuletClient.create().runOn(transport).remoteAddress("local://claimed").connectNow();
        Endpoint ep = this.ep;
        Mono<Long> echoed = ep.receive().take(10_000).count();
        // snippet:begin claimed-send
        Flux<Tick> ticks = Flux.range(0, 10_000).map(i -> new Tick(i, 100.0 + i));
        Mono<Void> sent = ep.send(ticks, 16, (tick, claim) -> {  // at most 16 bytes a message
            claim.putLong(0, tick.instrument())                  // written once, in the outgoing frame
                    .putDouble(8, tick.price());
            return 16;                                           // the message's length
        });
        // snippet:end
        assertThat(echoed.zipWith(sent.thenReturn(1), (n, x) -> n).block(TIMEOUT)).isEqualTo(10_000);
    }

    @Test
    void receiveLentAndRetained() {
        echoServer("local://lent");
        ep = RivuletClient.create().runOn(transport).remoteAddress("local://lent").connectNow();
        Endpoint ep = this.ep;
        AtomicLong bytes = new AtomicLong();
        AtomicLong kept = new AtomicLong();
        ep.sendString(Flux.range(0, 100).map(i -> "message " + i)).subscribe();
        // snippet:begin receive-lent
        ep.receive()
                .filter(b -> b.length() > 8)                      // dropped buffers go back to the pool
                .take(50)
                .doOnNext(b -> bytes.addAndGet(b.length()))       // b is valid until onNext returns
                .blockLast();
        // snippet:end
        // snippet:begin receive-retained
        ep.receive()
                .retain()                                         // keep past onNext: now it is yours
                .publishOn(Schedulers.boundedElastic())
                .take(40)
                .doOnNext(b -> {
                    try {
                        kept.addAndGet(b.length());
                    } finally {
                        b.release();
                    }
                })
                .doOnDiscard(Buffer.class, Buffer::release)       // what a cancelled queue still holds
                .blockLast();
        // snippet:end
        assertThat(bytes.get()).isPositive();
        assertThat(kept.get()).isPositive();
    }

    @Test
    void lentBufferReadInPlaceAndRefusedAfterOnNext() {
        echoServer("local://in-place");
        ep = RivuletClient.create().runOn(transport).remoteAddress("local://in-place").connectNow();
        Endpoint ep = this.ep;
        AtomicLong sum = new AtomicLong();
        ep.send(Flux.range(0, 1_000).map(i -> {
            Buffer b = ep.memory().allocate(8);
            b.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, i);
            return b;
        })).subscribe();
        // snippet:begin receive-in-place
        Buffer last = ep.receive()
                .take(1_000)
                .doOnNext(b -> sum.addAndGet(b.get(ValueLayout.JAVA_LONG_UNALIGNED, 0))) // in place: no copy
                .blockLast();                                   // kept without retain(): a mistake
        // last.get(...), last.segment(), last.toArray() now throw InvalidMemoryException
        // snippet:end
        assertThat(sum.get()).isEqualTo(999L * 1_000 / 2);
        assertThatThrownBy(() -> last.get(ValueLayout.JAVA_LONG_UNALIGNED, 0))
                .isInstanceOf(InvalidMemoryException.class);
    }

    @Test
    void oneSidedOperations() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment segment = arena.allocate(4096, 64);
            // snippet:begin grant
            MemoryRegion region = transport.memory().register(segment, Access.REMOTE_READ, Access.REMOTE_WRITE,
                    Access.REMOTE_ATOMIC);
            server = RivuletServer.create().runOn(transport).bindAddress("local://kv")
                    .handle(peer -> {
                        Grant grant = peer.grant(region.slice(0, 1024), Access.REMOTE_READ, Access.REMOTE_WRITE,
                                Access.REMOTE_ATOMIC);
                        return peer.send(grant.remote().toBytes())   // the handle travels as a message
                                .then(peer.onClose());                // revoked when the endpoint closes
                    })
                    .bindNow();
            // snippet:end
            ep = RivuletClient.create().runOn(transport).remoteAddress("local://kv").connectNow();
            Endpoint ep = this.ep;
            MemoryRegion mine = ep.memory().register(arena.allocate(1024, 64));
            mine.segment().fill((byte) 3);
            // snippet:begin put-get
            RemoteMemory window = ep.receive().asByteArray().map(RemoteMemory::fromBytes).blockFirst();
            RegisteredSlice local = mine.slice(0, 256);

            ep.put(local, window.slice(0, 256))                 // local bytes into the peer's window
                    .then(ep.get(window.slice(256, 256), local))  // and the peer's bytes back
                    .then(ep.flush())                             // everything before is at the peer
                    .block();
            long previous = ep.fetchAdd(window.slice(512, 8), 1).block();
            boolean swapped = ep.compareAndSwap(window.slice(520, 8), 0, 42).map(old -> old == 0).block();
            // snippet:end
            assertThat(segment.get(ValueLayout.JAVA_BYTE, 255)).isEqualTo((byte) 3);
            assertThat(previous).isZero();
            assertThat(swapped).isTrue();
            // snippet:begin streamed-puts
            Flux<RemoteWrite> writes = Flux.range(0, 4)
                    .map(i -> new RemoteWrite(mine.slice(i * 64L, 64), window.slice(i * 64L, 64)));
            ep.put(writes).then(ep.flush()).block();              // no Mono per put
            // snippet:end
            // snippet:begin streamed-gets
            Flux<RemoteRead> reads = Flux.range(0, 4)
                    .map(i -> new RemoteRead(window.slice(i * 64L, 64), mine.slice(512 + i * 64L, 64)));
            ep.get(reads).block();                                // every read is in its slice
            // snippet:end
            assertThat(mine.segment().asSlice(512, 256).mismatch(mine.segment().asSlice(0, 256))).isEqualTo(-1);
            // snippet:begin fence
            ep.put(mine.slice(0, 8), window.slice(600, 8))
                    .then(ep.fence())                             // the next starts after the last completed
                    .then(ep.put(mine.slice(8, 8), window.slice(608, 8)))
                    .block();
            // snippet:end
            mine.close();
            region.close();
        }
    }

    @Test
    void threeWaysToMemory() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            // snippet:begin memory
            Buffer message = transport.memory().allocate(1500);          // pooled: for messages you send
            message.release();

            MemorySegment tensor = arena.allocate(1 << 20, 4096);        // yours: registered once, for puts and gets
            MemoryRegion region = transport.memory().register(tensor);
            RegisteredSlice firstKiB = region.slice(0, 1024);

            RegisteredSlice cached = transport.memory()                  // registered on first use, then reused
                    .registerCached(tensor.asSlice(4096, 4096));
            // snippet:end
            assertThat(cached.region()).isNotNull();
            assertThat(firstKiB.length()).isEqualTo(1024);
            region.close();
        }
    }

    @Test
    void typedErrorsAndRetries() {
        server = RivuletServer.create().runOn(transport).bindAddress("local://errors")
                .handle(peer -> peer.send(Mono.just(peer.memory().allocate(8).length(8))).then(peer.onClose()))
                .bindNow();
        ep = RivuletClient.create().runOn(transport).remoteAddress("local://errors").connectNow();
        Endpoint ep = this.ep;
        RemoteMemory forged = new RemoteMemory(0x1000, 64, 42, null);
        MemoryRegion mine = ep.memory().register(Arena.ofAuto().allocate(64, 8));
        // snippet:begin errors
        Mono<Void> put = ep.put(mine.slice(), forged)
                .onErrorResume(RemoteAccessException.class, e -> {
                    log.warn("the peer refused: {}", e.getMessage());  // a key, window or right it did not grant
                    return Mono.empty();
                });

        Mono<Endpoint> connect = RivuletClient.create()
                .remoteAddress("local://not-up-yet")
                .connect()
                .retryWhen(Retry.backoff(5, Duration.ofMillis(50))
                        .filter(e -> e instanceof TransportException t && t.isRetryable()));
        // snippet:end
        put.block(TIMEOUT);
        assertThat(connect.onErrorResume(e -> Mono.empty()).block(TIMEOUT)).isNull();
        mine.close();
    }

    @Test
    void cancellationAndClosing() {
        echoServer("local://closing");
        ep = RivuletClient.create().runOn(transport).remoteAddress("local://closing").connectNow();
        Endpoint ep = this.ep;
        ep.sendString(Flux.range(0, 100).map(i -> "m" + i)).block(TIMEOUT);
        // snippet:begin cancel
        ep.receive().take(Duration.ofMillis(100)).subscribe();   // cancelled after 100 ms: nothing leaks
        var stream = ep.sendString(Flux.interval(Duration.ofMillis(1)).map(i -> "tick " + i)).subscribe();
        stream.dispose();                                         // stops asking; messages in flight still finish
        // snippet:end
        // snippet:begin close
        ep.closeGracefully(Duration.ofSeconds(5))                // finish what was issued, then close
                .then(ep.closeReason())
                .doOnNext(r -> log.info("closed: {} {}", r.kind(), r.cause() == null ? "" : r.cause().getMessage()))
                .block();
        // snippet:end
        assertThat(ep.closeReason().map(CloseReason::kind).block(TIMEOUT)).isEqualTo(CloseReason.Kind.LOCAL);
    }

    @Test
    void threading() {
        echoServer("local://threads");
        ep = RivuletClient.create().runOn(transport).remoteAddress("local://threads").connectNow();
        Endpoint ep = this.ep;
        ep.sendString(Flux.range(0, 20).map(i -> "job " + i)).subscribe();
        // snippet:begin threading
        ep.receive()
                .asString()                                       // copied on the polling thread: cheap
                .publishOn(Schedulers.parallel())                 // the work itself elsewhere
                .map(String::length)
                .take(20)
                .blockLast();

        transport.scheduler().schedule(() -> log.debug("short, non-blocking work on a polling thread"));
        // snippet:end
    }

    @Test
    void configuration() {
        // snippet:begin config
        Transport custom = Transports.open("local", TransportConfig.defaults()
                .name("orders")                                   // the name tag of its meters
                .sendQueueDepth(256)
                .receiveQueueDepth(512)                           // the credit window
                .idleStrategy(IdleStrategy::busySpin)             // lowest latency, a core per polling thread
                .option(LocalOptions.NATIVE_QUEUE_DEPTH, 128));

        Endpoint e = RivuletClient.create()
                .runOn(custom)
                .remoteAddress("local://orders")
                .connectTimeout(Duration.ofSeconds(3))
                .connect()
                .onErrorResume(ex -> Mono.empty())
                .block();
        // snippet:end
        assertThat(e).isNull();
        assertThat(custom.capabilities().receiveQueueDepth()).isEqualTo(512);
        assertThat(custom.capabilities().putCompletion()).isEqualTo(Completion.REMOTE);
        custom.dispose();
    }
}
