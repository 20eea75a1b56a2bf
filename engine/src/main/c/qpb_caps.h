/*
 * qpb_caps.h — what an RDMA device and its ports can do, as plain data, and
 * the check of a run spec against it.
 *
 * qpb_device.c fills qpb_dev_caps from a real device (ibv_query_device,
 * ibv_query_port, the GID table, probes for max_inline_data and thread
 * domains); tests fill it from fixtures. qpb_plan decides everything a run
 * needs from the device (port, GID, path MTU, queue and CQ sizes, registered
 * memory) and refuses, before any verbs object exists, every requested value
 * the device cannot take — each refusal names the limit and the device:
 * "inline_size 512 B > max_inline_data 400 B on rxe0".
 */
#ifndef QPB_CAPS_H
#define QPB_CAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "qpb_internal.h"

#define QPB_CAPS_MAX_PORTS 4
#define QPB_CAPS_MAX_GIDS 16

/* IBV_DEVICE_XRC in ibv_device_attr.device_cap_flags (rdma-core verbs.h). */
#define QPB_DEVICE_XRC (1ull << 20)

/* ibv_device_attr.atomic_cap, in rdma-core's order (IBV_ATOMIC_NONE, _HCA, _GLOB). */
typedef enum qpb_atomic_cap { QPB_ATOMIC_NONE, QPB_ATOMIC_HCA, QPB_ATOMIC_GLOB } qpb_atomic_cap;
extern const char *const QPB_ATOMIC_CAP_NAMES[];

/* ibv_odp_caps (rdma-core verbs.h): general_caps IBV_ODP_SUPPORT and _IMPLICIT, and per transport the ops
 * that may touch on-demand memory (IBV_ODP_SUPPORT_SEND .. _SRQ_RECV, bits 0..5: QPB_ODP_OP_NAMES). */
#define QPB_ODP_SUPPORT 1u
#define QPB_ODP_IMPLICIT 2u
#define QPB_ODP_SEND 1u
#define QPB_ODP_RECV 2u
#define QPB_ODP_WRITE 4u
#define QPB_ODP_READ 8u
#define QPB_ODP_ATOMIC 16u
#define QPB_ODP_SRQ_RECV 32u
extern const char *const QPB_ODP_OP_NAMES[]; /* "send", "recv", "write", "read", "atomic", "srq_recv" */

typedef enum qpb_gid_type { QPB_GID_IB, QPB_GID_ROCE_V1, QPB_GID_ROCE_V2 } qpb_gid_type;

typedef struct qpb_gid_caps {
    uint32_t index;
    uint8_t raw[16];
    qpb_gid_type type;
    bool ipv4; /* an IPv4-mapped address (::ffff:a.b.c.d) */
} qpb_gid_caps;

typedef struct qpb_port_caps {
    uint32_t port;
    char state[16];     /* "ACTIVE", "DOWN", ... */
    bool active;
    bool ethernet;      /* link layer Ethernet (RoCE); else InfiniBand */
    uint32_t max_mtu;   /* bytes */
    uint32_t active_mtu;
    uint32_t lid;
    uint32_t n_gids;    /* non-zero entries of the GID table, lowest indexes first */
    qpb_gid_caps gids[QPB_CAPS_MAX_GIDS];
} qpb_port_caps;

typedef struct qpb_dev_caps {
    char name[64];
    char fw_ver[64];
    uint64_t node_guid;
    uint32_t vendor_id, vendor_part_id, hw_ver;
    uint64_t device_cap_flags;
    uint64_t max_mr_size;
    uint32_t max_qp, max_qp_wr, max_sge, max_cq, max_cqe, max_mr, max_pd;
    uint32_t max_srq, max_srq_wr, max_qp_rd_atom, max_qp_init_rd_atom, max_ah;
    qpb_atomic_cap atomic_cap; /* ibv_device_attr.atomic_cap */
    uint32_t max_inline_data;  /* the most an RC QP accepted (probed) */
    bool thread_domain;        /* ibv_alloc_td and a parent domain work */
    char thread_domain_error[128];
    uint32_t odp_general;      /* odp_caps.general_caps (0: no ODP, or no ibv_query_device_ex) */
    uint32_t odp_ops[4];       /* odp_caps per transport, by qpb_transport (rc, uc, ud; xrc_odp_caps) */
    bool iwarp;                /* ibv_device.transport_type IBV_TRANSPORT_IWARP (siw, irdma in iWARP mode, cxgb4): RC
                                  only, connected through rdma_cm (qpb_check.c's plan_iwarp) */
    bool wr_api;               /* ibv_create_qp_ex with send_ops_flags and ibv_qp_to_qp_ex work (probed) */
    char wr_api_error[128];
    uint32_t phys_port_cnt;
    uint32_t n_ports;
    qpb_port_caps ports[QPB_CAPS_MAX_PORTS];
    uint64_t memlock_limit;    /* RLIMIT_MEMLOCK in bytes, UINT64_MAX = unlimited */
} qpb_dev_caps;

/* Everything a run decides from its device. */
typedef struct qpb_plan {
    const qpb_port_caps *port;
    int32_t gid_index;        /* -1: no GRH (InfiniBand, addressed by LID) */
    uint32_t path_mtu;        /* bytes */
    uint32_t sides;           /* 2 in loopback (both ends in this process) and bidirectional runs, else 1 */
    uint32_t qps;             /* QPs of one side: threads * qps_per_thread (qp_sharing shared: qps_per_thread) */
    uint32_t recv_per_qp;     /* receives kept posted per QP (no SRQ) */
    uint32_t srq_depth;       /* receives kept posted per SRQ */
    uint32_t n_srq;           /* SRQs of the receiving side */
    uint32_t send_cqe;        /* entries of one sending-side CQ */
    uint32_t recv_cqe;        /* entries of one receiving-side CQ */
    uint32_t n_send_cq, n_recv_cq;
    uint32_t rd_atomic;       /* RDMA reads or atomics in flight per QP (initiator and target) */
    uint64_t slot;            /* bytes of one QP's buffer slot */
    uint64_t registered;      /* bytes registered by this process */
    uint32_t n_mr;
    uint64_t huge_pages;      /* buffers hugepages: 2 MiB pages the buffers take (each rounded up) */
    bool post_wr;             /* QPs that send are made with ibv_create_qp_ex and post through ibv_wr_* */
} qpb_plan;

#define QPB_HUGE_PAGE (2ull << 20)

/* Fills plan for spec on caps (port spec->ib_port). QPB_OK, or
 * QPB_EUNSUPPORTED with every limit the spec exceeds in err ("; "-joined). */
qpb_status qpb_plan_run(const qpb_spec *spec, const qpb_dev_caps *caps, qpb_plan *plan, char *err, uint32_t err_len);

/* Whether perftest posts through ibv_wr_* on this device by default (its list of devices: the mlx5
 * family, EFA, HNS; every other device gets --use_old_post_send). */
bool qpb_wr_by_default(const qpb_dev_caps *caps);

/* The GID index the engine picks on a port when the spec does not: the first
 * RoCE v2 GID with an IPv4 address, else the first RoCE v2, else the first
 * RoCE v1; -1 on InfiniBand (LID addressing) or when the port has no GID. */
int32_t qpb_pick_gid(const qpb_port_caps *port);

#endif /* QPB_CAPS_H */
