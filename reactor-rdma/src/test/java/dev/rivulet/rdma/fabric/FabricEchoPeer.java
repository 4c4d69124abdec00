package dev.rivulet.rdma.fabric;

import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

import java.time.Duration;

/**
 * A second process for the cross-process tests: binds {@code fabric://127.0.0.1:0?provider=ARG}, prints
 * {@code ADDRESS <uri>} on stdout, and echoes every message of every endpoint back to its sender until killed.
 * With a second argument {@code rma}, it first registers a 64 KiB region (byte i = i * 13 + 1) and sends its
 * {@link dev.rivulet.core.memory.RemoteMemory} handle as the first message of each endpoint.
 */
public final class FabricEchoPeer {

    private FabricEchoPeer() {
    }

    public static void main(String[] args) throws InterruptedException {
        String provider = args.length > 0 ? args[0] : "tcp";
        Transport t = new FabricTransportProvider().open(TransportConfig.defaults().option("provider", provider));
        Listener l = t.bind("fabric://127.0.0.1:0?provider=" + provider).block(Duration.ofSeconds(20));
        boolean rma = args.length > 1 && args[1].equals("rma");
        java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
        l.accepted().subscribe(ep -> {
            if (rma) {
                java.lang.foreign.MemorySegment seg = arena.allocate(64 << 10, 4096);
                for (int i = 0; i < seg.byteSize(); i++) {
                    seg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 1));
                }
                byte[] handle = t.memory().register(seg).remote().toBytes();
                ep.send(t.memory().allocate(handle.length).write(handle)).subscribe(null, e -> { });
            }
            ep.send(ep.receive()).subscribe(null, e -> { });
            if (Boolean.getBoolean("rivulet.peer.stats")) {
                reactor.core.publisher.Flux.interval(Duration.ofSeconds(1))
                        .flatMap(i -> ep.stats()).subscribe(st -> System.out.println("STATS " + st));
            }
        });
        System.out.println("ADDRESS " + l.address());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
