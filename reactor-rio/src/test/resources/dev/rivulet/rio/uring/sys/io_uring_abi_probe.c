/*
 * ABI probe for the dev.rivulet.rio.uring.sys binding: prints, from the installed headers, every struct size,
 * alignment, member offset/size and constant the Java code relies on. IoUringAbiTest compiles it with gcc at
 * test time and compares line by line. Output lines:
 *   sizeof  <struct> <bytes>
 *   alignof <struct> <bytes>
 *   member  <struct>.<path> <offset> <size>
 *   const   <NAME> <value as signed 64-bit>
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/time_types.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define STRUCT(T, name) \
    printf("sizeof %s %zu\nalignof %s %zu\n", name, sizeof(T), name, _Alignof(T))
#define MEMBER(T, name, m) \
    printf("member %s.%s %zu %zu\n", name, #m, offsetof(T, m), sizeof(((T *) 0)->m))
#define CONST(NAME) printf("const %s %lld\n", #NAME, (long long) (NAME))
#define CONST_AS(JNAME, EXPR) printf("const %s %lld\n", #JNAME, (long long) (EXPR))

static void layouts(void) {
    STRUCT(struct io_uring_params, "io_uring_params");
    MEMBER(struct io_uring_params, "io_uring_params", sq_entries);
    MEMBER(struct io_uring_params, "io_uring_params", cq_entries);
    MEMBER(struct io_uring_params, "io_uring_params", flags);
    MEMBER(struct io_uring_params, "io_uring_params", sq_thread_cpu);
    MEMBER(struct io_uring_params, "io_uring_params", sq_thread_idle);
    MEMBER(struct io_uring_params, "io_uring_params", features);
    MEMBER(struct io_uring_params, "io_uring_params", wq_fd);
    MEMBER(struct io_uring_params, "io_uring_params", resv);
    MEMBER(struct io_uring_params, "io_uring_params", sq_off);
    MEMBER(struct io_uring_params, "io_uring_params", cq_off);
    MEMBER(struct io_uring_params, "io_uring_params", sq_off.head);
    MEMBER(struct io_uring_params, "io_uring_params", sq_off.tail);
    MEMBER(struct io_uring_params, "io_uring_params", sq_off.ring_mask);
    MEMBER(struct io_uring_params, "io_uring_params", sq_off.ring_entries);
    MEMBER(struct io_uring_params, "io_uring_params", sq_off.flags);
    MEMBER(struct io_uring_params, "io_uring_params", sq_off.dropped);
    MEMBER(struct io_uring_params, "io_uring_params", sq_off.array);
    MEMBER(struct io_uring_params, "io_uring_params", sq_off.resv1);
    MEMBER(struct io_uring_params, "io_uring_params", sq_off.resv2);
    MEMBER(struct io_uring_params, "io_uring_params", cq_off.head);
    MEMBER(struct io_uring_params, "io_uring_params", cq_off.tail);
    MEMBER(struct io_uring_params, "io_uring_params", cq_off.ring_mask);
    MEMBER(struct io_uring_params, "io_uring_params", cq_off.ring_entries);
    MEMBER(struct io_uring_params, "io_uring_params", cq_off.overflow);
    MEMBER(struct io_uring_params, "io_uring_params", cq_off.cqes);
    MEMBER(struct io_uring_params, "io_uring_params", cq_off.flags);
    MEMBER(struct io_uring_params, "io_uring_params", cq_off.resv1);
    MEMBER(struct io_uring_params, "io_uring_params", cq_off.resv2);

    STRUCT(struct io_sqring_offsets, "io_sqring_offsets");
    MEMBER(struct io_sqring_offsets, "io_sqring_offsets", head);
    MEMBER(struct io_sqring_offsets, "io_sqring_offsets", tail);
    MEMBER(struct io_sqring_offsets, "io_sqring_offsets", ring_mask);
    MEMBER(struct io_sqring_offsets, "io_sqring_offsets", ring_entries);
    MEMBER(struct io_sqring_offsets, "io_sqring_offsets", flags);
    MEMBER(struct io_sqring_offsets, "io_sqring_offsets", dropped);
    MEMBER(struct io_sqring_offsets, "io_sqring_offsets", array);
    MEMBER(struct io_sqring_offsets, "io_sqring_offsets", resv1);
    MEMBER(struct io_sqring_offsets, "io_sqring_offsets", resv2);

    STRUCT(struct io_cqring_offsets, "io_cqring_offsets");
    MEMBER(struct io_cqring_offsets, "io_cqring_offsets", head);
    MEMBER(struct io_cqring_offsets, "io_cqring_offsets", tail);
    MEMBER(struct io_cqring_offsets, "io_cqring_offsets", ring_mask);
    MEMBER(struct io_cqring_offsets, "io_cqring_offsets", ring_entries);
    MEMBER(struct io_cqring_offsets, "io_cqring_offsets", overflow);
    MEMBER(struct io_cqring_offsets, "io_cqring_offsets", cqes);
    MEMBER(struct io_cqring_offsets, "io_cqring_offsets", flags);
    MEMBER(struct io_cqring_offsets, "io_cqring_offsets", resv1);
    MEMBER(struct io_cqring_offsets, "io_cqring_offsets", resv2);

    STRUCT(struct io_uring_sqe, "io_uring_sqe");
    MEMBER(struct io_uring_sqe, "io_uring_sqe", opcode);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", flags);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", ioprio);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", fd);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", off);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", addr);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", len);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", rw_flags);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", user_data);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", buf_index);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", personality);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", splice_fd_in);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", addr3);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", __pad2);
    /* union aliases the Java flyweight writes through the first member of each union */
    MEMBER(struct io_uring_sqe, "io_uring_sqe", addr2);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", splice_off_in);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", msg_flags);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", timeout_flags);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", accept_flags);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", cancel_flags);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", poll32_events);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", buf_group);
    MEMBER(struct io_uring_sqe, "io_uring_sqe", file_index);

    STRUCT(struct io_uring_cqe, "io_uring_cqe");
    MEMBER(struct io_uring_cqe, "io_uring_cqe", user_data);
    MEMBER(struct io_uring_cqe, "io_uring_cqe", res);
    MEMBER(struct io_uring_cqe, "io_uring_cqe", flags);

    STRUCT(struct io_uring_getevents_arg, "io_uring_getevents_arg");
    MEMBER(struct io_uring_getevents_arg, "io_uring_getevents_arg", sigmask);
    MEMBER(struct io_uring_getevents_arg, "io_uring_getevents_arg", sigmask_sz);
    MEMBER(struct io_uring_getevents_arg, "io_uring_getevents_arg", pad);
    MEMBER(struct io_uring_getevents_arg, "io_uring_getevents_arg", ts);

    STRUCT(struct io_uring_rsrc_register, "io_uring_rsrc_register");
    MEMBER(struct io_uring_rsrc_register, "io_uring_rsrc_register", nr);
    MEMBER(struct io_uring_rsrc_register, "io_uring_rsrc_register", flags);
    MEMBER(struct io_uring_rsrc_register, "io_uring_rsrc_register", resv2);
    MEMBER(struct io_uring_rsrc_register, "io_uring_rsrc_register", data);
    MEMBER(struct io_uring_rsrc_register, "io_uring_rsrc_register", tags);

    STRUCT(struct io_uring_rsrc_update2, "io_uring_rsrc_update2");
    MEMBER(struct io_uring_rsrc_update2, "io_uring_rsrc_update2", offset);
    MEMBER(struct io_uring_rsrc_update2, "io_uring_rsrc_update2", resv);
    MEMBER(struct io_uring_rsrc_update2, "io_uring_rsrc_update2", data);
    MEMBER(struct io_uring_rsrc_update2, "io_uring_rsrc_update2", tags);
    MEMBER(struct io_uring_rsrc_update2, "io_uring_rsrc_update2", nr);
    MEMBER(struct io_uring_rsrc_update2, "io_uring_rsrc_update2", resv2);

    STRUCT(struct epoll_event, "epoll_event");
    MEMBER(struct epoll_event, "epoll_event", events);
    MEMBER(struct epoll_event, "epoll_event", data);

    STRUCT(struct timespec, "timespec");
    MEMBER(struct timespec, "timespec", tv_sec);
    MEMBER(struct timespec, "timespec", tv_nsec);

    /* io_uring's own timespec, which the Java side writes as a struct timespec (checked as aliases) */
    STRUCT(struct __kernel_timespec, "__kernel_timespec");
    MEMBER(struct __kernel_timespec, "__kernel_timespec", tv_sec);
    MEMBER(struct __kernel_timespec, "__kernel_timespec", tv_nsec);

    STRUCT(struct io_uring_probe, "io_uring_probe");
    MEMBER(struct io_uring_probe, "io_uring_probe", last_op);
    MEMBER(struct io_uring_probe, "io_uring_probe", ops_len);
    MEMBER(struct io_uring_probe, "io_uring_probe", resv);
    MEMBER(struct io_uring_probe, "io_uring_probe", resv2);
    printf("member io_uring_probe.ops %zu 0\n", offsetof(struct io_uring_probe, ops));

    STRUCT(struct io_uring_probe_op, "io_uring_probe_op");
    MEMBER(struct io_uring_probe_op, "io_uring_probe_op", op);
    MEMBER(struct io_uring_probe_op, "io_uring_probe_op", resv);
    MEMBER(struct io_uring_probe_op, "io_uring_probe_op", flags);
    MEMBER(struct io_uring_probe_op, "io_uring_probe_op", resv2);

    STRUCT(struct iovec, "iovec");
    MEMBER(struct iovec, "iovec", iov_base);
    MEMBER(struct iovec, "iovec", iov_len);

    STRUCT(struct msghdr, "msghdr");
    MEMBER(struct msghdr, "msghdr", msg_name);
    MEMBER(struct msghdr, "msghdr", msg_namelen);
    MEMBER(struct msghdr, "msghdr", msg_iov);
    MEMBER(struct msghdr, "msghdr", msg_iovlen);
    MEMBER(struct msghdr, "msghdr", msg_control);
    MEMBER(struct msghdr, "msghdr", msg_controllen);
    MEMBER(struct msghdr, "msghdr", msg_flags);

    STRUCT(struct sockaddr_in, "sockaddr_in");
    MEMBER(struct sockaddr_in, "sockaddr_in", sin_family);
    MEMBER(struct sockaddr_in, "sockaddr_in", sin_port);
    MEMBER(struct sockaddr_in, "sockaddr_in", sin_addr);
    MEMBER(struct sockaddr_in, "sockaddr_in", sin_zero);

    STRUCT(struct sockaddr_in6, "sockaddr_in6");
    MEMBER(struct sockaddr_in6, "sockaddr_in6", sin6_family);
    MEMBER(struct sockaddr_in6, "sockaddr_in6", sin6_port);
    MEMBER(struct sockaddr_in6, "sockaddr_in6", sin6_flowinfo);
    MEMBER(struct sockaddr_in6, "sockaddr_in6", sin6_addr);
    MEMBER(struct sockaddr_in6, "sockaddr_in6", sin6_scope_id);

    STRUCT(struct pollfd, "pollfd");
    MEMBER(struct pollfd, "pollfd", fd);
    MEMBER(struct pollfd, "pollfd", events);
    MEMBER(struct pollfd, "pollfd", revents);

    STRUCT(struct linger, "linger");
    MEMBER(struct linger, "linger", l_onoff);
    MEMBER(struct linger, "linger", l_linger);

    STRUCT(struct sockaddr_storage, "sockaddr_storage");
    MEMBER(struct sockaddr_storage, "sockaddr_storage", ss_family);
}

