package dev.rivulet.core.security;

import dev.rivulet.core.internal.Durations;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.SecurityAccess;
import dev.rivulet.core.internal.Sizes;
import dev.rivulet.core.error.InvalidRequestException;
import org.jspecify.annotations.Nullable;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Who may connect to a listener and how connection set-up is bounded: the versioned handshake every Rivulet
 * listener runs first, an optional shared secret proved by both sides (HMAC-SHA256 over both sides' nonces), optional
 * TLS, and the limits that keep unauthenticated peers from holding resources.
 *
 * <p>Immutable; every setter returns a new instance. Also read from transport options ({@link #OPTIONS}), so a
 * process configured with {@code key=value} pairs gets the same settings:
 * <ul>
 *   <li>{@code security.secret} (the secret as text) or {@code security.secretFile} (a file's bytes, a trailing
 *       newline dropped): at least {@value #MIN_SECRET_BYTES} bytes; both sides need the same one;</li>
 *   <li>{@code security.tls.keyStore}, {@code .keyStorePassword}, {@code .keyStoreType} (PKCS12),
 *       {@code security.tls.trustStore}, {@code .trustStorePassword}: TLS with this key and these trusted
 *       certificates; {@code security.tls.clientAuth} (true: a listener requires a client certificate) and
 *       {@code security.tls.verifyHostname} (true: a client checks the server certificate names the host it dialled);</li>
 *   <li>{@code security.handshakeTimeout} (10s): the whole set-up must finish within it;</li>
 *   <li>{@code security.maxConnections} (1024) and {@code security.maxHandshakes} (64) per listener, and per source
 *       address {@code security.maxConnectionsPerSource} (256) and {@code security.maxHandshakesPerSource} (16): a
 *       connection beyond a connection bound is closed at once; one beyond a set-up bound takes the slot of the
 *       oldest unfinished set-up (of its own source first);</li>
 *   <li>{@code security.unauthenticatedMemory} (256KiB), {@code security.listenerMemory} (512MiB) and
 *       {@code security.minReceiveRate} (64KiB, per second): what a peer can make a listener commit ahead of the
 *       bytes it sent, per unauthenticated connection and per listener, and how fast a frame must arrive;</li>
 *   <li>{@code security.peerAddressCheck} (true, libfabric): the endpoint name a client sends must carry the address
 *       its connection came from.</li>
 * </ul>
 */
public final class SecuritySettings {

    public static final int MIN_SECRET_BYTES = 16;

    /** Every option key this class reads. */
    public static final List<String> OPTIONS = List.of("security.secret", "security.secretFile",
            "security.tls.keyStore", "security.tls.keyStorePassword", "security.tls.keyStoreType",
            "security.tls.trustStore", "security.tls.trustStorePassword", "security.tls.trustStoreType",
            "security.tls.clientAuth", "security.tls.verifyHostname", "security.handshakeTimeout",
            "security.maxConnections", "security.maxHandshakes", "security.maxConnectionsPerSource",
            "security.maxHandshakesPerSource", "security.unauthenticatedMemory", "security.listenerMemory",
            "security.minReceiveRate", "security.peerAddressCheck");

    private static final SecuritySettings DEFAULTS = new SecuritySettings(new Values());

    private final Values v;
    private volatile @Nullable SSLContext builtTls;

    /**
     * Every setting, copied by each setter: one place that lists them, instead of a constructor call with all of
     * them in every setter.
     */
    private static final class Values implements Cloneable {
        byte @Nullable [] secret;
        @Nullable SSLContext tls;
        /** {@code security.tls.*} options given so far; the context is built from them on first use. */
        Map<String, String> tlsOptions = Map.of();
        boolean tlsClientAuth = true;
        boolean verifyHostname = true;
        Duration handshakeTimeout = Duration.ofSeconds(10);
        int maxConnections = 1024;
        int maxHandshakes = 64;
        int maxConnectionsPerSource = 256;
        int maxHandshakesPerSource = 16;
        long unauthenticatedMemory = 256L << 10;
        long listenerMemory = 512L << 20;
        long minReceiveRate = 64L << 10;
        boolean peerAddressCheck = true;

        @Override
        protected Values clone() {
            try {
                return (Values) super.clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
        }
    }

    private SecuritySettings(Values v) {
        this.v = v;
    }

    private SecuritySettings with(java.util.function.Consumer<Values> change) {
        Values copy = v.clone();
        change.accept(copy);
        return new SecuritySettings(copy);
    }

    /** No secret, no TLS: anyone who can reach a listener may connect (the handshake and limits still apply). */
    public static SecuritySettings defaults() {
        return DEFAULTS;
    }

    /** Both sides must prove they hold {@code secret} (at least {@value #MIN_SECRET_BYTES} bytes). */
    public SecuritySettings secret(byte @Nullable [] secret) {
        if (secret != null && secret.length < MIN_SECRET_BYTES) {
            throw new InvalidRequestException("a shared secret needs at least " + MIN_SECRET_BYTES + " bytes, got "
                    + secret.length);
        }
        return with(c -> c.secret = secret == null ? null : secret.clone());
    }

    /** TLS for the connection set-up channel (and, on stream transports, for the data too) with this context. */
    public SecuritySettings tls(SSLContext context) {
        return with(c -> {
            c.tls = context;
            c.tlsOptions = Map.of();
        });
    }

    /** Whether a listener requires a client certificate (default true). */
    public SecuritySettings tlsClientAuth(boolean required) {
        return with(c -> c.tlsClientAuth = required);
    }

    /** Whether a client checks that the server certificate names the host it dialled (default true). */
    public SecuritySettings verifyHostname(boolean verify) {
        return with(c -> c.verifyHostname = verify);
    }

    public SecuritySettings handshakeTimeout(Duration timeout) {
        if (timeout == null || timeout.isZero() || timeout.isNegative()) {
            throw new InvalidRequestException("handshakeTimeout must be positive, got " + timeout);
        }
        return with(c -> c.handshakeTimeout = timeout);
    }

    /** Connections a listener holds at once, set-up included (default 1024). */
    public SecuritySettings maxConnections(int n) {
        return with(c -> c.maxConnections = atLeastOne("maxConnections", n));
    }

    /** Connections a listener holds in set-up at once (default 64); see {@link #maxHandshakesPerSource}. */
    public SecuritySettings maxHandshakes(int n) {
        return with(c -> c.maxHandshakes = atLeastOne("maxHandshakes", n));
    }

    /**
     * Connections a listener holds at once from one source (default 256): one IP address on TCP transports, one
     * user on shm://. Beyond it a connection from that source is closed as soon as it is accepted.
     */
    public SecuritySettings maxConnectionsPerSource(int n) {
        return with(c -> c.maxConnectionsPerSource = atLeastOne("maxConnectionsPerSource", n));
    }

    /**
     * Connections from one source a listener holds in set-up at once (default 16). A source that opens another one
     * loses its own oldest unfinished set-up; when all {@link #maxHandshakes} slots are taken, the oldest unfinished
     * set-up of any source makes room. Silent connections therefore cannot keep a newcomer out for longer than the
     * newcomer's own set-up takes.
     */
    public SecuritySettings maxHandshakesPerSource(int n) {
        return with(c -> c.maxHandshakesPerSource = atLeastOne("maxHandshakesPerSource", n));
    }

    /**
     * Receive memory a peer that has not authenticated (no shared secret proved, no client certificate checked) can
     * make a listener commit ahead of the bytes it has actually sent (default 256 KiB): a message announced larger
     * than that gets its memory as its bytes arrive. The allowance grows with the bytes of the messages the
     * connection has completed, up to the largest message size.
     */
    public SecuritySettings unauthenticatedMemory(long bytes) {
        return with(c -> c.unauthenticatedMemory = atLeast("unauthenticatedMemory", bytes, 64L << 10));
    }

    /**
     * Memory the connections of one listener together can make it commit on their word (default 512 MiB): messages
     * committed ahead of their bytes (beyond it, announced messages get their memory as their bytes arrive), and,
     * where peers cannot authenticate, each connection's fixed buffers from the moment it is admitted (beyond it, a
     * new connection is closed at once). What strangers can make a listener commit in all is therefore this, plus
     * its unfinished set-ups.
     */
    public SecuritySettings listenerMemory(long bytes) {
        return with(c -> c.listenerMemory = atLeast("listenerMemory", bytes, 1L << 20));
    }

    /**
     * The slowest a frame being received may arrive, in bytes per second (default 64 KiB/s), measured over each
     * heartbeat interval while this side is reading: a peer that trickles a frame to hold the memory it announced
     * loses the connection, as a peer that trickles its hello does at the handshake deadline.
     */
    public SecuritySettings minReceiveRate(long bytesPerSecond) {
        return with(c -> c.minReceiveRate = atLeast("minReceiveRate", bytesPerSecond, 1));
    }

    public SecuritySettings peerAddressCheck(boolean check) {
        return with(c -> c.peerAddressCheck = check);
    }

    private static int atLeastOne(String name, int n) {
        if (n < 1) {
            throw new InvalidRequestException(name + " must be >= 1, got " + n);
        }
        return n;
    }

    private static long atLeast(String name, long n, long min) {
        if (n < min) {
            throw new InvalidRequestException(name + " must be at least " + Sizes.format(min) + ", got " + n);
        }
        return n;
    }

    /** The shared secret, or null. */
    public byte @Nullable [] secret() {
        return v.secret == null ? null : v.secret.clone();
    }

    public boolean authenticates() {
        return v.secret != null;
    }

    /**
     * Whether a listener with these settings knows who each connection is once its set-up is done: a shared secret
     * was proved, or TLS checked a client certificate.
     */
    public boolean authenticatesPeers() {
        return authenticates() || (usesTls() && v.tlsClientAuth);
    }

    /**
     * The TLS context, or null for plain TCP: the one given, or one built (once) from the {@code security.tls.*}
     * options.
     *
     * @throws InvalidRequestException when the options do not make a usable context (a missing file, a wrong
     *                                 password)
     */
    public @Nullable SSLContext tls() {
        if (v.tls != null || v.tlsOptions.isEmpty()) {
            return v.tls;
        }
        SSLContext c = builtTls;
        if (c == null) {
            c = sslContext(v.tlsOptions);
            builtTls = c;
        }
        return c;
    }

    public boolean usesTls() {
        return v.tls != null || !v.tlsOptions.isEmpty();
    }

    public boolean tlsClientAuth() {
        return v.tlsClientAuth;
    }

    public boolean verifyHostname() {
        return v.verifyHostname;
    }

    public Duration handshakeTimeout() {
        return v.handshakeTimeout;
    }

    public int maxConnections() {
        return v.maxConnections;
    }

    public int maxHandshakes() {
        return v.maxHandshakes;
    }

    public int maxConnectionsPerSource() {
        return v.maxConnectionsPerSource;
    }

    public int maxHandshakesPerSource() {
        return v.maxHandshakesPerSource;
    }

    public long unauthenticatedMemory() {
        return v.unauthenticatedMemory;
    }

    public long listenerMemory() {
        return v.listenerMemory;
    }

    public long minReceiveRate() {
        return v.minReceiveRate;
    }

    public boolean peerAddressCheck() {
        return v.peerAddressCheck;
    }

    static {
        Internals.install((SecurityAccess) settings -> settings.v.secret);
    }

    /**
     * These settings with the {@code security.*} entries of {@code options} applied; any other key under
     * {@code security.} is refused with the list of known ones.
     */
    public SecuritySettings withOptions(Map<String, String> options) {
        Map<String, String> mine = new TreeMap<>();
        options.forEach((k, v) -> {
            if (k.startsWith("security.")) {
                if (!OPTIONS.contains(k)) {
                    throw new InvalidRequestException("unknown option '" + k + "'; known security options: "
                            + String.join(", ", OPTIONS));
                }
                mine.put(k, v);
            }
        });
        if (mine.isEmpty()) {
            return this;
        }
        SecuritySettings s = this;
        if (mine.containsKey("security.secret") && mine.containsKey("security.secretFile")) {
            throw new InvalidRequestException("give security.secret or security.secretFile, not both");
        }
        if (mine.containsKey("security.secret")) {
            s = s.secret(mine.get("security.secret").getBytes(StandardCharsets.UTF_8));
        }
        if (mine.containsKey("security.secretFile")) {
            s = s.secret(readSecret(mine.get("security.secretFile")));
        }
        Map<String, String> tlsStores = new TreeMap<>(s.v.tlsOptions);
        mine.forEach((k, v) -> {
            if (k.startsWith("security.tls.") && !k.equals("security.tls.clientAuth")
                    && !k.equals("security.tls.verifyHostname")) {
                tlsStores.put(k, v);
            }
        });
        if (!tlsStores.equals(s.v.tlsOptions)) {
            // Kept as options and built on first use: a key store and its password may arrive one option at a time.
            s = s.with(c -> {
                c.tls = null;
                c.tlsOptions = Map.copyOf(tlsStores);
            });
        }
        if (mine.containsKey("security.tls.clientAuth")) {
            s = s.tlsClientAuth(bool("security.tls.clientAuth", mine.get("security.tls.clientAuth")));
        }
        if (mine.containsKey("security.tls.verifyHostname")) {
            s = s.verifyHostname(bool("security.tls.verifyHostname", mine.get("security.tls.verifyHostname")));
        }
        if (mine.containsKey("security.handshakeTimeout")) {
            s = s.handshakeTimeout(Durations.parse("security.handshakeTimeout", mine.get("security.handshakeTimeout")));
        }
        if (mine.containsKey("security.maxConnections")) {
            s = s.maxConnections(integer("security.maxConnections", mine.get("security.maxConnections")));
        }
        if (mine.containsKey("security.maxHandshakes")) {
            s = s.maxHandshakes(integer("security.maxHandshakes", mine.get("security.maxHandshakes")));
        }
        if (mine.containsKey("security.maxConnectionsPerSource")) {
            s = s.maxConnectionsPerSource(integer("security.maxConnectionsPerSource",
                    mine.get("security.maxConnectionsPerSource")));
        }
        if (mine.containsKey("security.maxHandshakesPerSource")) {
            s = s.maxHandshakesPerSource(integer("security.maxHandshakesPerSource",
                    mine.get("security.maxHandshakesPerSource")));
        }
        for (String size : List.of("security.unauthenticatedMemory", "security.listenerMemory")) {
            if (mine.containsKey(size)) {
                long bytes = Sizes.parse(size, mine.get(size), 1);
                s = size.endsWith("unauthenticatedMemory") ? s.unauthenticatedMemory(bytes) : s.listenerMemory(bytes);
            }
        }
        if (mine.containsKey("security.minReceiveRate")) {
            // bytes per second, e.g. 64KiB (a trailing "/s" is allowed)
            String rate = mine.get("security.minReceiveRate").trim();
            s = s.minReceiveRate(Sizes.parse("security.minReceiveRate",
                    rate.endsWith("/s") ? rate.substring(0, rate.length() - 2) : rate, 1));
        }
        if (mine.containsKey("security.peerAddressCheck")) {
            s = s.peerAddressCheck(bool("security.peerAddressCheck", mine.get("security.peerAddressCheck")));
        }
        return s;
    }

    private static byte[] readSecret(String path) {
        try {
            byte[] b = Files.readAllBytes(Path.of(path));
            int n = b.length;
            while (n > 0 && (b[n - 1] == '\n' || b[n - 1] == '\r')) {
                n--;
            }
            return Arrays.copyOf(b, n);
        } catch (IOException e) {
            throw new InvalidRequestException("cannot read security.secretFile " + path + ": " + e.getMessage());
        }
    }

    private static SSLContext sslContext(Map<String, String> o) {
        try {
            KeyManagerFactory kmf = null;
            if (o.containsKey("security.tls.keyStore")) {
                char[] pw = o.getOrDefault("security.tls.keyStorePassword", "").toCharArray();
                KeyStore ks = load(o.get("security.tls.keyStore"),
                        o.getOrDefault("security.tls.keyStoreType", "PKCS12"), pw);
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(ks, pw);
            }
            TrustManagerFactory tmf = null;
            if (o.containsKey("security.tls.trustStore")) {
                char[] pw = o.getOrDefault("security.tls.trustStorePassword", "").toCharArray();
                KeyStore ts = load(o.get("security.tls.trustStore"),
                        o.getOrDefault("security.tls.trustStoreType", "PKCS12"), pw);
                tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(ts);
            }
            SSLContext ctx = SSLContext.getInstance("TLSv1.3");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new InvalidRequestException("cannot set up TLS from security.tls.* options: " + e.getMessage());
        }
    }

    private static KeyStore load(String path, String type, char[] password)
            throws GeneralSecurityException, IOException {
        KeyStore ks = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(Path.of(path))) {
            ks.load(in, password);
        }
        return ks;
    }

    private static boolean bool(String key, String v) {
        return switch (v.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new InvalidRequestException(key + " must be true or false, not '" + v + "'");
        };
    }

    private static int integer(String key, String v) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(key + " must be an integer, not '" + v + "'");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SecuritySettings s && Arrays.equals(s.v.secret, v.secret) && Objects.equals(s.v.tls, v.tls)
                && s.v.tlsOptions.equals(v.tlsOptions) && s.v.tlsClientAuth == v.tlsClientAuth
                && s.v.verifyHostname == v.verifyHostname && s.v.handshakeTimeout.equals(v.handshakeTimeout)
                && s.v.maxConnections == v.maxConnections && s.v.maxHandshakes == v.maxHandshakes
                && s.v.maxConnectionsPerSource == v.maxConnectionsPerSource
                && s.v.maxHandshakesPerSource == v.maxHandshakesPerSource
                && s.v.unauthenticatedMemory == v.unauthenticatedMemory && s.v.listenerMemory == v.listenerMemory
                && s.v.minReceiveRate == v.minReceiveRate && s.v.peerAddressCheck == v.peerAddressCheck;
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(v.secret), v.tls, v.handshakeTimeout, v.maxConnections, v.maxHandshakes,
                v.unauthenticatedMemory, v.listenerMemory);
    }

    @Override
    public String toString() {
        return "SecuritySettings[secret=" + (v.secret != null ? "set" : "none") + ", tls=" + (usesTls() ? "on" : "off")
                + ", handshakeTimeout=" + v.handshakeTimeout + ", maxConnections=" + v.maxConnections
                + " (" + v.maxConnectionsPerSource + " per source), maxHandshakes=" + v.maxHandshakes + " ("
                + v.maxHandshakesPerSource + " per source), unauthenticatedMemory="
                + Sizes.format(v.unauthenticatedMemory) + ", listenerMemory=" + Sizes.format(v.listenerMemory)
                + ", minReceiveRate=" + Sizes.format(v.minReceiveRate) + "/s]";
    }
}
