#include "sim/sim_stats.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

void sim_welford_init(sim_welford *w)
{
    w->n = 0;
    w->mean = w->m2 = 0;
    w->min = INFINITY;
    w->max = -INFINITY;
}


double sim_welford_var(const sim_welford *w) { return w->n > 1 ? w->m2 / (double)(w->n - 1) : 0; }
double sim_welford_sd(const sim_welford *w) { return sqrt(sim_welford_var(w)); }

void sim_welford_merge(sim_welford *a, const sim_welford *b)
{
    if (b->n == 0)
        return;
    if (a->n == 0) {
        *a = *b;
        return;
    }
    double n = (double)(a->n + b->n);
    double d = b->mean - a->mean;
    a->mean += d * (double)b->n / n;
    a->m2 += b->m2 + d * d * (double)a->n * (double)b->n / n;
    a->n += b->n;
    if (b->min < a->min)
        a->min = b->min;
    if (b->max > a->max)
        a->max = b->max;
}

void sim_tavg_init(sim_tavg *a, double t0, double v)
{
    a->t0 = a->t_last = t0;
    a->v = v;
    a->area = 0;
}


double sim_tavg_mean(const sim_tavg *a, double now)
{
    double span = now - a->t0;
    if (span <= 0)
        return a->v;
    return (a->area + a->v * (now - a->t_last)) / span;
}

double sim_tavg_area(const sim_tavg *a, double now)
{
    assert(now >= a->t_last);
    return a->area + a->v * (now - a->t_last);
}

void sim_tavg_restart(sim_tavg *a, double now)
{
    a->t0 = a->t_last = now;
    a->area = 0;
}

/* ---- histogram ---- */

void sim_hist_init(sim_hist *h)
{
    for (int i = 0; i < SIM_HIST_CHUNKS; i++)
        h->chunk[i] = NULL;
    h->n = h->zero = h->under = h->over = 0;
    h->min = INFINITY;
    h->max = -INFINITY;
}

void sim_hist_fini(sim_hist *h)
{
    for (int i = 0; i < SIM_HIST_CHUNKS; i++) {
        free(h->chunk[i]);
        h->chunk[i] = NULL;
    }
}

void sim_hist_clear(sim_hist *h)
{
    for (int i = 0; i < SIM_HIST_CHUNKS; i++)
        if (h->chunk[i])
            memset(h->chunk[i], 0, sizeof(uint64_t) << SIM_HIST_SUB_BITS);
    h->n = h->zero = h->under = h->over = 0;
    h->min = INFINITY;
    h->max = -INFINITY;
}

/* The counts of power of two c, allocated (zero) on first use. */
static uint64_t *chunk_of(sim_hist *h, long c)
{
    if (!h->chunk[c]) {
        h->chunk[c] = calloc((size_t)1 << SIM_HIST_SUB_BITS, sizeof(uint64_t));
        assert(h->chunk[c] && "out of memory");
    }
    return h->chunk[c];
}

/* Count of bucket i (0 <= i < SIM_HIST_NB). */
static inline uint64_t count_of(const sim_hist *h, long i)
{
    const uint64_t *c = h->chunk[i >> SIM_HIST_SUB_BITS];
    return c ? c[i & ((1 << SIM_HIST_SUB_BITS) - 1)] : 0;
}

/* Bucket of x > 0: IEEE exponent and the top SUB_BITS mantissa bits. */
static inline long bucket_of(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    long key = (long)(bits >> (52 - SIM_HIST_SUB_BITS));
    long lo = (long)(1023 + SIM_HIST_EMIN) << SIM_HIST_SUB_BITS;
    return key - lo;
}

