package dev.rivulet.rdma.verbs.sys;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.sys.Pollfd;
import dev.rivulet.core.sys.SockaddrIn6;
import dev.rivulet.core.sys.SockaddrIn;
import dev.rivulet.rdma.abi.AbiProbe;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the verbs binding against the installed rdma-core headers (libibverbs-dev, librdmacm-dev): a C probe
 * ({@code verbs_abi_probe.c}, next to this class in the test resources) is compiled with gcc and run.
 *
 * <ul>
 *   <li>Every class of the package with a static {@code StructLayout LAYOUT} (and the socket/poll layouts of
 *       the shared native layer rdma_cm and the waits use, {@link SockaddrIn}, {@link SockaddrIn6}, {@link Pollfd}) is
 *       checked under its C name, member by member, nested groups as dotted
 *       paths; the probe must print no struct or member the Java side lacks, and the other way round. C's anonymous
 *       unions ({@code $anon_*} in Java) are transparent: their members are the struct's.</li>
 *   <li>Every public constant of {@link VerbsConstants} is compared with the header's value (the shared errno, fcntl
 *       and poll constants are checked by the io_uring ABI test).</li>
 *   <li>The encoders the transport posts with ({@link IbvSendWr}, {@link IbvRecvWr}, {@link IbvSge},
 *       {@link IbvQpInitAttr}, {@link IbvQpAttr}, {@link RdmaConnParam}) must write exactly the bytes the probe's C
 *       code writes for the same values and pointers, and {@link IbvWc} must read the values C wrote.</li>
 * </ul>
 *
 * <p>Without gcc the test is skipped with the reason. Without the headers it is skipped too, except in a run that
 * installed the native packages ({@code bin/test} and CI require libfabric, and install the rdma-core headers in the
 * same step): there a missing header fails it.
 */
