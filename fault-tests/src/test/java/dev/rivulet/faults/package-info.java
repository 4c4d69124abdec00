/**
 * Fault injection for Rivulet's network transports: real io_uring and libfabric {@code tcp} endpoints in two
 * network namespaces, with the network between them broken on purpose.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Network.</b> Each test class makes a {@link dev.rivulet.faults.NamespacePair}: two namespaces
 *       ({@code rvf-<pid>-<random>-a|b}) joined by a veth pair, 10.77.0.1 and 10.77.0.2, deleted in
 *       {@code @AfterAll} and by a shutdown hook, and swept at the start of a later run if a killed run left them.
 *       Faults are per namespace: {@link dev.rivulet.faults.Firewall} (an nftables table of its own: random drop
 *       with {@code numgen random}, {@code reject with tcp reset}, drop everything for a partition, counters for
 *       what each rule took), {@link dev.rivulet.faults.RateLimiter} (a {@code tbf} qdisc) and
 *       {@link dev.rivulet.faults.Namespace#linkDown()} ({@code ip link set down}). There is no netem here, hence
 *       no delay or duplication faults. The route between the namespaces has TCP's retransmission-timeout floor
 *       lowered to 10 ms, as on a low-latency LAN ({@link dev.rivulet.faults.Namespace#tuneRoute()}).</li>
 *   <li><b>Processes.</b> Both sides of every scenario are child JVMs started with {@code ip netns exec <ns>
 *       <java> ...} (the test's own java binary and class path, native access enabled), so each side sits in its
 *       own namespace and a fault hits exactly one side's network: {@link dev.rivulet.faults.FaultPeer} (binds,
 *       grants each connection a window with {@code Endpoint.grant}, checks every message it receives, optionally
 *       echoes it) in the server namespace, and {@link dev.rivulet.faults.FaultClient} (connects and runs what the
 *       test asks: a verified stream, RMA rounds against a shadow copy, a large put, every kind of operation in
 *       loops) in the client namespace. The test JVM stays in the root namespace, makes the faults, and reads
 *       outcomes from the children's stdout as {@link dev.rivulet.faults.Line}s: typed errors by exception class
 *       name with a timestamp, counts, checksums, window handles in hex. A child whose stdin closes exits, so a
 *       dead test leaves no JVM behind; a child's output and stderr go to {@code target/fault-logs}.</li>
 *   <li><b>After each scenario</b> every surviving side reports its {@link dev.rivulet.faults.ProcessHealth}
 *       (LeakDetector, pool buffers, grants, descriptors by kind, native threads, own /dev/shm files) and must be
 *       back at the baseline it reported after one warm-up connection ({@link dev.rivulet.faults.Recovery}, which
 *       documents the JDK slack); the test also checks that no /dev/shm file carries the pid of any process of the
 *       scenario, killed ones included.</li>
 *   <li><b>Skipping.</b> Without Linux, root, {@code ip}, {@code nft} or {@code tc}, or where namespaces or nftables
 *       do not work (an unprivileged container), every class skips with the reason
 *       ({@link dev.rivulet.faults.FaultHost}); a transport that cannot open here skips its runs.</li>
 * </ul>
 *
 * <h2>Scenarios</h2>
 * {@link dev.rivulet.faults.PacketLossStreamTest} (10^6 messages under 1 % and 5 % loss),
 * {@link dev.rivulet.faults.PacketLossRmaTest} (puts, gets and atomics under the same loss),
 * {@link dev.rivulet.faults.PartitionTest} (a 2 s partition that heals, and one that outlasts a 1 s peer timeout),
 * {@link dev.rivulet.faults.LinkCutTest} (the link down in the middle of a large put, back within or after the
 * timeout), {@link dev.rivulet.faults.SlowLinkTest} (a slow but healthy link, the control for the cut),
 * {@link dev.rivulet.faults.PeerDeathTest} (the peer killed, stopped, or its connection reset mid-stream),
 * {@link dev.rivulet.faults.ResumeFaultTest} (a resumable session carrying 10^6 messages across a partition, a link
 * cut and repeated resets, and a resume refused after the server expired the session; its child JVMs are
 * {@link dev.rivulet.faults.ResumePeer} and {@link dev.rivulet.faults.ResumeClient}). Each
 * prints its timings and throughput ({@link dev.rivulet.faults.FaultReport}, also in
 * {@code target/fault-report.txt}).
 */
package dev.rivulet.faults;
