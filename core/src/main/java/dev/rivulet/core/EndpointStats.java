package dev.rivulet.core;

/**
 * A snapshot of one endpoint's flow-control state, read on its progress thread.
 *
 * @param sendCredits          credits the peer has granted and this side has not used yet
 * @param sendsInFlight        messages posted and not yet completed
 * @param maxSendsInFlight     high-water mark of {@code sendsInFlight}
 * @param creditsGranted       credits this side has granted its peer in total
 * @param creditsReceived      credits the peer has granted this side in total
 * @param messagesSent         data messages posted in total
 * @param messagesReceived     data messages received in total
 * @param receivesPosted       receive slots currently posted (and granted or about to be)
 * @param maxReceivesPosted    high-water mark of {@code receivesPosted}
 * @param pendingOperations    operations parked in the pending FIFO
 * @param noResourceRetries    times the provider said "try again" and an operation was parked
 * @param creditStalls         times a send waited for credits
 * @param coalescedFrames      frames that carried several small messages in one send
 * @param messagesDiscarded    messages that arrived while nobody listened after a {@code receive()} subscriber
 *                             cancelled and the receive linger ran out ({@code TransportConfig.receiveLinger})
 */
public record EndpointStats(long sendCredits, int sendsInFlight, int maxSendsInFlight, long creditsGranted,
                            long creditsReceived, long messagesSent, long messagesReceived, int receivesPosted,
                            int maxReceivesPosted, int pendingOperations, long noResourceRetries, long creditStalls,
                            long coalescedFrames, long messagesDiscarded) {
}
