package dev.rivulet.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundles;

import dev.rivulet.core.security.SecuritySettings;

/** The transports' TLS settings from a Spring Boot SSL bundle, as {@code rivulet.transport.ssl.*} says. */
final class TransportTls {

    private TransportTls() {
    }

    /**
     * Security settings with TLS from the named bundle, or {@code null} when no bundle is named. Fails, as Spring
     * Boot does for its own servers, when the bundle does not exist or the application has no SSL bundles at all.
     */
    static @Nullable SecuritySettings security(RivuletProperties.Ssl ssl, ObjectProvider<SslBundles> bundles) {
        String name = ssl.getBundle();
        if (name == null || name.isBlank()) {
            return null;
        }
        SslBundles available = bundles.getIfAvailable();
        if (available == null) {
            throw new NoSuchSslBundleException(name, "rivulet.transport.ssl.bundle names SSL bundle '" + name
                    + "' but the application has no spring.ssl.bundle.* configured");
        }
        return SecuritySettings.defaults()
                .tls(available.getBundle(name).createSslContext())
                .tlsClientAuth(ssl.isClientAuth())
                .verifyHostname(ssl.isVerifyHostname());
    }
}
