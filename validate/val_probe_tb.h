/* val_probe_tb: `tfsim probe tigerbeetle`: create_transfers latency against
 * batch size, with TigerBeetle's C client (tb_client, 0.16 API as of
 * 0.16.29 and later: tb_client_t is a caller-owned struct, the completion
 * callback receives the cluster timestamp).
 *
 * The client code is compiled only when TFSIM_HAVE_TB is defined, i.e.
 * when the build is given the client: `make TB_CLIENT_DIR=/path` with
 * tb_client.h in /path or /path/include and libtb_client in /path or
 * /path/lib.  Without it val_probe_tb_run() only explains how to enable it.
 *
 * What it measures: for each batch size B (the opts levels; the samples
 * CSV puts B in its concurrency column) two phases, one request in flight
 * at a time as in TigerFans' LiveBatcher:
 *   tigerbeetle.create_transfers  requests of B pending transfers (flag
 *                                 pending, amount 1) between two accounts
 *                                 the probe creates
 *   tigerbeetle.post_pending      requests of B post-pending transfers
 *                                 that post the ones just created
 * Invariants: account and transfer ids start at a base derived from the
 * clock, so runs do not collide; nothing is deleted (TigerBeetle keeps
 * everything); each request is bounded by opts->timeout.
 * Cost: one request of B * 128 bytes at a time; memory O(B).
 */
#ifndef VAL_PROBE_TB_H
#define VAL_PROBE_TB_H

#include <stdint.h>

#include "sim/sim_err.h"
#include "validate/val_probe.h"

/* Largest batch: a 1 MiB message less its header, 128 bytes per transfer. */
#define VAL_TB_BATCH_MAX 8189u

typedef struct val_tb_conn {
    const char *address;   /* replica addresses, e.g. "3000" or "127.0.0.1:3000" */
    uint64_t cluster;      /* cluster id (low 64 bits) */
} val_tb_conn;

/* 1 if this build has the TigerBeetle client, else 0. */
extern const int val_probe_tb_enabled;

extern const char *const val_probe_tb_ops[];
extern const size_t val_probe_tb_nops;

/* Run the probe; results into res (borrowed).  Without the client:
 * SIM_EFAIL with a message saying how to build with it.  Otherwise SIM_OK,
 * or SIM_EFAIL naming the cluster address and what failed (client init,
 * a rejected transfer, no reply within o->timeout). */
int val_probe_tb_run(const val_tb_conn *c, const val_probe_opts *o, val_probe_result *res,
                     sim_err *err);

#endif
