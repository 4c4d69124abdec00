/**
 * The ibverbs transport: reliable-connected queue pairs set up through rdma_cm, a receive ring and send queue per
 * connection, completions through a completion channel a polling thread can sleep on. The verbs and rdma_cm binding
 * is {@code dev.rivulet.rdma.verbs.sys}.
 */
@NullMarked
package dev.rivulet.rdma.verbs;

import org.jspecify.annotations.NullMarked;
