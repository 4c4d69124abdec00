package dev.rivulet.samples.webflux.front;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.LiveConnection;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.error.RemoteApplicationException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.interaction.InteractionOptions;
import dev.rivulet.core.interaction.Interactions;
import dev.rivulet.core.interaction.Metadata;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.interaction.Requester;
import dev.rivulet.core.interaction.Responder;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.samples.webflux.protocol.Control;
import dev.rivulet.samples.webflux.protocol.Control.Allocate;
import dev.rivulet.samples.webflux.protocol.Control.Commit;
import dev.rivulet.samples.webflux.protocol.Control.Committed;
import dev.rivulet.samples.webflux.protocol.Control.Delete;
import dev.rivulet.samples.webflux.protocol.Control.Granted;
import dev.rivulet.samples.webflux.protocol.Control.Hello;
import dev.rivulet.samples.webflux.protocol.Control.Lookup;
import dev.rivulet.samples.webflux.protocol.Control.Ok;
import dev.rivulet.samples.webflux.protocol.Control.Purpose;
import dev.rivulet.samples.webflux.protocol.Refusal;
import dev.rivulet.samples.webflux.storage.StorageNode;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.http.HttpStatus;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The front's link to the storage node: one control connection shared by every HTTP request, kept up by the library
 * ({@link RivuletClient#keepConnected}: reconnected with exponential backoff whenever it is lost). The connection carries an interaction session: each storage operation is a
 * request of its own on its route ({@link Control}), answered, cancelled, timed out or refused on its own while the
 * others go on. Event streams get a plain connection each, so each has credits of its own. While the storage node is
 * away, requests fail at once with {@link StorageUnavailableException} (503), and the front recovers by itself when
 * it comes back.
 */
public final class StorageClient implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(StorageClient.class);

    /** Connects after the storage node in a process running both roles listens; stops before it. */
    public static final int PHASE = StorageNode.PHASE + 1;

    private final RivuletClient client;
    private final Supplier<String> address;
    private final Duration requestTimeout;
    private final Duration minBackoff;
    private final Duration maxBackoff;
    private final InteractionOptions options;
    private final AtomicReference<Session> session = new AtomicReference<>();
    private volatile boolean running;
    private volatile @Nullable LiveConnection live;

    /**
     * A live control connection: its interaction session, and the endpoint under it (grants made in answer to
     * requests on it answer only operations on it).
     */
    public record Session(Endpoint endpoint, Requester requester) {
    }

    /** A link made with {@code client} (the application's builder) to the storage node at {@code address}. */
    public StorageClient(RivuletClient client, Supplier<String> address, Duration requestTimeout, Duration minBackoff,
                         Duration maxBackoff, InteractionOptions options) {
        this.client = client;
        this.address = address;
        this.requestTimeout = requestTimeout;
        this.minBackoff = minBackoff;
        this.maxBackoff = maxBackoff;
        this.options = options;
    }

    /** The live session, or an error saying the storage node is away. */
    public Mono<Session> session() {
        return Mono.defer(() -> {
            Session s = session.get();
            return s != null ? Mono.just(s) : Mono.error(unavailable());
        });
    }

    /** A block's window granted to this front, on the connection its bytes must move on. */
    public record Window(Endpoint endpoint, RemoteMemory remote, long length) {
    }

    /**
     * A read window, held on the storage node until each of its users has called {@link #end()}: whoever asked for it,
     * and each it was {@link #share() shared} with. A get into the window is such a user, since it must end before
     * the grant does: the storage node's side refuses a get into a revoked window, and some transports end the whole
     * connection for that.
     */
    public static final class Read {
        private final Window window;
        private final Disposable access;
        private final Mono<Void> lost;
        private final AtomicInteger users = new AtomicInteger(1);

        Read(Window window, Disposable access, Mono<Void> lost) {
            this.window = window;
            this.access = access;
            this.lost = lost;
        }

        public Window window() {
            return window;
        }

        /**
         * Fails when the access ends from the storage node's side first (the node or its connection gone): the
         * window's bytes can no longer be read, and gets into it still in flight may never complete by themselves.
         */
        public Mono<Void> lost() {
            return lost;
        }

        /** One more user of the window, who will call {@link #end()} too. */
        public void share() {
            users.incrementAndGet();
        }

        /** This user is done with the window; after the last, the storage node may let the block's memory go. */
        public void end() {
            if (users.decrementAndGet() == 0) {
                access.dispose();
            }
        }
    }

    /**
     * Writes block {@code id} of {@code length} bytes: asks for a window, lets {@code fill} put the bytes there,
     * then commits; answers whether the block is new (its id was not stored before). When {@code fill} fails or is
     * cancelled, the request is cancelled and the room goes back.
     */
    public Mono<Boolean> write(String id, long length, Function<Window, Mono<Void>> fill) {
        return session().flatMap(s -> {
            Sinks.One<Payload> commit = Sinks.one();
            Flux<Payload> requests = Flux.concat(Mono.fromSupplier(() -> request(new Allocate(id, length),
                    Control.WRITE_ROUTE)), commit.asMono());
            return s.requester().requestChannel(requests)
                    .map(Control::decode) // copied out: the answer is lent for this onNext only
                    // each answer in time: the grant from the request on, the commit's answer from the commit on
                    .timeout(Mono.delay(requestTimeout),
                            answer -> commit.asMono().then(Mono.delay(requestTimeout)))
                    .concatMap(answer -> switch (answer) {
                        case Granted g -> fill.apply(window(s, g))
                                .then(Mono.fromRunnable(() -> commit.tryEmitValue(Control.payload(new Commit()))))
                                .then(Mono.<Boolean>empty());
                        case Committed c -> Mono.just(c.created());
                        default -> Mono.error(unexpected(answer));
                    })
                    .single();
        }).onErrorMap(this::failure);
    }

    /**
     * Read access to block {@code id}: its window, held on the storage node as long as the request stays open,
     * which is until {@link Read#end()} cancels it.
     */
    public Mono<Read> read(String id) {
        return session().flatMap(s -> Mono.<Read>create(sink -> {
            Disposable.Swap access = Disposables.swap();
            AtomicBoolean settled = new AtomicBoolean();
            Sinks.Empty<Void> lost = Sinks.empty();
            sink.onCancel(access);
            // The first answer settles the Mono; the stream ending after it (only the storage node's side can end
            // it: ours cancels) is the access lost, for the reads to stop on.
            access.update(s.requester().requestStream(request(new Lookup(id), Control.READ_ROUTE))
                    .map(Control::decode)
                    .subscribe(answer -> {
                        if (settled.getAndSet(true)) {
                            return;
                        }
                        if (answer instanceof Granted g) {
                            sink.success(new Read(window(s, g), access, lost.asMono()));
                        } else {
                            access.dispose();
                            sink.error(unexpected(answer));
                        }
                    }, e -> {
                        if (!settled.getAndSet(true)) {
                            sink.error(e);
                        } else {
                            lost.tryEmitError(failure(e));
                        }
                    }, () -> {
                        if (!settled.getAndSet(true)) {
                            sink.error(unexpected("an end without a grant"));
                        } else {
                            lost.tryEmitError(new StorageUnavailableException("the storage node ended the read of "
                                    + id + " before it was done"));
                        }
                    }));
        }).timeout(requestTimeout)).onErrorMap(this::failure)
                // A grant that arrives as the request is cancelled (its HTTP client gone, its time up) is dropped on
                // the way: the access it holds ends then, or the storage node would keep the window until we go.
                .doOnDiscard(Read.class, Read::end);
    }

    /** Deletes block {@code id}. */
    public Mono<Void> delete(String id) {
        return session().flatMap(s -> s.requester().requestResponse(request(new Delete(id), Control.DELETE_ROUTE))
                        .map(Control::decode)
                        .timeout(requestTimeout))
                .flatMap(answer -> answer instanceof Ok ? Mono.<Void>empty() : Mono.error(unexpected(answer)))
                .onErrorMap(this::failure);
    }

    private static Window window(Session s, Granted g) {
        return new Window(s.endpoint(), RemoteMemory.fromBytes(g.handle()), g.length());
    }

    /** {@code m} on {@code route}; a block id that cannot be one is the HTTP client's mistake. */
    private static Payload request(Control m, Metadata route) {
        try {
            return Control.payload(m, route);
        } catch (IllegalArgumentException e) {
            throw new BlockException(HttpStatus.BAD_REQUEST, e.getMessage());
        }
    }

    private static IllegalStateException unexpected(Object answer) {
        return new IllegalStateException("the storage node answered " + answer);
    }

    /**
     * What a storage request's failure is to the HTTP client: the storage node's refusal of this request a
     * {@link BlockException} with its status, no answer in time or a lost connection a
     * {@link StorageUnavailableException}.
     */
    private Throwable failure(Throwable e) {
        return switch (e) {
            case RemoteApplicationException r -> Refusal.of(r).<Throwable>map(BlockException::refused).orElse(r);
            case TimeoutException t -> new StorageUnavailableException("the storage node did not answer within "
                    + requestTimeout, t);
            case TransportException t -> new StorageUnavailableException("the storage node is unreachable: "
                    + t.getMessage(), t);
            default -> e;
        };
    }

    /**
     * The storage node's events, on a connection of their own for as long as the subscriber wants them: its demand
     * is the connection's credits, so a slow subscriber slows the storage node's sending.
     */
    public Flux<String> events() {
        return Flux.usingWhen(connect(Purpose.EVENTS),
                ep -> ep.receive().asString(),
                ep -> ep.closeGracefully(Duration.ofSeconds(1)).onErrorComplete(),
                (ep, e) -> { ep.dispose(); return Mono.empty(); },
                ep -> { ep.dispose(); return Mono.empty(); });
    }

    /** A connection to the storage node, for what its first message, a plain one, says. */
    private Mono<Endpoint> connect(Purpose purpose) {
        return Mono.defer(() -> client.remoteAddress(address.get()).connect())
                .onErrorMap(e -> new StorageUnavailableException("cannot reach the storage node at " + address.get()
                        + ": " + e.getMessage(), e))
                .flatMap(ep -> ep.send(Control.encode(new Hello(purpose))).thenReturn(ep)
                        .doOnError(e -> ep.dispose()));
    }

    /** Whether a control connection is up. */
    public boolean isUp() {
        return session.get() != null;
    }

    /** Why the storage node is not reachable, when it is not. */
    public String lastFailure() {
        LiveConnection c = live;
        return c == null ? "not started" : session.get() == null && c.isConnected() ? "connecting" : c.lastFailure();
    }

    /** The control connection's flow-control counters, when it is up. */
    public Mono<EndpointStats> stats() {
        return session().flatMap(s -> s.endpoint().stats());
    }

    public String storageAddress() {
        return address.get();
    }

    private StorageUnavailableException unavailable() {
        return new StorageUnavailableException("the storage node at " + address.get() + " is not reachable ("
                + lastFailure() + "); reconnecting");
    }

    @Override
    public void start() {
        running = true;
        LiveConnection c = client.remoteAddress(address).keepConnected(minBackoff, maxBackoff);
        live = c;
        c.endpoints().subscribe(this::opened);
    }

    /**
     * A new control connection: it says what it is for, then its messages are the session's. A connection that
     * cannot say it is closed, and the library connects again.
     */
    private void opened(Endpoint ep) {
        ep.send(Control.encode(new Hello(Purpose.CONTROL))).subscribe(null, e -> ep.dispose(), () -> {
            Session s = new Session(ep, Interactions.client(ep, options)); // the storage node asks the front nothing
            session.set(s);
            log.info("connected to the storage node at {}", ep.remoteAddress());
            // the session fails every request still open with the connection's close cause
            ep.closeReason().subscribe(reason -> {
                session.compareAndSet(s, null);
                if (running) {
                    log.warn("lost the storage node at {} ({}); reconnecting", address.get(), lastFailure());
                }
            });
        });
    }

    @Override
    public void stop() {
        running = false;
        session.set(null);
        LiveConnection c = live;
        if (c != null) {
            c.disposeGracefully(Duration.ofSeconds(5)).onErrorComplete().block(Duration.ofSeconds(10));
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
