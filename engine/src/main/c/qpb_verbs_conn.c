/*
 * qpb_verbs_conn.c — connecting the two sides of a verbs run: a server's
 * listeners and its endpoint, the peer's blob applied, and every QP brought
 * to RTR and RTS (or connected through rdma_cm, qpb_verbs_cm.c). What travels
 * between the sides is in qpb_verbs_oob.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qpb_verbs.h"

#define MAX_RD 255u

/* ---- endpoint ---- */

qpb_status qpb_verbs_endpoint(qpb_session *s, char *buf, uint32_t buf_len)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    if (sp->role == QPB_ROLE_SERVER && vb->listen_fd < 0) {
        qpb_status st = qpb_verbs_ctl_listen(s);
        if (st == QPB_OK && sp->rdma_cm)
            st = qpb_verbs_cm_listen(s, sp->bind_given ? sp->bind : "0.0.0.0");
        if (st != QPB_OK)
            return st;
    }
    /* bidirectional over rdma_cm: the server connects the reverse direction's QPs to the client's own listener (its
     * port in the client's blob, its address the one the client's connections came from). Every address: a client's
     * bind is no address of the RDMA network (qpbench gives it 127.0.0.1). */
    if (sp->role == QPB_ROLE_CLIENT && sp->rdma_cm && sp->bidirectional && vb->cm_listen == NULL) {
        qpb_status st = qpb_verbs_cm_listen(s, "0.0.0.0");
        if (st != QPB_OK)
            return st;
    }
    return qpb_verbs_blob_write(s, buf, buf_len);
}

/* ---- QP transitions ---- */

static enum ibv_mtu mtu_enum(uint32_t bytes)
{
    return bytes >= 4096 ? IBV_MTU_4096 : bytes >= 2048 ? IBV_MTU_2048 : bytes >= 1024 ? IBV_MTU_1024
         : bytes >= 512 ? IBV_MTU_512 : IBV_MTU_256;
}

static qpb_status modify(qpb_session *s, qpb_vconn *c, struct ibv_qp_attr *a, int mask, const char *to)
{
    if (s->verbs->v->modify_qp(c->qp, a, mask) == 0)
        return QPB_OK;
    int e = errno;
    return qpb_fail(s, QPB_ESYS, "ibv_modify_qp (QP %u of thread %u to %s, remote QPN 0x%06x) on %s: %s (errno %d)",
                    c->index % s->spec.qps_per_thread, c->thread, to, c->remote_qpn, s->verbs->caps.name,
                    strerror(e), e);
}

static qpb_status bring_up(qpb_session *s, qpb_vside *side, qpb_vconn *c, const struct ibv_ah_attr *ah, uint32_t mtu)
{
    const qpb_spec *sp = &s->spec;
    bool acked = sp->transport == QPB_TR_RC || sp->transport == QPB_TR_XRC;
    uint32_t rd = s->verbs->plan.rd_atomic ? s->verbs->plan.rd_atomic : 1;
    struct ibv_qp_attr a = {.qp_state = IBV_QPS_RTR};
    int mask = IBV_QP_STATE;
    if (sp->transport != QPB_TR_UD) {
        a.path_mtu = mtu_enum(mtu);
        a.dest_qp_num = c->remote_qpn;
        a.rq_psn = c->remote_psn;
        a.ah_attr = *ah;
        mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
        if (acked) {
            a.max_dest_rd_atomic = (uint8_t)(rd < MAX_RD ? rd : MAX_RD);
            a.min_rnr_timer = 12;
            mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
        }
    }
    qpb_status st = modify(s, c, &a, mask, "RTR");
    if (st != QPB_OK || (sp->transport == QPB_TR_XRC && !side->sending))
        return st; /* an XRC target QP only receives */
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = c->psn;
    mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
    if (acked) {
        a.timeout = 14;
        a.retry_cnt = 7;
        a.rnr_retry = 7;
        a.max_rd_atomic = (uint8_t)(rd < MAX_RD ? rd : MAX_RD);
        mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
    }
    return modify(s, c, &a, mask, "RTS");
}

static void ah_for(qpb_session *s, const uint8_t *gid, uint32_t lid, struct ibv_ah_attr *ah)
{
    memset(ah, 0, sizeof(*ah));
    ah->dlid = (uint16_t)lid;
    ah->port_num = (uint8_t)s->spec.ib_port;
    if (s->verbs->plan.gid_index >= 0) {
        ah->is_global = 1;
        memcpy(ah->grh.dgid.raw, gid, 16);
        ah->grh.sgid_index = (uint8_t)s->verbs->plan.gid_index;
        ah->grh.hop_limit = 64;
    }
}