static double bucket_lo(long i)
{
    long lo = (long)(1023 + SIM_HIST_EMIN) << SIM_HIST_SUB_BITS;
    uint64_t bits = (uint64_t)(i + lo) << (52 - SIM_HIST_SUB_BITS);
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

void sim_hist_add(sim_hist *h, double x)
{
    assert(x >= 0 || x != x);
    h->n++;
    if (x < h->min)
        h->min = x;
    if (x > h->max)
        h->max = x;
    if (x <= 0) {
        h->zero++;
        return;
    }
    long i = bucket_of(x);
    if (i < 0)
        h->under++;
    else if (i >= SIM_HIST_NB)
        h->over++;
    else
        chunk_of(h, i >> SIM_HIST_SUB_BITS)[i & ((1 << SIM_HIST_SUB_BITS) - 1)]++;
}

void sim_hist_merge(sim_hist *a, const sim_hist *b)
{
    for (long c = 0; c < SIM_HIST_CHUNKS; c++) {
        if (!b->chunk[c])
            continue;
        uint64_t *ac = chunk_of(a, c);
        for (long i = 0; i < 1 << SIM_HIST_SUB_BITS; i++)
            ac[i] += b->chunk[c][i];
    }
    a->n += b->n;
    a->zero += b->zero;
    a->under += b->under;
    a->over += b->over;
    if (b->min < a->min)
        a->min = b->min;
    if (b->max > a->max)
        a->max = b->max;
}

double sim_hist_quantile(const sim_hist *h, double p)
{
    if (h->n == 0)
        return NAN;
    if (p <= 0)
        return h->min;
    if (p >= 1)
        return h->max;
    /* rank r (1-based) of the value at quantile p */
    uint64_t r = (uint64_t)ceil(p * (double)h->n);
    if (r < 1)
        r = 1;
    uint64_t c = h->zero;
    if (r <= c)
        return 0;
    c += h->under;
    if (r <= c)
        return h->min > 0 ? h->min : 0;
    for (long i = 0; i < SIM_HIST_NB; i++) {
        if (!h->chunk[i >> SIM_HIST_SUB_BITS]) {
            i += (1 << SIM_HIST_SUB_BITS) - 1; /* a power of two with no values */
            continue;
        }
        c += count_of(h, i);
        if (r <= c) {
            double v = 0.5 * (bucket_lo(i) + bucket_lo(i + 1));
            if (v < h->min)
                v = h->min;
            if (v > h->max)
                v = h->max;
            return v;
        }
    }
    return h->max;
}

/* ---- series: MSER and batch means ---- */

void sim_series_init(sim_series *s)
{
    s->sum = malloc(SIM_SERIES_CAP * sizeof *s->sum);
    assert(s->sum && "out of memory");
    s->nb = 0;
    s->m = SIM_SERIES_BATCH0;
    s->cur = 0;
    s->cur_n = 0;
    s->n = 0;
}

void sim_series_fini(sim_series *s)
{
    free(s->sum);
    s->sum = NULL;
}

void sim_series_add(sim_series *s, double x)
{
    s->n++;
    s->cur += x;
    if (++s->cur_n < s->m)
        return;
    if (s->nb == SIM_SERIES_CAP) {
        for (size_t i = 0; i < SIM_SERIES_CAP / 2; i++)
            s->sum[i] = s->sum[2 * i] + s->sum[2 * i + 1];
        s->nb = SIM_SERIES_CAP / 2;
        s->m *= 2;
        /* the batch just filled has the old size: keep filling to the new one */
        if (s->cur_n < s->m)
            return;
    }
    s->sum[s->nb++] = s->cur;
    s->cur = 0;
    s->cur_n = 0;
}

uint64_t sim_series_mser(const sim_series *s)
{
    size_t n = s->nb;
    if (n < 4)
        return 0;
    /* suffix sums of batch means and of their squares */
    double best = INFINITY;
    size_t best_d = 0;
    double sum = 0, sq = 0;
    double *ms = malloc(n * sizeof *ms);
    assert(ms);
    /* Batch means centred on their average: the sums of squares below
     * then do not cancel catastrophically when the mean is large compared
     * with the spread (1e9 + noise). */
    double ref = 0;
    for (size_t i = 0; i < n; i++)
        ref += s->sum[i];
    ref /= (double)n * (double)s->m;
    for (size_t i = 0; i < n; i++)
        ms[i] = s->sum[i] / (double)s->m - ref;
    /* walk d from n/2 down to 0 accumulating the kept part [d, n) */
    for (size_t i = n; i-- > n / 2;) {
        sum += ms[i];
        sq += ms[i] * ms[i];
    }
    for (size_t d = n / 2 + 1; d-- > 0;) {
        if (d < n / 2) {
            sum += ms[d];
            sq += ms[d] * ms[d];
        }
        double k = (double)(n - d);
        double mean = sum / k;
        double ss = sq - k * mean * mean;
        if (ss < 0)
            ss = 0;
        double stat = ss / (k * k);
        if (stat <= best) {
            best = stat;
            best_d = d;
        }
    }
    free(ms);
    return (uint64_t)best_d * s->m;
}

int sim_series_batch_means(const sim_series *s, uint64_t skip, int k, double level, double *mean,
                           double *half)
{
    assert(k >= 2);
    size_t first = (size_t)((skip + s->m - 1) / s->m);
    if (first >= s->nb || s->nb - first < (size_t)k)
        return -1;
    size_t avail = s->nb - first;
    size_t per = avail / (size_t)k;
    size_t start = first + (avail - per * (size_t)k); /* drop the remainder at the start */
    double *bm = malloc((size_t)k * sizeof *bm);
    assert(bm);
    for (int j = 0; j < k; j++) {
        double acc = 0;
        for (size_t i = 0; i < per; i++)
            acc += s->sum[start + (size_t)j * per + i];
        bm[j] = acc / ((double)per * (double)s->m);
    }
    sim_ci(bm, (size_t)k, level, mean, half);
    free(bm);
    return 0;
}

double sim_t_quantile(double level, double df)
{
    assert(level > 0 && level < 1 && df > 0);
    return gsl_cdf_tdist_Pinv(0.5 + level / 2, df);
}

void sim_ci(const double *x, size_t n, double level, double *mean, double *half)
{
    sim_welford w;
    sim_welford_init(&w);
    for (size_t i = 0; i < n; i++)
        sim_welford_add(&w, x[i]);
    *mean = n ? w.mean : NAN;
    if (n < 2) {
        *half = NAN;
        return;
    }
    *half = sim_t_quantile(level, (double)(n - 1)) * sim_welford_sd(&w) / sqrt((double)n);
}

double sim_mape_add(sim_mape *m, double pred, double meas)
{
    if (!(meas > 0) || !isfinite(meas) || !isfinite(pred))
        return NAN;
    double e = 100 * (pred - meas) / meas;
    if (m) {
        m->sum += fabs(e);
        m->max = fmax(m->max, fabs(e));
        m->n++;
    }
    return e;
}

double sim_mape_add_range(sim_mape *m, double pred, double meas, double lo, double hi)
{
    double e = sim_mape_add(m, pred, meas);
    if (m && !isnan(e)) {
        int in = fabs(e) <= SIM_MAPE_WITHIN;
        m->within += in;
        m->beyond += !in && !(pred >= lo && pred <= hi);
    }
    return e;
}

double sim_mape_mean(const sim_mape *m)
{
    return m->n ? m->sum / (double)m->n : NAN;
}
