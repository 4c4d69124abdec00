package dev.rivulet.rio.shm;

import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.core.error.InsufficientResourcesException;
import dev.rivulet.core.handshake.Handshake;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.rio.shm.sys.CrossMemory;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * Setting one connection up over its Unix domain socket, on a thread that may block, within the set-up deadline.
 * Nothing is mapped before core's {@link Handshake} (version, transport kind, the shared secret's proof when one is
 * configured) has passed; the shared file is made only in answer to an authenticated peer's parameters.
 *
 * <ol>
 *   <li>The dialling side sends its pid, limits, the sizes of the ring and pool it will write, and where its canary
 *       is.</li>
 *   <li>The accepting side creates the connection's file (0600, unpredictable name), sizes and maps it, reads the
 *       dialler's canary across ({@code process_vm_readv}: may it copy from the dialler's memory?), and answers with
 *       its own pid, limits, the layout, the file's name and size, its canary and what the probe found.</li>
 *   <li>The dialling side opens the file (checking it is this user's, mode 0600, the announced size), maps it,
 *       <em>unlinks it</em> (both sides have it mapped now), probes the acceptor's canary, and writes
 *       {@code READY} with the result. The acceptor unlinks the file too (it is usually gone already) and both sides
 *       make their endpoints.</li>
 * </ol>
 * A failure at any step closes the socket and removes the file, on whichever side is still running.
 */
final class ConnectionSetUp {

    private final SecuritySettings security;
    private final ShmSettings settings;
    private final int maxRequests;
    private final MemorySegment canary;
    private final byte[] canaryBytes;

    ConnectionSetUp(SecuritySettings security, ShmSettings settings, int maxRequests, Arena arena) {
        this.security = security;
        this.settings = settings;
        this.maxRequests = maxRequests;
        this.canaryBytes = new byte[SetUpParams.CANARY_BYTES];
        new SecureRandom().nextBytes(canaryBytes);
        this.canary = arena.allocate(SetUpParams.CANARY_BYTES, 16);
        MemorySegment.copy(canaryBytes, 0, canary, ValueLayout.JAVA_BYTE, 0, canaryBytes.length);
    }

    /** The dialling side, on a connected socket. */
    ShmConnection dial(SocketChannel socket, long deadline) {
        String file = null;
        Arena arena = Arena.ofShared();
        try (ChannelHandshakeIo io = new ChannelHandshakeIo(socket, deadline)) {
            SetUpParams.Dialling mine = new SetUpParams.Dialling(ShmFiles.PID, settings.maxMessageSize(),
                    maxRequests, settings.ringBytes(), settings.poolBytes(), canaryAddress(), canaryBytes);
            SetUpParams.Accepting peer = SetUpParams.Accepting.decode(Handshake.client(io, security,
                    Handshake.KIND_SHM, new byte[0], mine.encode()));
            file = peer.fileName();
            MemorySegment mapping;
            try (FileChannel ch = ShmFiles.openPeers(file, peer.fileBytes())) {
                mapping = ShmConnection.mapExisting(ch, peer.layout(), arena);
            }
            ShmFiles.unlink(file);
            boolean reaches = reaches(peer.pid(), peer.canaryAddress(), peer.canary());
            io.write(ByteBuffer.allocate(SetUpParams.READY_BYTES).putInt(SetUpParams.READY_MAGIC)
                    .putInt(reaches ? 1 : 0).array());
            return ShmConnection.of(socket, ConnectionLayout.DIALLING, peer.pid(), peer.layout(), arena, mapping,
                    reaches, peer.maxMessage(), peer.maxRequests());
        } catch (IOException e) {
            cleanUp(arena, file);
            throw ioFailure(e);
        } catch (RuntimeException | Error e) {
            cleanUp(arena, file);
            throw e;
        }
    }

    /** The accepting side, on a socket the listener admitted. */
    ShmConnection accept(SocketChannel socket, long deadline) {
        String[] file = new String[1];
        Arena arena = Arena.ofShared();
        try (ChannelHandshakeIo io = new ChannelHandshakeIo(socket, deadline)) {
            SetUpParams.Dialling[] peer = new SetUpParams.Dialling[1];
            ConnectionLayout[] layout = new ConnectionLayout[1];
            MemorySegment[] mapping = new MemorySegment[1];
            boolean[] reaches = new boolean[1];
            Handshake.server(io, security, Handshake.KIND_SHM, clientParams -> {
                SetUpParams.Dialling d = SetUpParams.Dialling.decode(clientParams);
                ConnectionLayout l = new ConnectionLayout(settings.ringBytes(), settings.poolBytes(), d.ringBytes(),
                        d.poolBytes());
                String name = ShmFiles.newName();
                try (FileChannel ch = ShmFiles.create(name)) {
                    file[0] = name;
                    mapping[0] = ShmConnection.mapNew(ch, l, arena);
                } catch (IOException e) {
                    throw new InsufficientResourcesException("could not create the connection's shared file in "
                            + ShmFiles.DIRECTORY + ": " + e, e);
                }
                peer[0] = d;
                layout[0] = l;
                reaches[0] = reaches(d.pid(), d.canaryAddress(), d.canary());
                return new SetUpParams.Accepting(ShmFiles.PID, settings.maxMessageSize(), maxRequests, l,
                        l.totalBytes(), reaches[0], canaryAddress(), canaryBytes, name).encode();
            });
            byte[] ready = new byte[SetUpParams.READY_BYTES];
            io.readFully(ready, 0, ready.length);
            ByteBuffer r = ByteBuffer.wrap(ready);
            if (r.getInt() != SetUpParams.READY_MAGIC) {
                throw new HandshakeException("peer did not confirm the shared mapping");
            }
            r.getInt(); // whether the dialler may copy across here: its own business, told for symmetry
            ShmFiles.unlink(file[0]);
            file[0] = null;
            return ShmConnection.of(socket, ConnectionLayout.ACCEPTING, peer[0].pid(), layout[0], arena, mapping[0],
                    reaches[0], peer[0].maxMessage(), peer[0].maxRequests());
        } catch (IOException e) {
            cleanUp(arena, file[0]);
            throw ioFailure(e);
        } catch (RuntimeException | Error e) {
            cleanUp(arena, file[0]);
            throw e;
        }
    }

    /**
     * Where the peer finds this side's canary: nowhere (0) unless this side offers cross-memory copies, so that a
     * peer learns no address of this process it is not going to copy to, and an honest peer's probe says no.
     */
    private long canaryAddress() {
        return settings.offersCrossMemory() ? canary.address() : 0;
    }

    /**
     * Whether this process may copy from and to process {@code pid}: it reads the canary there and compares. A
     * refusal (another user, Yama's ptrace scope, a non-dumpable peer), a peer that offers no copies (no canary
     * address) or a pid that is not the peer's says no.
     */
    private static boolean reaches(long pid, long address, byte[] expected) {
        if (address == 0) {
            return false;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment into = a.allocate(SetUpParams.CANARY_BYTES);
            long n = CrossMemory.read((int) pid, into.address(), address, SetUpParams.CANARY_BYTES);
            return n == SetUpParams.CANARY_BYTES
                    && Arrays.equals(into.toArray(ValueLayout.JAVA_BYTE), expected);
        }
    }

    private dev.rivulet.core.error.TransportException ioFailure(IOException e) {
        if (e instanceof SocketTimeoutException) {
            return new ConnectionRefusedException("connection set-up did not finish within "
                    + security.handshakeTimeout(), e);
        }
        if (e instanceof EOFException) {
            return new ConnectionRefusedException("peer closed the connection during set-up", e);
        }
        return new ConnectionRefusedException("connection set-up failed: " + e.getMessage(), e);
    }

    private static void cleanUp(Arena arena, String file) {
        if (file != null) {
            ShmFiles.unlink(file);
        }
        arena.close();
    }
}
