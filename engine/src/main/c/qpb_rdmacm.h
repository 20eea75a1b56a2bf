/*
 * qpb_rdmacm.h — librdmacm, loaded at run time like libibverbs (qpb_ibv.h),
 * for runs with "rdma_cm": true: connection set-up through the RDMA
 * connection manager (what iWARP devices require), RC QPs only.
 *
 * The run then uses librdmacm's own device contexts (rdma_get_devices), so
 * that the QPs rdma_create_qp makes on a connection's cm id share them with
 * the run's PD, CQs and MRs; the CM moves the QPs to RTR and RTS.
 */
#ifndef QPB_RDMACM_H
#define QPB_RDMACM_H

#include <rdma/rdma_cma.h>

#include "qpb_internal.h"

typedef struct qpb_rdmacm {
    struct rdma_event_channel *(*create_event_channel)(void);
    void (*destroy_event_channel)(struct rdma_event_channel *channel);
    int (*create_id)(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context,
                     enum rdma_port_space ps);
    int (*destroy_id)(struct rdma_cm_id *id);
    int (*bind_addr)(struct rdma_cm_id *id, struct sockaddr *addr);
    int (*resolve_addr)(struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst, int timeout_ms);
    int (*resolve_route)(struct rdma_cm_id *id, int timeout_ms);
    int (*create_qp)(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
    int (*connect)(struct rdma_cm_id *id, struct rdma_conn_param *param);
    int (*listen)(struct rdma_cm_id *id, int backlog);
    int (*accept)(struct rdma_cm_id *id, struct rdma_conn_param *param);
    int (*get_cm_event)(struct rdma_event_channel *channel, struct rdma_cm_event **event);
    int (*ack_cm_event)(struct rdma_cm_event *event);
    __be16 (*get_src_port)(struct rdma_cm_id *id);
    struct ibv_context **(*get_devices)(int *num_devices);
    void (*free_devices)(struct ibv_context **list);
    const char *(*event_str)(enum rdma_cm_event_type event);
    int (*create_qp_ex)(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr); /* NULL where librdmacm lacks it */
} qpb_rdmacm;

/* The table, loading librdmacm.so.1 on first use; NULL with the reason in err. */
const qpb_rdmacm *qpb_rdmacm_get(char *err, uint32_t err_len);

#endif /* QPB_RDMACM_H */
