/*
 * qpb_device.h — opening an RDMA device and describing it (qpb_device.c).
 */
#ifndef QPB_DEVICE_H
#define QPB_DEVICE_H

#include "qpb_caps.h"
#include "qpb_ibv.h"
#include "qpb_json.h"

/* Opens device want ("" = the first whose port is ACTIVE, else the first)
 * and fills caps. QPB_EUNSUPPORTED when there is no such device. */
qpb_status qpb_device_open(const qpb_ibv *v, const char *want, uint32_t port, struct ibv_context **ctx,
                           qpb_dev_caps *caps, char *err, uint32_t err_len);

/* Limits of an open device (queries plus the cached probes). */
void qpb_device_caps(const qpb_ibv *v, struct ibv_context *ctx, const char *name, qpb_dev_caps *caps);

/* One device of the inventory JSON (see qpb_devices in qpb.h). */
void qpb_device_json(qpb_jw *w, const qpb_dev_caps *caps);

#endif /* QPB_DEVICE_H */
