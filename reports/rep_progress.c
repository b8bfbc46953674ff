/* rep_progress: see rep_progress.h.  SPDX-License-Identifier: GPL-3.0-or-later */
#include "reports/rep_progress.h"

#include <assert.h>
#include <string.h>
#include <time.h>

void rep_progress_init(rep_progress *p, FILE *out, int enabled, const char *label, size_t total,
                       double now)
{
    assert(p && out);
    memset(p, 0, sizeof *p);
    p->out = out;
    p->enabled = enabled;
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
    p->total = total;
    p->t0 = now;
    p->last_draw = now - REP_PROGRESS_MIN_DT;
}

static void fmt_time(double s, char *buf, size_t len)
{
    long t = s < 0 ? 0 : (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

static void draw(rep_progress *p, double now)
{
    size_t filled = p->total ? p->done * REP_PROGRESS_WIDTH / p->total : REP_PROGRESS_WIDTH;
    char bar[REP_PROGRESS_WIDTH + 1];
    for (size_t i = 0; i < REP_PROGRESS_WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[REP_PROGRESS_WIDTH] = '\0';
    double elapsed = now - p->t0;
    char el[32], eta[32] = "--:--";
    fmt_time(elapsed, el, sizeof el);
    size_t worked = p->done - p->skipped;
    if (worked > 0)
        fmt_time(elapsed / (double)worked * (double)(p->total - p->done), eta, sizeof eta);
    int pct = p->total ? (int)(100 * p->done / p->total) : 100;
    /* \033[K clears what a longer earlier line left behind. */
    fprintf(p->out, "\r%s [%s] %zu/%zu %3d%%  elapsed %s  ETA %s\033[K", p->label, bar, p->done,
            p->total, pct, el, eta);
    fflush(p->out);
    p->last_draw = now;
}

void rep_progress_step(rep_progress *p, size_t n, double now)
{
    p->done += n;
    assert(p->done <= p->total);
    if (p->enabled && (now - p->last_draw >= REP_PROGRESS_MIN_DT || p->done == p->total))
        draw(p, now);
}

void rep_progress_skip(rep_progress *p, size_t n)
{
    p->done += n;
    p->skipped += n;
    assert(p->done <= p->total);
}

void rep_progress_fini(rep_progress *p, double now)
{
    if (!p->enabled)
        return;
    draw(p, now);
    fputc('\n', p->out);
    fflush(p->out);
}

double rep_progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
