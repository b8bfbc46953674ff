#include "validate/val_probe_tb.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>

const char *const val_probe_tb_ops[] = {"create_transfers", "post_pending"};
const size_t val_probe_tb_nops = 2;

#ifndef TFSIM_HAVE_TB

const int val_probe_tb_enabled = 0;

int val_probe_tb_run(const val_tb_conn *c, const val_probe_opts *o, val_probe_result *res,
                     sim_err *err)
{
    (void)c;
    (void)o;
    (void)res;
    return sim_err_set(err, SIM_EFAIL,
                       "tigerbeetle: this build has no TigerBeetle client. TigerBeetle is not "
                       "packaged for Debian; to enable the probe, install its C client (tb_client.h "
                       "and libtb_client, 0.16.29 or later) and rebuild with "
                       "`make TB_CLIENT_DIR=/path/to/client` (header in DIR or DIR/include, "
                       "library in DIR or DIR/lib)");
}

#else /* TFSIM_HAVE_TB */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tb_client.h>

const int val_probe_tb_enabled = 1;

/* One request in flight: the caller waits on cv until the client's thread
 * has completed the packet. */
typedef struct tb_wait {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    uint8_t status;
    uint32_t reply_size;
    uint32_t first_index, first_result;  /* first failure of a create_* reply */
} tb_wait;

