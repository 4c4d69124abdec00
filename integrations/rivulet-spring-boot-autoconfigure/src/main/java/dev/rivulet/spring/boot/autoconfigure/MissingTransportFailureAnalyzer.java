package dev.rivulet.spring.boot.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.rivulet.core.Transports;

/** Turns a {@link MissingTransportException} into the start-up report: what was asked for, why not, what to do. */
class MissingTransportFailureAnalyzer extends AbstractFailureAnalyzer<MissingTransportException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, MissingTransportException cause) {
        String description = "Rivulet transport '" + cause.requested() + "', asked for by " + cause.property()
                + ", cannot be used: " + cause.reason() + ".\n\nTransports on the class path: " + Transports.describe();
        String action = "Add the module of that transport (rivulet-reactor-rio for io_uring, rivulet-reactor-rdma for "
                + "libfabric) and check the reason it gives on this machine, or change " + cause.property() + ".";
        return new FailureAnalysis(description, action, cause);
    }
}
