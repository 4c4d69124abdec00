package dev.rivulet.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

import dev.rivulet.core.TransportConfig;

/** {@code rivulet.*} settings: the application's transport resources and the server of its controllers. */
@ConfigurationProperties("rivulet")
public class RivuletProperties {

    private final Transport transport = new Transport();
    private final Server server = new Server();

    public Transport getTransport() {
        return transport;
    }

    public Server getServer() {
        return server;
    }

    /** How the transports of the application's resources open: one per kind of address, all alike. */
    public static class Transport {

        /**
         * Name of the application's transport resources: prefix of each transport's name and so of the name tag of
         * its rivulet.* meters.
         */
        private String name = "rivulet";

        /** Polling threads of each transport. */
        private int progressThreads = 1;

        /** Operations an endpoint keeps posted at once. */
        private int sendQueueDepth = 128;

        /** Receive buffers (and so credits) an endpoint posts at most. */
        private int receiveQueueDepth = 128;

        /** How long a connect may take before it fails. */
        private Duration connectTimeout = Duration.ofSeconds(10);

        /** How long an endpoint keeps receiving after its peer said it closes. */
        private Duration receiveLinger = Duration.ofSeconds(1);

        /** Transport options by key (libfabric's provider, for instance), given to every transport. */
        private Map<String, String> options = new LinkedHashMap<>();

        /**
         * Transports the application cannot run without (local, io_uring, libfabric): start-up fails, saying why,
         * when one of them is missing from the class path or unavailable on this machine.
         */
        private List<String> required = new ArrayList<>();

        private final Ssl ssl = new Ssl();

        public Ssl getSsl() {
            return ssl;
        }

        public String getName() {
            return name;
        }

        public void setName(String name) {
            this.name = name;
        }

        public int getProgressThreads() {
            return progressThreads;
        }

        public void setProgressThreads(int progressThreads) {
            this.progressThreads = progressThreads;
        }

        public int getSendQueueDepth() {
            return sendQueueDepth;
        }

        public void setSendQueueDepth(int sendQueueDepth) {
            this.sendQueueDepth = sendQueueDepth;
        }

        public int getReceiveQueueDepth() {
            return receiveQueueDepth;
        }

        public void setReceiveQueueDepth(int receiveQueueDepth) {
            this.receiveQueueDepth = receiveQueueDepth;
        }

        public Duration getConnectTimeout() {
            return connectTimeout;
        }

        public void setConnectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
        }

        public Duration getReceiveLinger() {
            return receiveLinger;
        }

        public void setReceiveLinger(Duration receiveLinger) {
            this.receiveLinger = receiveLinger;
        }

        public Map<String, String> getOptions() {
            return options;
        }

        public void setOptions(Map<String, String> options) {
            this.options = options;
        }

        public List<String> getRequired() {
            return required;
        }

        public void setRequired(List<String> required) {
            this.required = required;
        }

        /** {@code config} with these settings. */
        TransportConfig applyTo(TransportConfig config) {
            return config.progressThreads(progressThreads)
                    .sendQueueDepth(sendQueueDepth)
                    .receiveQueueDepth(receiveQueueDepth)
                    .connectTimeout(connectTimeout)
                    .receiveLinger(receiveLinger)
                    .options(options);
        }
    }

    /** TLS of every transport, from one of Spring Boot's SSL bundles ({@code spring.ssl.bundle.*}). */
    public static class Ssl {

        /**
         * Name of the SSL bundle (spring.ssl.bundle.*) whose key and trust material secure the transports' connection
         * set-up (and, on stream transports, their data); none: no TLS.
         */
        private @Nullable String bundle;

        /** Whether a server requires its clients to present a certificate its trust material accepts. */
        private boolean clientAuth = true;

        /** Whether a client checks that the server's certificate names the host it connects to. */
        private boolean verifyHostname = true;

        public @Nullable String getBundle() {
            return bundle;
        }

        public void setBundle(@Nullable String bundle) {
            this.bundle = bundle;
        }

        public boolean isClientAuth() {
            return clientAuth;
        }

        public void setClientAuth(boolean clientAuth) {
            this.clientAuth = clientAuth;
        }

        public boolean isVerifyHostname() {
            return verifyHostname;
        }

        public void setVerifyHostname(boolean verifyHostname) {
            this.verifyHostname = verifyHostname;
        }
    }

    /** The server that answers requests with the application's {@code @MessageMapping} methods. */
    public static class Server {

        /**
         * Where the server listens (local://name, uring://host:port, fabric://host:port); none runs unless it is set.
         * Its scheme picks the transport.
         */
        private @Nullable String address;

        public @Nullable String getAddress() {
            return address;
        }

        public void setAddress(@Nullable String address) {
            this.address = address;
        }
    }
}
