package dev.rivulet.rio.shm;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.rio.ShmOptions;
import reactor.core.publisher.Flux;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The other process of the shared-memory tests that kill a peer. Modes:
 * <ul>
 *   <li>{@code target <name>}: binds {@code shm://<name>}, grants every endpoint a {@link #WINDOW}-byte window of
 *       ordinary memory (served by this process) and sends its handle, then echoes messages; prints
 *       {@code ADDRESS <address>} once bound;</li>
 *   <li>{@code mapper <address>}: connects, takes the handle of a shared window from the first message and puts into
 *       it through its mapping without end; prints {@code MAPPED} once the first puts completed;</li>
 *   <li>{@code owner <name> <nonDumpable>}: allocates a shared region of {@link #OWNER_PAGES} pages filled with
 *       {@code 0x11}, binds {@code shm://<name>} with {@code shm.nonDumpable} as given, grants every endpoint pages 4
 *       and 5 read-only and sends the handle; prints {@code OWNER <address>} once bound, and for every line on its
 *       standard input {@code PAGES} and the first byte of each page in hex.</li>
 * </ul>
 * It runs until killed.
 */
public final class ShmPeerProcess {

    static final int WINDOW = 4 << 20;
    static final int OWNER_PAGES = 16;

    private ShmPeerProcess() {
    }

    public static void main(String[] args) throws Exception {
        Transport t = new ShmTransportProvider().open(args[0].equals("owner")
                ? TransportConfig.defaults().option(ShmOptions.NON_DUMPABLE, Boolean.parseBoolean(args[2]))
                : TransportConfig.defaults());
        Arena arena = Arena.ofShared();
        List<Object> keep = new ArrayList<>();
        switch (args[0]) {
            case "target" -> {
                Listener l = t.bind("shm://" + args[1]).block(Duration.ofSeconds(20));
                keep.add(l);
                l.accepted().subscribe(ep -> {
                    MemoryRegion r = t.memory().register(arena.allocate(WINDOW, 4096), Access.REMOTE_READ,
                            Access.REMOTE_WRITE);
                    byte[] handle = ep.grant(r.slice(), Access.REMOTE_READ, Access.REMOTE_WRITE).remote().toBytes();
                    ep.send(handle).subscribe(null, e -> { });
                    ep.send(ep.receive().retain()).subscribe(null, e -> { });
                });
                System.out.println("ADDRESS " + l.address());
            }
            case "mapper" -> {
                Endpoint ep = t.connect(args[1]).block(Duration.ofSeconds(20));
                keep.add(ep);
                RemoteMemory window = ep.receive().asByteArray().next().map(RemoteMemory::fromBytes)
                        .block(Duration.ofSeconds(20));
                RegisteredSlice local = t.memory().register(arena.allocate(4096, 4096)).slice();
                Flux.range(0, 100).concatMap(i -> ep.put(local, window.slice(0, 4096))).blockLast();
                System.out.println("MAPPED");
                System.out.flush();
                Flux.<Integer, Integer>generate(() -> 0, (i, sink) -> {
                    sink.next(i);
                    return i + 1;
                }).concatMap(i -> ep.put(local, window.slice(0, 4096))).subscribe(null, e -> { });
            }
            case "owner" -> {
                owner(t, args[1]);
                return;
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    private static void owner(Transport t, String name) throws Exception {
        MemoryRegion r = t.memory().allocateRegion(OWNER_PAGES * 4096L, Access.REMOTE_READ, Access.REMOTE_WRITE);
        r.segment().fill((byte) 0x11);
        Listener l = t.bind("shm://" + name).block(Duration.ofSeconds(20));
        l.accepted().subscribe(ep -> ep.send(ep.grant(r.slice(4 * 4096L, 2 * 4096L), Access.REMOTE_READ).remote()
                .toBytes()).subscribe(null, e -> { }));
        System.out.println("OWNER " + l.address());
        System.out.flush();
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        while (commands.readLine() != null) {
            StringBuilder pages = new StringBuilder("PAGES");
            for (int p = 0; p < OWNER_PAGES; p++) {
                pages.append(' ').append(String.format("%02x", r.segment().get(ValueLayout.JAVA_BYTE, p * 4096L)));
            }
            System.out.println(pages);
            System.out.flush();
        }
    }
}
