package dev.rivulet.core.security;

import dev.rivulet.core.internal.Durations;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.SecurityAccess;
import dev.rivulet.core.error.InvalidRequestException;

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
 *   <li>{@code security.maxConnections} (1024) and {@code security.maxHandshakes} (64) per listener: connections
 *       beyond them are closed at once;</li>
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
            "security.maxConnections", "security.maxHandshakes", "security.peerAddressCheck");

    private static final SecuritySettings DEFAULTS = new SecuritySettings(null, null, Map.of(), true, true,
            Duration.ofSeconds(10), 1024, 64, true);

    private final byte[] secret;
    private final SSLContext tls;
    /** {@code security.tls.*} options given so far; the context is built from them on first use. */
    private final Map<String, String> tlsOptions;
    private volatile SSLContext builtTls;
    private final boolean tlsClientAuth;
    private final boolean verifyHostname;
    private final Duration handshakeTimeout;
    private final int maxConnections;
    private final int maxHandshakes;
    private final boolean peerAddressCheck;

    private SecuritySettings(byte[] secret, SSLContext tls, Map<String, String> tlsOptions, boolean tlsClientAuth,
                             boolean verifyHostname, Duration handshakeTimeout, int maxConnections, int maxHandshakes,
                             boolean peerAddressCheck) {
        this.secret = secret;
        this.tls = tls;
        this.tlsOptions = Map.copyOf(tlsOptions);
        this.tlsClientAuth = tlsClientAuth;
        this.verifyHostname = verifyHostname;
        this.handshakeTimeout = handshakeTimeout;
        this.maxConnections = maxConnections;
        this.maxHandshakes = maxHandshakes;
        this.peerAddressCheck = peerAddressCheck;
    }

    /** No secret, no TLS: anyone who can reach a listener may connect (the handshake and limits still apply). */
    public static SecuritySettings defaults() {
        return DEFAULTS;
    }

    /** Both sides must prove they hold {@code secret} (at least {@value #MIN_SECRET_BYTES} bytes). */
    public SecuritySettings secret(byte[] secret) {
        if (secret != null && secret.length < MIN_SECRET_BYTES) {
            throw new InvalidRequestException("a shared secret needs at least " + MIN_SECRET_BYTES + " bytes, got "
                    + secret.length);
        }
        return new SecuritySettings(secret == null ? null : secret.clone(), tls, tlsOptions, tlsClientAuth,
                verifyHostname,
                handshakeTimeout, maxConnections, maxHandshakes, peerAddressCheck);
    }

    /** TLS for the connection set-up channel (and, on stream transports, for the data too) with this context. */
    public SecuritySettings tls(SSLContext context) {
        return new SecuritySettings(secret, context, Map.of(), tlsClientAuth, verifyHostname, handshakeTimeout,
                maxConnections, maxHandshakes, peerAddressCheck);
    }

    /** Whether a listener requires a client certificate (default true). */
    public SecuritySettings tlsClientAuth(boolean required) {
        return new SecuritySettings(secret, tls, tlsOptions, required, verifyHostname, handshakeTimeout, maxConnections,
                maxHandshakes, peerAddressCheck);
    }

    /** Whether a client checks that the server certificate names the host it dialled (default true). */
    public SecuritySettings verifyHostname(boolean verify) {
        return new SecuritySettings(secret, tls, tlsOptions, tlsClientAuth, verify, handshakeTimeout, maxConnections,
                maxHandshakes, peerAddressCheck);
    }

    public SecuritySettings handshakeTimeout(Duration timeout) {
        if (timeout == null || timeout.isZero() || timeout.isNegative()) {
            throw new InvalidRequestException("handshakeTimeout must be positive, got " + timeout);
        }
        return new SecuritySettings(secret, tls, tlsOptions, tlsClientAuth, verifyHostname, timeout, maxConnections,
                maxHandshakes, peerAddressCheck);
    }

    public SecuritySettings maxConnections(int n) {
        if (n < 1) {
            throw new InvalidRequestException("maxConnections must be >= 1, got " + n);
        }
        return new SecuritySettings(secret, tls, tlsOptions, tlsClientAuth, verifyHostname, handshakeTimeout, n,
                maxHandshakes,
                peerAddressCheck);
    }

    public SecuritySettings maxHandshakes(int n) {
        if (n < 1) {
            throw new InvalidRequestException("maxHandshakes must be >= 1, got " + n);
        }
        return new SecuritySettings(secret, tls, tlsOptions, tlsClientAuth, verifyHostname, handshakeTimeout,
                maxConnections, n,
                peerAddressCheck);
    }

    public SecuritySettings peerAddressCheck(boolean check) {
        return new SecuritySettings(secret, tls, tlsOptions, tlsClientAuth, verifyHostname, handshakeTimeout,
                maxConnections, maxHandshakes, check);
    }

    /** The shared secret, or null. */
    public byte[] secret() {
        return secret == null ? null : secret.clone();
    }

    public boolean authenticates() {
        return secret != null;
    }

    /**
     * The TLS context, or null for plain TCP: the one given, or one built (once) from the {@code security.tls.*}
     * options.
     *
     * @throws InvalidRequestException when the options do not make a usable context (a missing file, a wrong
     *                                 password)
     */
    public SSLContext tls() {
        if (tls != null || tlsOptions.isEmpty()) {
            return tls;
        }
        SSLContext c = builtTls;
        if (c == null) {
            c = sslContext(tlsOptions);
            builtTls = c;
        }
        return c;
    }

    public boolean usesTls() {
        return tls != null || !tlsOptions.isEmpty();
    }

    public boolean tlsClientAuth() {
        return tlsClientAuth;
    }

    public boolean verifyHostname() {
        return verifyHostname;
    }

    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    public int maxConnections() {
        return maxConnections;
    }

    public int maxHandshakes() {
        return maxHandshakes;
    }

    public boolean peerAddressCheck() {
        return peerAddressCheck;
    }

    static {
        Internals.install((SecurityAccess) settings -> settings.secret);
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
        Map<String, String> tlsStores = new TreeMap<>(s.tlsOptions);
        mine.forEach((k, v) -> {
            if (k.startsWith("security.tls.") && !k.equals("security.tls.clientAuth")
                    && !k.equals("security.tls.verifyHostname")) {
                tlsStores.put(k, v);
            }
        });
        if (!tlsStores.equals(s.tlsOptions)) {
            // Kept as options and built on first use: a key store and its password may arrive one option at a time.
            s = new SecuritySettings(s.secret, null, tlsStores, s.tlsClientAuth, s.verifyHostname, s.handshakeTimeout,
                    s.maxConnections, s.maxHandshakes, s.peerAddressCheck);
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
        return o instanceof SecuritySettings s && Arrays.equals(s.secret, secret) && Objects.equals(s.tls, tls)
                && s.tlsOptions.equals(tlsOptions)
                && s.tlsClientAuth == tlsClientAuth && s.verifyHostname == verifyHostname
                && s.handshakeTimeout.equals(handshakeTimeout) && s.maxConnections == maxConnections
                && s.maxHandshakes == maxHandshakes && s.peerAddressCheck == peerAddressCheck;
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(secret), tls, handshakeTimeout, maxConnections, maxHandshakes);
    }

    @Override
    public String toString() {
        return "SecuritySettings[secret=" + (secret != null ? "set" : "none") + ", tls=" + (tls != null ? "on" : "off")
                + ", handshakeTimeout=" + handshakeTimeout + ", maxConnections=" + maxConnections + ", maxHandshakes="
                + maxHandshakes + "]";
    }
}
