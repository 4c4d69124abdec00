package dev.rivulet.core.engine;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.LeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;

class CancelAtPeerCloseLeakTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @BeforeEach
    void leakDetection() {
        LeakDetector.enable();
        LeakDetector.reset();
    }

    @AfterEach
    void noLeaks() throws Exception {
        try {
            LeakDetector.awaitNoLeaks(TIMEOUT);
        } finally {
            LeakDetector.disable();
        }
    }

    @RepeatedTest(3)
    void aReceiverCancelledWhenThePeerClosesLeaksNothing() {
        Transport transport = Transports.open("local", TransportConfig.defaults());
        try {
            RivuletServer.BoundServer server = RivuletServer.create().runOn(transport).bindAddress("local://cancel-at-close")
                    .handle(peer -> {
                        Disposable consuming = peer.receive()
                                .retain()
                                .publishOn(Schedulers.boundedElastic())
                                .doOnNext(buf -> {
                                    java.util.concurrent.locks.LockSupport.parkNanos(100);
                                    buf.release();
                                })
                                .doOnDiscard(Buffer.class, Buffer::release)
                                .subscribe();
                        return peer.onClose().doFinally(s -> consuming.dispose());
                    })
                    .bindNow();
            Endpoint ep = RivuletClient.create().runOn(transport).remoteAddress("local://cancel-at-close").connectNow();
            ep.send(Flux.range(0, 5_000).map(i -> ep.memory().allocate(64))).block(TIMEOUT);
            ep.closeGracefully(TIMEOUT).block(TIMEOUT);
            server.disposeNow(TIMEOUT);
        } finally {
            transport.dispose();
        }
    }
}
