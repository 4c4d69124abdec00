package dev.rivulet.faults;

import java.util.Set;

import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * Behaviour of a transport that a scenario shows to be wrong today, in one place so each can be dropped the day it is
 * fixed. By default a scenario run that cannot pass because of one is skipped with the description as the reason
 * ({@link #skipUnlessStrict}), or, where the defect touches only one assertion of a scenario that otherwise runs
 * fine, that assertion is widened and the fact printed ({@link #tolerated}). {@code -Dfaults.strict=true} turns
 * both off, so the scenarios fail and show the defects.
 */
enum KnownDefect {

    HEARTBEAT_QUEUED_BEHIND_BULK_DATA(Set.of(FaultTransport.IO_URING),
            "io_uring ends a healthy connection after liveness.peerTimeout while one side sends bulk data and hears "
                    + "nothing back (a 16 MiB put over a 40 Mbit/s link with peerTimeout=1s fails after ~1 s): the "
                    + "sender's heartbeat waits behind its own data in the one TCP stream, and the receiver, which "
                    + "hears data all the time, never sends a heartbeat of its own"),
    WRITE_TIMEOUT_COUNTS_OPERATION_AGE(Set.of(FaultTransport.LIBFABRIC_TCP),
            "libfabric tcp ends a healthy connection when a single operation has been in flight for "
                    + "liveness.writeTimeout, even while the peer takes its bytes steadily (a 16 MiB put over a "
                    + "40 Mbit/s link with writeTimeout=2s fails after 2 s)"),
    BROKEN_CONNECTION_REPORTED_AS_REFUSAL(Set.of(FaultTransport.LIBFABRIC_TCP),
            "libfabric tcp ends the first one-sided operation in flight when its connection breaks (peer process "
                    + "killed, TCP reset) with RemoteAccessException ('remote access refused', provider: ENOTCONN) "
                    + "instead of ConnectionLostException, and the rest with ConnectionLostException saying 'the tcp "
                    + "provider ends its connection after a refused one-sided operation': tcp;ofi_rxm's ENOTCONN is "
                    + "read as a rejected key when it arrives before the bootstrap channel reports the peer gone");

    private static final boolean STRICT = Boolean.getBoolean("faults.strict");

    private final Set<FaultTransport> transports;
    private final String description;

    KnownDefect(Set<FaultTransport> transports, String description) {
        this.transports = transports;
        this.description = description;
    }

    boolean affects(FaultTransport transport) {
        return transports.contains(transport);
    }

    /** Skips the current test on {@code transport} while this defect exists (unless strict). */
    void skipUnlessStrict(FaultTransport transport) {
        if (affects(transport) && !STRICT) {
            System.out.println("[faults] skipped on " + transport + ", known defect: " + description);
        }
        assumeFalse(affects(transport) && !STRICT, () -> "known defect: " + description);
    }

    /**
     * Whether a scenario on {@code transport} should accept what this defect produces (never when strict); prints
     * that it does.
     */
    boolean tolerated(FaultTransport transport) {
        return affects(transport) && !STRICT;
    }

    String description() {
        return description;
    }
}
