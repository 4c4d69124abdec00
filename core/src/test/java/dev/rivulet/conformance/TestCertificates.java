package dev.rivulet.conformance;

import dev.rivulet.core.security.SecuritySettings;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Self-signed TLS identities for tests, made once per JVM with the JDK's own {@code keytool}: a server and a client
 * certificate (both valid for {@code localhost}, 127.0.0.1 and ::1), a trust store holding both, and a stranger whose
 * certificate nobody trusts. {@link #options(String)} gives the {@code security.tls.*} options of an identity, so a
 * child process can be configured the same way.
 */
public final class TestCertificates {

    public static final String PASSWORD = "rivulet-test";
    private static Path dir;

    private TestCertificates() {
    }

    /** The key store of {@code who} ({@code server}, {@code client} or {@code stranger}). */
    public static synchronized Path keyStore(String who) {
        ensure();
        return dir.resolve(who + ".p12");
    }

    public static synchronized Path trustStore() {
        ensure();
        return dir.resolve("trust.p12");
    }

    /** The {@code security.tls.*} options for {@code who}, trusting the server and client certificates. */
    public static Map<String, String> options(String who) {
        return Map.of("security.tls.keyStore", keyStore(who).toString(),
                "security.tls.keyStorePassword", PASSWORD,
                "security.tls.trustStore", trustStore().toString(),
                "security.tls.trustStorePassword", PASSWORD);
    }

    /** Settings for {@code who} with TLS on. */
    public static SecuritySettings settings(String who) {
        return SecuritySettings.defaults().withOptions(options(who));
    }

    public static SSLContext context(String who) {
        return settings(who).tls();
    }

    private static void ensure() {
        if (dir != null) {
            return;
        }
        try {
            Path d = Files.createTempDirectory("rivulet-certs");
            d.toFile().deleteOnExit();
            for (String who : List.of("server", "client", "stranger")) {
                keytool("-genkeypair", "-alias", who, "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                        "-dname", "CN=" + who + ".rivulet.test", "-ext", "SAN=dns:localhost,ip:127.0.0.1,ip:::1",
                        "-keystore", d.resolve(who + ".p12").toString(), "-storetype", "PKCS12", "-storepass",
                        PASSWORD, "-keypass", PASSWORD);
            }
            for (String who : List.of("server", "client")) {
                Path cert = d.resolve(who + ".crt");
                keytool("-exportcert", "-alias", who, "-keystore", d.resolve(who + ".p12").toString(), "-storepass",
                        PASSWORD, "-file", cert.toString());
                keytool("-importcert", "-noprompt", "-alias", who, "-file", cert.toString(), "-keystore",
                        d.resolve("trust.p12").toString(), "-storetype", "PKCS12", "-storepass", PASSWORD);
            }
            dir = d;
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException("could not make test certificates with keytool", e);
        }
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException("keytool " + String.join(" ", args) + " failed: " + out);
        }
    }
}