/* Runs on the tb_client thread. */
static void on_completion(uintptr_t ctx, tb_packet_t *packet, uint64_t timestamp, const uint8_t *data,
                          uint32_t size)
{
    (void)ctx;
    (void)timestamp;
    tb_wait *w = packet->user_data;
    pthread_mutex_lock(&w->mu);
    w->status = packet->status;
    w->reply_size = size;
    if (data && size >= sizeof(tb_create_transfers_result_t)) {
        tb_create_transfers_result_t r;
        memcpy(&r, data, sizeof r);
        w->first_index = r.index;
        w->first_result = r.result;
    }
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

typedef struct tprobe {
    const val_tb_conn *cfg;
    const val_probe_opts *o;
    val_probe_result *res;
    char where[300];
    tb_client_t client;
    tb_wait w;
    tb_packet_t packet;
    uint64_t ndone;
} tprobe;

/* Submit one request and wait for its reply.  Returns SIM_OK with the
 * reply facts in p->w, or SIM_EFAIL. */
static int submit_wait(tprobe *p, uint8_t operation, void *data, uint32_t size, const char *what,
                       sim_err *err)
{
    memset(&p->packet, 0, sizeof p->packet);
    p->packet.user_data = &p->w;
    p->packet.operation = operation;
    p->packet.data = data;
    p->packet.data_size = size;
    pthread_mutex_lock(&p->w.mu);
    p->w.done = 0;
    p->w.reply_size = 0;
    pthread_mutex_unlock(&p->w.mu);
    if (tb_client_submit(&p->client, &p->packet) != TB_CLIENT_OK)
        return sim_err_set(err, SIM_EFAIL, "%s: %s: the client handle is closed", p->where, what);
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    double t = (double)dl.tv_nsec * 1e-9 + p->o->timeout;
    dl.tv_sec += (time_t)floor(t);
    dl.tv_nsec = (long)((t - floor(t)) * 1e9);
    pthread_mutex_lock(&p->w.mu);
    int rc = 0;
    while (!p->w.done && rc == 0)
        rc = pthread_cond_timedwait(&p->w.cv, &p->w.mu, &dl);
    int done = p->w.done;
    uint8_t status = p->w.status;
    pthread_mutex_unlock(&p->w.mu);
    if (!done)
        return sim_err_set(err, SIM_EFAIL,
                           "%s: no reply within %g s to %s after %llu requests (cluster not answering)",
                           p->where, p->o->timeout, what, (unsigned long long)p->ndone);
    if (status != TB_PACKET_OK)
        return sim_err_set(err, SIM_EFAIL, "%s: %s failed: packet status %u", p->where, what,
                           (unsigned)status);
    p->ndone++;
    return SIM_OK;
}

static int check_results(tprobe *p, const char *what, sim_err *err)
{
    if (p->w.reply_size == 0)
        return SIM_OK;
    return sim_err_set(err, SIM_EFAIL, "%s: %s: %u of the events were rejected; the first, event %u, with result %u",
                       p->where, what, (unsigned)(p->w.reply_size / sizeof(tb_create_transfers_result_t)),
                       (unsigned)p->w.first_index, (unsigned)p->w.first_result);
}

/* One phase of requests of B transfers.  post = 0: pending transfers with
 * ids id0 + j; post = 1: post the pending transfers id0 + j, up to navail
 * of them.  *made = transfers created. */
static int run_phase(tprobe *p, int post, unsigned B, tb_transfer_t *buf, tb_uint128_t id0,
                     tb_uint128_t post_id0, uint64_t navail, tb_uint128_t debit, tb_uint128_t credit,
                     uint64_t *made, sim_err *err)
{
    char name[VAL_SAMPLES_OP_MAX + 1];
    snprintf(name, sizeof name, "tigerbeetle.%s", val_probe_tb_ops[post]);
    val_probe_phase_begin(p->res, name, B);
    val_probe_pace pace;
    val_probe_pace_init(&pace, p->o);
    uint64_t index, n = 0;
    double t_last = 0;
    int rc = SIM_OK;
    while (rc == SIM_OK && (!post || n + B <= navail) && val_probe_pace_next(&pace, val_probe_mono(), &index)) {
        memset(buf, 0, (size_t)B * sizeof *buf);
        for (unsigned j = 0; j < B; j++) {
            tb_transfer_t *t = &buf[j];
            t->id = id0 + n + j;
            t->debit_account_id = debit;
            t->credit_account_id = credit;
            t->amount = 1;
            t->ledger = 1;
            t->code = 1;
            if (post) {
                t->pending_id = post_id0 + n + j;
                t->flags = TB_TRANSFER_POST_PENDING_TRANSFER;
            } else {
                t->flags = TB_TRANSFER_PENDING;
            }
        }
        double t0 = val_probe_mono();
        rc = submit_wait(p, TB_OPERATION_CREATE_TRANSFERS, buf, (uint32_t)(B * sizeof *buf), name, err);
        double t1 = val_probe_mono();
        if (rc == SIM_OK)
            rc = check_results(p, name, err);
        if (rc == SIM_OK && val_probe_pace_records(&pace, index))
            rc = val_probe_record(p->res, p->o, t1 - t0, err);
        n += B;
        t_last = t1;
    }
    if (rc == SIM_OK && val_probe_stopped(p->o))
        rc = sim_err_set(err, SIM_EFAIL, "interrupted");
    if (rc == SIM_OK) {
        double wall = pace.t_start > 0 && t_last > pace.t_start ? t_last - pace.t_start : NAN;
        val_probe_phase_end(p->res, p->o, wall);
    }
    *made = n;
    return rc;
}

int val_probe_tb_run(const val_tb_conn *cfg, const val_probe_opts *o, val_probe_result *res,
                     sim_err *err)
{
    assert(o->nlevels > 0 && o->timeout > 0);
    int rc = val_probe_check_ops(o, val_probe_tb_ops, val_probe_tb_nops, err);
    if (rc)
        return rc;
    unsigned bmax = 0;
    for (size_t l = 0; l < o->nlevels; l++) {
        if (o->levels[l] > VAL_TB_BATCH_MAX)
            return sim_err_set(err, SIM_EINPUT, "--batch-sizes: at most %u transfers per request",
                               VAL_TB_BATCH_MAX);
        if (o->levels[l] > bmax)
            bmax = o->levels[l];
    }
    tprobe *p = calloc(1, sizeof *p);
    assert(p);
    p->cfg = cfg;
    p->o = o;
    p->res = res;
    const char *addr = cfg->address ? cfg->address : "3000";
    snprintf(p->where, sizeof p->where, "tigerbeetle at %s (cluster %llu)", addr,
             (unsigned long long)cfg->cluster);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&p->w.mu, NULL);
    pthread_cond_init(&p->w.cv, &ca);
    pthread_condattr_destroy(&ca);

    uint8_t cluster_id[16] = {0};
    for (int i = 0; i < 8; i++)
        cluster_id[i] = (uint8_t)(cfg->cluster >> (8 * i));  /* little-endian u128 */
    TB_INIT_STATUS st = tb_client_init(&p->client, cluster_id, addr, (uint32_t)strlen(addr), 0, on_completion);
    if (st != TB_INIT_SUCCESS) {
        rc = sim_err_set(err, SIM_EFAIL, "%s: cannot start the client (tb_client_init status %d%s)",
                         p->where, (int)st, st == TB_INIT_ADDRESS_INVALID ? ": invalid address" : "");
        pthread_cond_destroy(&p->w.cv);
        pthread_mutex_destroy(&p->w.mu);
        free(p);
        return rc;
    }

    /* Ids: the clock in nanoseconds in the high 64 bits keeps runs apart. */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    tb_uint128_t base = (tb_uint128_t)((uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec) << 64;
    tb_uint128_t debit = base + 1, credit = base + 2, next = base + 16;

    tb_account_t acc[2];
    memset(acc, 0, sizeof acc);
    acc[0].id = debit;
    acc[1].id = credit;
    for (int i = 0; i < 2; i++) {
        acc[i].ledger = 1;
        acc[i].code = 1;
    }
    rc = submit_wait(p, TB_OPERATION_CREATE_ACCOUNTS, acc, sizeof acc, "create_accounts", err);
    if (rc == SIM_OK)
        rc = check_results(p, "create_accounts", err);

    tb_transfer_t *buf = calloc(bmax, sizeof *buf);
    assert(buf);
    for (size_t l = 0; l < o->nlevels && rc == SIM_OK; l++) {
        unsigned B = o->levels[l];
        uint64_t made = 0, posted = 0;
        tb_uint128_t pend0 = next;
        if (val_probe_wants(o, val_probe_tb_ops[0])) {
            rc = run_phase(p, 0, B, buf, pend0, 0, 0, debit, credit, &made, err);
            next += made;
        }
        if (rc == SIM_OK && made > 0 && val_probe_wants(o, val_probe_tb_ops[1])) {
            rc = run_phase(p, 1, B, buf, next, pend0, made, debit, credit, &posted, err);
            next += posted;
        }
    }
    /* Completes anything still in flight (with TB_PACKET_CLIENT_SHUTDOWN)
     * before the packet and buffers go away. */
    tb_client_deinit(&p->client);
    free(buf);
    pthread_cond_destroy(&p->w.cv);
    pthread_mutex_destroy(&p->w.mu);
    free(p);
    return rc;
}

#endif /* TFSIM_HAVE_TB */
