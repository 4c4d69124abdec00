package dev.rivulet.core.loop;

import dev.rivulet.core.CloseReason;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.WireEventQueue;
import dev.rivulet.core.engine.wire.Linger;
import dev.rivulet.core.engine.wire.PeerProtocolViolation;
import dev.rivulet.core.engine.wire.WireFailures;
import dev.rivulet.core.engine.wire.WireLiveness;
import dev.rivulet.core.engine.wire.WireState;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.remote.SoftwareTarget;
import dev.rivulet.core.error.AuthenticationException;
import dev.rivulet.core.error.ConnectTimeoutException;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.core.error.InsufficientResourcesException;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.MessageTooLargeException;
import dev.rivulet.core.error.NotConnectedException;
import dev.rivulet.core.error.OperationNotSupportedException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.RemoteApplicationException;
import dev.rivulet.core.error.RequestRejectedException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.SessionExpiredException;
import dev.rivulet.core.error.Retryable;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.error.TransportUnavailableException;
import reactor.core.Exceptions;

import java.util.List;

/**
 * Loads, at transport start, the classes that only error and close paths use.
 *
 * <p>Why: the JVM loads a class when code first needs it, and loading one from a class folder opens its file. In a
 * process out of descriptors (the very condition a hostile client creates, and the moment connections fail) that
 * fails with {@code NoClassDefFoundError}, inside the error path that needed the class. The failure is also final:
 * a class reference that failed to resolve fails the same way at every later attempt (JVMS 5.4.3), so the code that
 * names it can never run again, even once descriptors are back. A jar is no safer unless already open: the class
 * path loader opens jars lazily, and one that cannot be opened then is dropped from the class path for good. So
 * everything a failing or closing connection needs is loaded while the process still can, and the class path's
 * jars are opened then too ({@link #openClassPath}).
 *
 * <p>Core's own list is {@link #CORE} and the nests of {@link #CORE_NESTS}; each backend loads its own with
 * {@link #load} and {@link #loadNests} when its transport starts. A class named by a literal is loaded by the very
 * reference (resolving a class constant loads it); a nest ({@link Class#getNestMembers()}: a class with every class
 * compiled inside it, private ones and javac's synthetic switch maps included, which a literal cannot name) takes
 * in what a refactoring adds. Each is also initialised, so that its static initialiser cannot fail later for the
 * same reason.
 */
public final class ErrorPathClasses {

    /** Core's error and close paths: every error type, the close reason, what the loop reports faults with. */
    private static final Class<?>[] CORE = {
            TransportException.class, ConnectionLostException.class, ResourceClosedException.class,
            ProviderException.class, CreditProtocolException.class, RemoteAccessException.class,
            InvalidMemoryException.class, InvalidRequestException.class, MessageTooLargeException.class,
            OperationNotSupportedException.class, InsufficientResourcesException.class, HandshakeException.class,
            AuthenticationException.class, ConnectionRefusedException.class, ConnectTimeoutException.class,
            TransportUnavailableException.class, RemoteApplicationException.class,
            RequestRejectedException.class, NotConnectedException.class, SessionExpiredException.class,
            Retryable.class,
            CloseReason.class, CloseReason.Kind.class,
            LoopFaults.class,
    };

    /**
     * Classes whose nested classes (close paths, switch maps, pooled entries) load with them; Reactor's
     * {@code Exceptions} is what every operator consults when a handler throws.
     */
    private static final Class<?>[] CORE_NESTS = {
            EndpointEngine.class, Op.class, WireEventQueue.class, ProgressLoop.class, MemoryDomain.class, Buffer.class,
            CloseReason.class, Exceptions.class, WireState.class, WireLiveness.class, Linger.class,
            WireFailures.class, PeerProtocolViolation.class, SoftwareTarget.class,
    };

    private static volatile boolean coreLoaded;

    private ErrorPathClasses() {
    }

    /** Loads core's list and opens the class path; once per process (later calls return at once). */
    public static void loadCore() {
        if (coreLoaded) {
            return;
        }
        load(CORE);
        loadNests(CORE_NESTS);
        openClassPath(ErrorPathClasses.class.getClassLoader());
        coreLoaded = true;
    }

    /** Core's list, for the test that keeps it complete. */
    static List<Class<?>> coreClasses() {
        return List.of(CORE);
    }

    /** Loads and initialises {@code classes}; throws what loading throws (a transport that cannot, fails to open). */
    public static void load(Class<?>... classes) {
        for (Class<?> c : classes) {
            try {
                Class.forName(c.getName(), true, c.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new NoClassDefFoundError(c.getName()); // cannot happen: the class is there, we hold it
            }
        }
    }

    /** Loads and initialises each of {@code hosts} with every member of its nest. */
    public static void loadNests(Class<?>... hosts) {
        for (Class<?> host : hosts) {
            load(host.getNestMembers());
        }
    }

    /**
     * Looks up a resource no jar has: the class path loader then opens every jar on the class path it has not
     * opened yet, so that none is opened (and, failing, dropped) for the first time while descriptors are short.
     */
    static void openClassPath(ClassLoader loader) {
        if (loader != null) {
            // Outside every package: with Rivulet on the module path a name in one of its packages would be looked up in
            // its module only, and the class path not searched at all.
            loader.getResource("rivulet-no-such-resource/opens-every-jar");
        }
    }
}
