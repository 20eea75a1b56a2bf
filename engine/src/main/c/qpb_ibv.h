/*
 * qpb_ibv.h — libibverbs, loaded at run time.
 *
 * The engine has no link-time dependency on rdma-core: libqpbench.so loads
 * on any host (the tcp provider needs nothing), and the verbs provider says
 * exactly why it cannot run where libibverbs.so.1 is missing. Exported verbs
 * are called through the table below; the header's inline verbs that only go
 * through the device's ops (ibv_post_send, ibv_poll_cq, ibv_open_xrcd, ...)
 * are called directly. The Makefile checks that libqpbench.so references no
 * ibv_* symbol, so an inline that falls back to an exported verb cannot creep
 * in unnoticed.
 */
#ifndef QPB_IBV_H
#define QPB_IBV_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

typedef struct qpb_ibv {
    struct ibv_device **(*get_device_list)(int *num_devices);
    void (*free_device_list)(struct ibv_device **list);
    const char *(*get_device_name)(struct ibv_device *device);
    __be64 (*get_device_guid)(struct ibv_device *device);
    struct ibv_context *(*open_device)(struct ibv_device *device);
    int (*close_device)(struct ibv_context *context);
    int (*query_device)(struct ibv_context *context, struct ibv_device_attr *attr);
    int (*query_port_compat)(struct ibv_context *context, uint8_t port, struct _compat_ibv_port_attr *attr);
    int (*query_gid)(struct ibv_context *context, uint8_t port, int index, union ibv_gid *gid);
    /* the valid GIDs of every port in one call; NULL before rdma-core 32 (then query_gid per index) */
    ssize_t (*query_gid_table)(struct ibv_context *context, struct ibv_gid_entry *entries, size_t max_entries,
                               uint32_t flags, size_t entry_size);
    struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
    int (*dealloc_pd)(struct ibv_pd *pd);
    struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access);
    /* takes optional access flags (IBV_ACCESS_RELAXED_ORDERING), dropping them where the kernel does not: what
     * the header's ibv_reg_mr macro calls for such flags; NULL before rdma-core 28 */
    struct ibv_mr *(*reg_mr_iova2)(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access);
    int (*dereg_mr)(struct ibv_mr *mr);
    struct ibv_comp_channel *(*create_comp_channel)(struct ibv_context *context);
    int (*destroy_comp_channel)(struct ibv_comp_channel *channel);
    struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe, void *cq_context,
                                struct ibv_comp_channel *channel, int comp_vector);
    int (*destroy_cq)(struct ibv_cq *cq);
    int (*get_cq_event)(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context);
    void (*ack_cq_events)(struct ibv_cq *cq, unsigned int nevents);
    struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
    int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
    int (*destroy_qp)(struct ibv_qp *qp);
    struct ibv_srq *(*create_srq)(struct ibv_pd *pd, struct ibv_srq_init_attr *attr);
    int (*destroy_srq)(struct ibv_srq *srq);
    struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
    int (*destroy_ah)(struct ibv_ah *ah);
    const char *(*wc_status_str)(enum ibv_wc_status status);
    /* a QP made with send_ops_flags as its ibv_qp_ex (NULL otherwise); NULL before rdma-core 25 (no ibv_wr_*) */
    struct ibv_qp_ex *(*qp_to_qp_ex)(struct ibv_qp *qp);
} qpb_ibv;

/* The table, loading libibverbs.so.1 on first use (thread-safe); NULL when it
 * cannot be loaded, and then why is in err. */
const qpb_ibv *qpb_ibv_get(char *err, uint32_t err_len);

/* ibv_query_port without the header's fallback to the exported symbol. */
int qpb_ibv_query_port(const qpb_ibv *v, struct ibv_context *context, uint8_t port, struct ibv_port_attr *attr);

/* ibv_query_device_ex without the header's inline (its fallback is the exported ibv_query_device, called here
 * through the table): 0 with attr, zeroed past orig_attr where the extended query fails; else what
 * ibv_query_device returned. */
int qpb_ibv_query_device_ex(const qpb_ibv *v, struct ibv_context *context, struct ibv_device_attr_ex *attr);

/* ibv_create_qp_ex / ibv_create_srq_ex for the extended attributes (XRC,
 * parent domains): straight to the device's op, errno EOPNOTSUPP without it. */
struct ibv_qp *qpb_ibv_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr);
struct ibv_srq *qpb_ibv_create_srq_ex(struct ibv_context *context, struct ibv_srq_init_attr_ex *attr);

const char *qpb_ibv_mtu_name(enum ibv_mtu mtu); /* "1024" */
uint32_t qpb_ibv_mtu_bytes(enum ibv_mtu mtu);   /* 0 when unknown */
const char *qpb_ibv_port_state_name(enum ibv_port_state state);

#endif /* QPB_IBV_H */
