package dev.rivulet.conformance;

import dev.rivulet.core.CloseReason;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the contract says about a {@code Throwable} on a progress loop: it ends the connection it was thrown for,
 * with a typed error on every pending signal, releases what that connection held, and nothing else. The faults are
 * injected where users inject them: a handler that throws an {@code Error} Reactor does not catch (a
 * {@code LinkageError} such as a class that cannot be loaded while descriptors are exhausted, a
 * {@code VirtualMachineError}); it reaches the progress loop, which every other connection of the transport shares
 * (one polling thread by default, so the second connection here lives on the same loop).
 */
public abstract class LoopFaultConformance extends ConformanceBase {

    /** A second connection between the same two transports, on the same loops. */
    private Pair other() {
        return Pair.connect(pair.serverTransport(), pair.clientTransport(),
                bindAddress(getClass().getSimpleName() + "-other"));
    }

    @Test
    void anErrorThrownByAReceiveHandlerEndsThatConnectionAndNoOther() {
        Pair other = other();
        try {
            // A signal pending on the connection that will fail: a send the client gave no credit for.
            StepVerifier pendingSend = StepVerifier.create(server().send(Messages.make(server().memory(), 1, 32)))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(TransportException.class))
                    .verifyLater();
            NoClassDefFoundError injected = new NoClassDefFoundError("injected: a class the handler needs");
            server().receive().subscribe(b -> {
                throw injected;
            }, e -> { });
            client().send(Messages.make(client().memory(), 0, 32)).subscribe(null, e -> { });

            assertFailedWith(server(), injected);
            pendingSend.verify(TIMEOUT);
            StepVerifier.create(client().onClose()).as("the peer learns").expectComplete().verify(TIMEOUT);
            echo(other);
        } finally {
            other.close();
        }
    }

    @Test
    void anErrorThrownByACompletionHandlerEndsThatConnectionAndNoOther() {
        Pair other = other();
        try {
            StackOverflowError injected = new StackOverflowError("injected: a handler that recursed too deep");
            StepVerifier received = StepVerifier.create(server().receive().take(1).count()).expectNext(1L)
                    .expectComplete().verifyLater();
            client().send(Messages.make(client().memory(), 0, 32)).doOnSuccess(v -> {
                throw injected;
            }).subscribe(null, e -> { });

            received.verify(TIMEOUT);
            assertFailedWith(client(), injected);
            StepVerifier.create(server().onClose()).as("the peer learns").expectComplete().verify(TIMEOUT);
            echo(other);
        } finally {
            other.close();
        }
    }

    /** {@code ep} closed as failed, with a typed error caused by {@code injected}; it refuses what comes after. */
    private static void assertFailedWith(Endpoint ep, Throwable injected) {
        CloseReason reason = ep.closeReason().block(TIMEOUT);
        assertThat(reason.kind()).isEqualTo(CloseReason.Kind.FAILURE);
        assertThat(reason.cause()).isInstanceOf(ConnectionLostException.class).hasRootCause(injected);
        StepVerifier.create(ep.flush()).expectError(TransportException.class).verify(TIMEOUT);
        StepVerifier.create(ep.receive()).expectError(TransportException.class).verify(TIMEOUT);
    }

    /** The other connection still carries messages both ways. */
    private static void echo(Pair p) {
        p.server().send(p.server().receive().retain()).subscribe(null, e -> { });
        Buffer msg = Messages.make(p.client().memory(), 7, 64);
        StepVerifier.create(p.client().receive().take(1).map(Messages::seq)
                        .zipWith(p.client().send(msg).thenReturn(1), (s, x) -> s))
                .expectNext(7L).expectComplete().verify(Duration.ofSeconds(20));
    }
}
