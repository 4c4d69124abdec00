package dev.rivulet.rdma.verbs.sys;

import dev.rivulet.core.spi.Availability;
import dev.rivulet.rdma.verbs.VerbsTransportProvider;

/**
 * Run in a JVM of its own by {@link VerbsLoadingTest}: prints what the binding and the provider say about this host,
 * with the library system properties the test sets, which only a fresh JVM reads (the libraries load once).
 */
public final class AvailabilityReport {

    private AvailabilityReport() {
    }

    public static void main(String[] args) {
        System.out.println("ibverbs: " + Ibverbs.unavailableReason().orElse("available"));
        System.out.println("rdmacm: " + Rdmacm.unavailableReason().orElse("available"));
        Availability a = new VerbsTransportProvider().availability();
        System.out.println("provider: " + (a.available() ? "available" : "unavailable: " + a.reason()));
        System.out.println("status text: " + Ibverbs.wcStatusStr(VerbsConstants.IBV_WC_REM_ACCESS_ERR));
    }
}
