package dev.rivulet.conformance;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.Operation;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.MessageTooLargeException;
import dev.rivulet.core.error.OperationNotSupportedException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteWrite;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The harness of the conformance kit: a connected pair over two transports of the kind under test for every test,
 * paranoid leak detection around it, and the helpers the tests share.
 */
@Timeout(60)
public abstract class ConformanceBase {

    protected static final Duration TIMEOUT = Duration.ofSeconds(20);
    /** The remote rights a region registered for granting may give. */
    protected static final Access[] GRANTABLE = {Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC};

    private final List<Transport> transports = new ArrayList<>();
    protected Pair pair;

    /** Opens a new transport of the kind under test. */
    protected abstract Transport openTransport(TransportConfig config);

    /** A fresh address to bind for test {@code name} (unique per call). */
    protected abstract String bindAddress(String name);

    /** The configuration used by default; backends may lower depths to exercise parking. */
    protected TransportConfig config() {
        return TransportConfig.defaults();
    }

    protected Transport open(TransportConfig config) {
        Transport t = openTransport(config);
        transports.add(t);
        return t;
    }

    protected Pair connect(TransportConfig config) {
        return Pair.connect(open(config), open(config), bindAddress(getClass().getSimpleName()));
    }

    @BeforeEach
    void startLeakDetection() {
        LeakDetector.enable();
        LeakDetector.reset();
        pair = connect(config());
    }

    @AfterEach
    void closeAndCheckLeaks() {
        try {
            if (pair != null) {
                pair.close();
            }
            LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
        } finally {
            transports.forEach(Transport::dispose);
            transports.clear();
            LeakDetector.disable();
        }
    }

    protected Endpoint client() {
        return pair.client();
    }

    protected Endpoint server() {
        return pair.server();
    }

    protected Capabilities caps() {
        return client().capabilities();
    }

    protected static Flux<Buffer> sequence(Endpoint from, long count, int size) {
        return Flux.generate(() -> 0L, (seq, sink) -> {
            sink.next(Messages.make(from.memory(), seq, size));
            if (seq + 1 == count) {
                sink.complete();
            }
            return seq + 1;
        });
    }

    /** Receives {@code count} messages, checks each byte and the order (each buffer is lent); returns the count. */
    protected static Mono<Long> expectSequence(Endpoint at, long count, int size) {
        AtomicLong next = new AtomicLong();
        return at.receive()
                .take(count)
                .map(b -> {
                    long expected = next.getAndIncrement();
                    if (!Messages.verify(b.segment(), expected, size)) {
                        throw new AssertionError("message " + expected + " corrupted or out of order");
                    }
                    return expected;
                })
                .count();
    }

    protected static void awaitTrue(java.util.function.BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    private int reconnections;

    /**
     * After the target refused a one-sided operation: either the endpoint still works or, where the transport's
     * connection does not survive a refusal ({@link Capabilities#refusalClosesConnection()}), both endpoints close
     * with it and the test goes on over a fresh connection.
     */
    protected void afterRefusal() {
        if (!caps().refusalClosesConnection()) {
            StepVerifier.create(client().flush()).as("the endpoint still works after a refusal").verifyComplete();
            return;
        }
        StepVerifier.create(client().onClose()).verifyComplete();
        StepVerifier.create(server().onClose()).verifyComplete();
        pair.listener().dispose();
        pair = Pair.connect(pair.serverTransport(), pair.clientTransport(),
                bindAddress(getClass().getSimpleName() + "-after-refusal-" + (++reconnections)));
    }

    /**
     * The server grants the client every remote right on a region and hands it the handle over the endpoint itself,
     * as bytes.
     */
    protected RemoteMemory exposeOnServer(MemoryRegion region) {
        return exposeOnServer(server().grant(region.slice(), Access.REMOTE_READ, Access.REMOTE_WRITE,
                Access.REMOTE_ATOMIC));
    }

    /** Hands the client {@code grant}'s handle over the endpoint itself, as bytes. */
    protected RemoteMemory exposeOnServer(Grant grant) {
        byte[] handle = grant.remote().toBytes();
        Buffer msg = server().memory().allocate(handle.length).write(handle);
        Mono<RemoteMemory> got = client().receive().asByteArray().next().map(RemoteMemory::fromBytes);
        return got.zipWith(server().send(msg).thenReturn(1), (r, x) -> r).block(TIMEOUT);
    }
}