static qpb_status bring_up_side(qpb_session *s, qpb_vside *side, const uint8_t *peer_gid, uint32_t peer_lid,
                                uint32_t peer_mtu)
{
    qpb_verbs *vb = s->verbs;
    struct ibv_ah_attr ah;
    ah_for(s, peer_gid, peer_lid, &ah);
    uint32_t mtu = peer_mtu < vb->plan.path_mtu ? peer_mtu : vb->plan.path_mtu;
    bool sends = side->sending || s->spec.mode == QPB_MODE_LATENCY; /* a latency run's receiving side answers */
    if (s->spec.transport == QPB_TR_UD && sends && (side->ah = vb->v->create_ah(vb->pd, &ah)) == NULL) {
        int e = errno;
        return qpb_fail(s, QPB_ESYS, "ibv_create_ah (to the peer's %s) on %s: %s (errno %d)",
                        vb->plan.gid_index >= 0 ? "GID" : "LID", vb->caps.name, strerror(e), e);
    }
    for (uint32_t i = 0; i < vb->plan.qps; i++) {
        qpb_status st = bring_up(s, side, &side->conns[i], &ah, mtu);
        if (st != QPB_OK)
            return st;
    }
    return QPB_OK;
}

qpb_status qpb_verbs_connect_loopback(qpb_session *s)
{
    qpb_verbs *vb = s->verbs;
    const qpb_spec *sp = &s->spec;
    uint64_t *addr = calloc(vb->plan.qps, 8), *rkey = calloc(vb->plan.qps, 8);
    if (addr == NULL || rkey == NULL) {
        free(addr), free(rkey);
        return qpb_fail(s, QPB_ESYS, "out of memory connecting %u QPs", vb->plan.qps);
    }
    uint64_t in_slot = 0;
    for (int pass = 0; pass < 2; pass++) { /* the receiving side's regions to the senders, and back (latency writes) */
        qpb_vside *from = pass == 0 ? vb->tx : vb->rx, *to = pass == 0 ? vb->rx : vb->tx;
        qpb_verbs_regions(s, to, addr, rkey);
        for (uint32_t i = 0; i < vb->plan.qps; i++) {
            qpb_vconn *c = &from->conns[i], *peer = &to->conns[i];
            uint32_t region = sp->mr_mode == QPB_MR_PER_QP ? i : peer->thread;
            in_slot = sp->mr_mode == QPB_MR_PER_QP ? 0 : (uint64_t)(i % sp->qps_per_thread) * vb->plan.slot;
            c->remote_qpn = peer->qpn, c->remote_psn = peer->psn;
            c->remote_srqn = to->threads[peer->thread].srqn;
            c->remote_addr = addr[region] + in_slot;
            c->rkey = (uint32_t)rkey[region];
        }
    }
    free(addr), free(rkey);
    if (sp->rdma_cm) {
        /* the CM routes by address: connect to this host's own address on the RDMA network */
        char self[64];
        if (!qpb_verbs_roce_ipv4(s, self, sizeof self))
            snprintf(self, sizeof self, "%s", sp->bind);
        qpb_status st = qpb_verbs_cm_listen(s, self);
        return st != QPB_OK ? st : qpb_verbs_cm_connect(s, self, vb->cm_port);
    }
    qpb_status st = bring_up_side(s, vb->rx, vb->gid.raw, vb->lid, vb->plan.path_mtu);
    return st != QPB_OK ? st : bring_up_side(s, vb->tx, vb->gid.raw, vb->lid, vb->plan.path_mtu);
}

qpb_status qpb_verbs_connect_peer(qpb_session *s, const char *peer_json)
{
    qpb_vpeer peer = {0};
    qpb_status st = qpb_verbs_blob_read(s, peer_json, &peer);
    bool server = s->spec.role == QPB_ROLE_SERVER;
    if (st == QPB_OK && !s->spec.rdma_cm) {
        st = bring_up_side(s, qpb_verbs_own_side(s), peer.gid, peer.lid, peer.mtu);
        if (st == QPB_OK && s->spec.bidirectional) /* the reverse direction's QPs */
            st = bring_up_side(s, qpb_verbs_reverse_side(s), peer.gid, peer.lid, peer.mtu);
    } else if (st == QPB_OK) {
        st = server ? qpb_verbs_cm_accept_all(s) : qpb_verbs_cm_connect(s, peer.host, peer.cm_port);
        if (st == QPB_OK && s->spec.bidirectional) /* then the reverse direction: the server connects to the client */
            st = server ? qpb_verbs_cm_connect_back(s, peer.cm_port) : qpb_verbs_cm_accept_all(s);
    }
    if (st != QPB_OK)
        return st;
    return server ? qpb_verbs_ctl_accept(s) : qpb_verbs_ctl_connect(s, peer.host, peer.port);
}