class VerbsAbiTest {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsAbiTest.class);

    private static final String PROBE_RESOURCE = "verbs_abi_probe.c";

    @TempDir
    static Path work;

    private static AbiProbe probe;
    private static AbiProbe.Build build;
    private static Arena arena;
    /** What the encoded pointers point at: an sge list and a "next" request (also private data, CQ stand-in). */
    private static MemorySegment sgList;
    private static MemorySegment next;

    @BeforeAll
    static void compileAndRunProbe() throws Exception {
        build = AbiProbe.compile(VerbsAbiTest.class, PROBE_RESOURCE, work, "gnu11");
        if (build.lacks("infiniband/verbs.h", "rdma/rdma_cma.h")) {
            String why = "rdma-core headers are not installed (apt-get install libibverbs-dev librdmacm-dev): "
                    + build.gcc().firstError();
            if (Requirements.isRequired("libfabric")) {
                throw new AssertionError("this run installed the native packages (" + Requirements.PROPERTY + "="
                        + System.getProperty(Requirements.PROPERTY) + ") but " + why);
            }
            AbiProbe.skip(why);
        }
        probe = AbiProbe.parse(build.run(), "verbs");
        arena = Arena.ofShared();
        sgList = arena.allocate(IbvSge.LAYOUT, 2);
        next = arena.allocate(256, 8);
    }

    @AfterAll
    static void release() {
        if (arena != null) {
            arena.close();
        }
    }

    // ------------------------------------------------------------------------------------------------ layouts

    @TestFactory
    Stream<DynamicTest> everyJavaStructMatchesTheHeaders() throws Exception {
        return javaLayouts().entrySet().stream().map(e -> DynamicTest.dynamicTest(e.getKey(),
                () -> probe.checkStruct(e.getKey(), e.getValue())));
    }

    @Test
    void everyProbedStructHasAJavaType() throws Exception {
        assertThat(javaLayouts().keySet()).containsExactlyInAnyOrderElementsOf(probe.structs.keySet());
    }

    @Test
    void theDataPathSlotsOfTheOpsTableAreWhereTheHeaderPutsThem() {
        Map<String, long[]> fields = probe.structs.get("ibv_context").fields();
        long ops = fields.get("ops")[0];
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(IbvContext.OPS).as("offsetof(struct ibv_context, ops)").isEqualTo(ops);
        Map<String, long[]> slots = probe.structs.get("ibv_context_ops").fields();
        soft.assertThat(IbvContextOps.POST_SEND).as("post_send").isEqualTo(slots.get("post_send")[0]);
        soft.assertThat(IbvContextOps.POST_RECV).as("post_recv").isEqualTo(slots.get("post_recv")[0]);
        soft.assertThat(IbvContextOps.POLL_CQ).as("poll_cq").isEqualTo(slots.get("poll_cq")[0]);
        soft.assertThat(IbvContextOps.REQ_NOTIFY_CQ).as("req_notify_cq").isEqualTo(slots.get("req_notify_cq")[0]);
        soft.assertThat(IbvContextOps.POST_SRQ_RECV).as("post_srq_recv").isEqualTo(slots.get("post_srq_recv")[0]);
        // The extended query_port lies before the context: the offset the binding subtracts.
        Map<String, long[]> vctx = probe.structs.get("verbs_context").fields();
        soft.assertThat(vctx.get("context")[0] - vctx.get("sz")[0]).as("sz right before the context").isEqualTo(8);
        soft.assertAll();
    }

    @Test
    void everyConstantMatchesTheHeaders() throws Exception {
        LOG.info("verbs ABI probe: {} constants checked", probe.checkConstants(VerbsConstants.class));
    }

    // ------------------------------------------------------------------------------------------------ encoders

    @TestFactory
    Stream<DynamicTest> everyEncoderWritesTheBytesCWrites() throws Exception {
        Map<String, byte[]> c = new LinkedHashMap<>(encodedByC());
        c.remove("wc"); // read, not written, by the Java side: aCompletionWrittenByCReadsBackFieldByField
        Map<String, Consumer<MemorySegment>> java = javaEncoders();
        assertThat(java.keySet()).as("cases").containsExactlyInAnyOrderElementsOf(c.keySet());
        return java.entrySet().stream().map(e -> DynamicTest.dynamicTest(e.getKey(), () -> {
            byte[] expected = c.get(e.getKey());
            MemorySegment s = arena.allocate(expected.length, 8);
            s.fill((byte) 0x5a); // encoders must write every byte, padding included
            e.getValue().accept(s);
            assertThat(HexFormat.of().formatHex(s.toArray(ValueLayout.JAVA_BYTE)))
                    .as("bytes of %s", e.getKey())
                    .isEqualTo(HexFormat.of().formatHex(expected));
        }));
    }

    @Test
    void aCompletionWrittenByCReadsBackFieldByField() throws Exception {
        MemorySegment wc = arena.allocate(IbvWc.LAYOUT);
        MemorySegment.copy(MemorySegment.ofArray(encodedByC().get("wc")), 0, wc, 0, IbvWc.SIZE);
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(IbvWc.wrId(wc, 0)).isEqualTo(0x8000000000000011L);
        soft.assertThat(IbvWc.status(wc, 0)).isEqualTo(VerbsConstants.IBV_WC_REM_ACCESS_ERR);
        soft.assertThat(IbvWc.opcode(wc, 0)).isEqualTo(VerbsConstants.IBV_WC_RECV);
        soft.assertThat(IbvWc.vendorErr(wc, 0)).isEqualTo(0x81);
        soft.assertThat(IbvWc.byteLen(wc, 0)).isEqualTo(4096);
        soft.assertThat(IbvWc.immData(wc, 0)).as("immediate data, back in host order").isEqualTo(0x00000a02);
        soft.assertThat(IbvWc.qpNum(wc, 0)).isEqualTo(0x123);
        soft.assertThat(IbvWc.wcFlags(wc, 0)).isEqualTo(VerbsConstants.IBV_WC_WITH_IMM);
        soft.assertAll();
    }

    private static Map<String, Consumer<MemorySegment>> javaEncoders() {
        Map<String, Consumer<MemorySegment>> m = new LinkedHashMap<>();
        m.put("send_inline", s -> {
            IbvSendWr.sendWithImm(s, 0x1122334455667788L, sgList, 2, 0x00000301,
                    VerbsConstants.IBV_SEND_INLINE | VerbsConstants.IBV_SEND_SIGNALED);
            IbvSendWr.setNext(s, next);
        });
        m.put("send_word", s -> IbvSendWr.sendWithImm(s, 5, MemorySegment.NULL, 0, 0xffffff02, 0));
        m.put("write", s -> {
            IbvSendWr.rdmaWrite(s, 7, sgList, 1, 0x00007f0012345678L, 0xdeadbeef,
                    VerbsConstants.IBV_SEND_SIGNALED | VerbsConstants.IBV_SEND_FENCE);
            IbvSendWr.setNext(s, next);
        });
        m.put("read", s -> IbvSendWr.rdmaRead(s, 11, sgList, 1, 0x00007f00abcd0000L, 0x00c0ffee,
                VerbsConstants.IBV_SEND_SIGNALED));
        m.put("read_flush", s -> IbvSendWr.rdmaRead(s, 8, MemorySegment.NULL, 0, 0, 0,
                VerbsConstants.IBV_SEND_SIGNALED));
        m.put("fetch_add", s -> IbvSendWr.fetchAdd(s, 9, sgList, 0x1000L, 0x1234, 5,
                VerbsConstants.IBV_SEND_SIGNALED));
        m.put("cmp_swap", s -> IbvSendWr.compareSwap(s, 10, sgList, 0x2008L, 0x4321, 0x1111, 0xffffffff00002222L,
                VerbsConstants.IBV_SEND_SIGNALED));
        m.put("recv", s -> IbvRecvWr.set(s, 0x8000000000000003L, next, sgList, 1));
        m.put("sge", s -> IbvSge.set(s, 0x00007f00aabbccddL, 65536, 0x55));
        m.put("qp_init_attr", s -> IbvQpInitAttr.setRc(s, next, 136, 144, 128));
        m.put("qp_to_init", s -> assertThat(IbvQpAttr.toInit(s, 1, VerbsConstants.IBV_ACCESS_LOCAL_WRITE
                | VerbsConstants.IBV_ACCESS_REMOTE_WRITE | VerbsConstants.IBV_ACCESS_REMOTE_READ
                | VerbsConstants.IBV_ACCESS_REMOTE_ATOMIC)).isEqualTo(0x39));
        m.put("qp_to_rtr", s -> {
            byte[] gid = new byte[16];
            for (int i = 0; i < 16; i++) {
                gid[i] = (byte) (0xf0 + i);
            }
            assertThat(IbvQpAttr.toRtr(s, VerbsConstants.IBV_MTU_1024, 0xabc, 0x123456, 16, 12, 1, 0, gid, 3, 64))
                    .isEqualTo(0x129181);
        });
        m.put("qp_to_rts", s -> assertThat(IbvQpAttr.toRts(s, 0x654321, 14, 7, 7, 16)).isEqualTo(0x12E01));
        m.put("qp_to_err", s -> assertThat(IbvQpAttr.toErr(s)).isEqualTo(VerbsConstants.IBV_QP_STATE));
        m.put("conn_param", s -> RdmaConnParam.set(s, next.asSlice(0, 24), 16, 16, 7, 7));
        return m;
    }

    private static Map<String, byte[]> encodedCache;

    private static synchronized Map<String, byte[]> encodedByC() throws Exception {
        if (encodedCache == null) {
            String out = build.run("encode", "0x" + Long.toHexString(sgList.address()),
                    "0x" + Long.toHexString(next.address()));
            Map<String, byte[]> m = new LinkedHashMap<>();
            for (String line : out.lines().toList()) {
                String[] t = line.trim().split("\\s+");
                assertThat(t[0]).as(line).isEqualTo("bytes");
                m.put(t[1], HexFormat.of().parseHex(t[2]));
            }
            encodedCache = m;
        }
        return encodedCache;
    }

    // ------------------------------------------------------------------------------------------------ enumeration

    /** C struct name → layout, for every LAYOUT of the package plus the socket and poll layouts. */
    private static Map<String, StructLayout> javaLayouts() throws Exception {
        Map<String, StructLayout> byName = new TreeMap<>();
        List<StructLayout> all = new ArrayList<>(List.of(SockaddrIn.LAYOUT, SockaddrIn6.LAYOUT, Pollfd.LAYOUT));
        all.addAll(AbiProbe.packageLayouts(IbvSendWr.class).values());
        for (StructLayout l : all) {
            String cName = l.name().orElseThrow(() -> new AssertionError(l + " has no C name"));
            assertThat(byName.put(cName, l)).as("two Java layouts for struct %s", cName).isNull();
        }
        return byName;
    }
}