static void constants(void) {
    /* system call numbers (IoUringSyscalls) */
    CONST_AS(NR_IO_URING_SETUP, __NR_io_uring_setup);
    CONST_AS(NR_IO_URING_ENTER, __NR_io_uring_enter);
    CONST_AS(NR_IO_URING_REGISTER, __NR_io_uring_register);

    /* mmap and sysconf (Mappings); clocks and dlopen (Libc) */
    CONST_AS(SC_PAGESIZE, _SC_PAGESIZE);
    CONST(CLOCK_MONOTONIC);
    CONST(RTLD_LAZY);
    CONST(RTLD_NOLOAD);
    CONST(PROT_READ);
    CONST(PROT_WRITE);
    CONST(MAP_SHARED);
    CONST(MAP_POPULATE);
    CONST(MAP_PRIVATE);
    CONST(MAP_ANONYMOUS);
    CONST_AS(MAP_FAILED, (long) MAP_FAILED);

    /* io_uring_getevents_arg.sigmask_sz as liburing passes it */
    CONST_AS(KERNEL_SIGSET_BYTES, _NSIG / 8);

    /* IoUringConstants */
    CONST(IORING_OP_NOP);
    CONST(IORING_OP_READV);
    CONST(IORING_OP_WRITEV);
    CONST(IORING_OP_FSYNC);
    CONST(IORING_OP_READ_FIXED);
    CONST(IORING_OP_WRITE_FIXED);
    CONST(IORING_OP_POLL_ADD);
    CONST(IORING_OP_POLL_REMOVE);
    CONST(IORING_OP_SENDMSG);
    CONST(IORING_OP_RECVMSG);
    CONST(IORING_OP_TIMEOUT);
    CONST(IORING_OP_TIMEOUT_REMOVE);
    CONST(IORING_OP_ACCEPT);
    CONST(IORING_OP_ASYNC_CANCEL);
    CONST(IORING_OP_LINK_TIMEOUT);
    CONST(IORING_OP_CONNECT);
    CONST(IORING_OP_CLOSE);
    CONST(IORING_OP_READ);
    CONST(IORING_OP_WRITE);
    CONST(IORING_OP_SEND);
    CONST(IORING_OP_RECV);
    CONST(IORING_OP_PROVIDE_BUFFERS);
    CONST(IORING_OP_REMOVE_BUFFERS);
    CONST(IORING_OP_SHUTDOWN);
    CONST(IORING_OP_MSG_RING);
    CONST(IORING_OP_SOCKET);
    CONST(IORING_OP_URING_CMD);
    CONST(IORING_OP_SEND_ZC);
    CONST(IORING_OP_SENDMSG_ZC);
    CONST(IORING_OP_LAST);

    CONST(IORING_SETUP_IOPOLL);
    CONST(IORING_SETUP_SQPOLL);
    CONST(IORING_SETUP_SQ_AFF);
    CONST(IORING_SETUP_CQSIZE);
    CONST(IORING_SETUP_CLAMP);
    CONST(IORING_SETUP_ATTACH_WQ);
    CONST(IORING_SETUP_R_DISABLED);
    CONST(IORING_SETUP_SUBMIT_ALL);
    CONST(IORING_SETUP_COOP_TASKRUN);
    CONST(IORING_SETUP_TASKRUN_FLAG);
    CONST(IORING_SETUP_SQE128);
    CONST(IORING_SETUP_CQE32);
    CONST(IORING_SETUP_SINGLE_ISSUER);
    CONST(IORING_SETUP_DEFER_TASKRUN);

    CONST(IORING_ENTER_GETEVENTS);
    CONST(IORING_ENTER_SQ_WAKEUP);
    CONST(IORING_ENTER_SQ_WAIT);
    CONST(IORING_ENTER_EXT_ARG);
    CONST(IORING_ENTER_REGISTERED_RING);

    CONST(IORING_REGISTER_BUFFERS);
    CONST(IORING_UNREGISTER_BUFFERS);
    CONST(IORING_REGISTER_FILES);
    CONST(IORING_UNREGISTER_FILES);
    CONST(IORING_REGISTER_EVENTFD);
    CONST(IORING_UNREGISTER_EVENTFD);
    CONST(IORING_REGISTER_PROBE);
    CONST(IORING_REGISTER_ENABLE_RINGS);
    CONST(IORING_REGISTER_BUFFERS2);
    CONST(IORING_REGISTER_BUFFERS_UPDATE);
    CONST(IORING_RSRC_REGISTER_SPARSE);
    CONST(IORING_REGISTER_RING_FDS);
    CONST(IORING_UNREGISTER_RING_FDS);

    CONST(IOSQE_FIXED_FILE);
    CONST(IOSQE_IO_DRAIN);
    CONST(IOSQE_IO_LINK);
    CONST(IOSQE_IO_HARDLINK);
    CONST(IOSQE_ASYNC);
    CONST(IOSQE_BUFFER_SELECT);
    CONST(IOSQE_CQE_SKIP_SUCCESS);

    CONST(IORING_RECVSEND_POLL_FIRST);
    CONST(IORING_RECV_MULTISHOT);
    CONST(IORING_RECVSEND_FIXED_BUF);
    CONST(IORING_SEND_ZC_REPORT_USAGE);
    CONST_AS(IORING_NOTIF_USAGE_ZC_COPIED, (int) IORING_NOTIF_USAGE_ZC_COPIED);
    CONST(IORING_ACCEPT_MULTISHOT);

    CONST(IORING_TIMEOUT_ABS);
    CONST(IORING_TIMEOUT_UPDATE);
    CONST(IORING_TIMEOUT_BOOTTIME);
    CONST(IORING_TIMEOUT_REALTIME);
    CONST(IORING_LINK_TIMEOUT_UPDATE);
    CONST(IORING_TIMEOUT_ETIME_SUCCESS);

    CONST(IORING_ASYNC_CANCEL_ALL);
    CONST(IORING_ASYNC_CANCEL_FD);
    CONST(IORING_ASYNC_CANCEL_ANY);
    CONST(IORING_ASYNC_CANCEL_FD_FIXED);

    CONST(IORING_POLL_ADD_MULTI);
    CONST_AS(IORING_FILE_INDEX_ALLOC, (int) IORING_FILE_INDEX_ALLOC);

    CONST(IORING_CQE_F_BUFFER);
    CONST(IORING_CQE_F_MORE);
    CONST(IORING_CQE_F_SOCK_NONEMPTY);
    CONST(IORING_CQE_F_NOTIF);
    CONST(IORING_CQE_BUFFER_SHIFT);

    CONST(IORING_OFF_SQ_RING);
    CONST(IORING_OFF_CQ_RING);
    CONST(IORING_OFF_SQES);

    CONST(IORING_SQ_NEED_WAKEUP);
    CONST(IORING_SQ_CQ_OVERFLOW);
    CONST(IORING_SQ_TASKRUN);
    CONST(IORING_CQ_EVENTFD_DISABLED);

    CONST(IORING_FEAT_SINGLE_MMAP);
    CONST(IORING_FEAT_NODROP);
    CONST(IORING_FEAT_SUBMIT_STABLE);
    CONST(IORING_FEAT_RW_CUR_POS);
    CONST(IORING_FEAT_CUR_PERSONALITY);
    CONST(IORING_FEAT_FAST_POLL);
    CONST(IORING_FEAT_POLL_32BITS);
    CONST(IORING_FEAT_SQPOLL_NONFIXED);
    CONST(IORING_FEAT_EXT_ARG);
    CONST(IORING_FEAT_NATIVE_WORKERS);
    CONST(IORING_FEAT_RSRC_TAGS);
    CONST(IORING_FEAT_CQE_SKIP);
    CONST(IORING_FEAT_LINKED_FILE);

    CONST(IO_URING_OP_SUPPORTED);

    /* Errno */
    CONST(EPERM);
    CONST(ENOENT);
    CONST(ESRCH);
    CONST(EINTR);
    CONST(EIO);
    CONST(EACCES);
    CONST(ENODEV);
    CONST(ENETUNREACH);
    CONST(EHOSTUNREACH);
    CONST(EBADF);
    CONST(EAGAIN);
    CONST(ENOMEM);
    CONST(EFAULT);
    CONST(EBUSY);
    CONST(EEXIST);
    CONST(EINVAL);
    CONST(ENFILE);
    CONST(EMFILE);
    CONST(EPIPE);
    CONST(ENOSYS);
    CONST(ETIME);
    CONST(EAFNOSUPPORT);
    CONST(EADDRINUSE);
    CONST(EADDRNOTAVAIL);
    CONST(EOPNOTSUPP);
    CONST(ECONNABORTED);
    CONST(ECONNRESET);
    CONST(ENOBUFS);
    CONST(ENOTCONN);
    CONST(ETIMEDOUT);
    CONST(ECONNREFUSED);
    CONST(EALREADY);
    CONST(EINPROGRESS);
    CONST(ECANCELED);

    /* LibcSockets */
    CONST(AF_INET);
    CONST(AF_INET6);
    CONST(SOCK_STREAM);
    CONST(SOCK_NONBLOCK);
    CONST(SOCK_CLOEXEC);
    CONST(IPPROTO_TCP);
    CONST(IPPROTO_IPV6);
    CONST(SOL_SOCKET);
    CONST(SO_REUSEADDR);
    CONST(SO_ERROR);
    CONST(SO_SNDBUF);
    CONST(SO_RCVBUF);
    CONST(SO_KEEPALIVE);
    CONST(SO_LINGER);
    CONST(SO_REUSEPORT);
    CONST(TCP_NODELAY);
    CONST(TCP_KEEPIDLE);
    CONST(TCP_KEEPINTVL);
    CONST(TCP_KEEPCNT);
    CONST(TCP_USER_TIMEOUT);
    CONST(IPV6_V6ONLY);
    CONST(SHUT_RD);
    CONST(SHUT_WR);
    CONST(SHUT_RDWR);
    CONST(MSG_DONTWAIT);
    CONST(MSG_WAITALL);
    CONST(MSG_NOSIGNAL);
    CONST(O_NONBLOCK);
    CONST(F_GETFL);
    CONST(F_SETFL);
    CONST(EFD_SEMAPHORE);
    CONST(EFD_NONBLOCK);
    CONST(EFD_CLOEXEC);
    CONST(POLLIN);
    CONST(POLLOUT);
    CONST(POLLERR);
    CONST(POLLHUP);
    CONST(POLLNVAL);
    CONST(F_SETFD);
    CONST(FD_CLOEXEC);

    /* Epoll */
    CONST(EPOLLIN);
    CONST(EPOLL_CTL_ADD);
    CONST(EPOLL_CTL_DEL);
    CONST(EPOLL_CLOEXEC);
}

int main(void) {
    layouts();
    constants();
    return 0;
}
