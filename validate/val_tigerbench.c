/* val_tigerbench: TigerBench CSV reader and summaries (see the header).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "validate/val_tigerbench.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>

#include "sim/sim_cfg.h"
#include "sim/sim_stats.h"
#include "sim/sim_str.h"

enum col {
    C_TIMESTAMP,
    C_TAG,
    C_PHASE,
    C_ACCOUNTING,
    C_PAYMENTS,
    C_CONCURRENCY,
    C_DB_POOL,
    C_REDIS_MAX,
    C_WEBHOOK_MODE,
    C_SUCCEED_RATE,
    C_TOTAL,
    C_OK,
    C_ERRORS,
    C_WALLTIME,
    C_THROUGHPUT,
    NCOL
};

static const char *const col_name[NCOL] = {
    "timestamp",    "tag",        "phase",       "accounting",       "payments",
    "concurrency",  "db_pool_size", "redis_max_conn", "webhook_mode", "arg_succeed_rate",
    "total",        "ok",         "errors",      "walltime",         "throughput"};
static const int col_required[NCOL] = {0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1};

#define HEADER_TEXT                                                                        \
    "timestamp,tag,phase,accounting,payments,concurrency,db_pool_size,redis_max_conn,"     \
    "webhook_mode,arg_succeed_rate,total,ok,errors,walltime,throughput"

#define CHUNK 4096
#define MAX_ARCH 256

/* Accumulator of one (architecture, phase or kind, concurrency) group. */
typedef struct grp {
    int arch, is_kind, name_id;
    long conc;
    int line, last_line, reps;
    int timed;        /* rows with a timestamp */
    double t_first, t_last; /* their earliest and latest timestamp, s since 1970 */
    sim_welford a;   /* phase: throughput; kind: per-repetition means */
    sim_welford b;   /* phase: wall time; kind: the walltime column (sd) */
    sim_welford all; /* kind: all samples as one set */
    double ss_within, df_within;
    long samples, total, ok, errors;
} grp;

typedef struct arch_extra {
    int db_line, redis_line; /* where the setting was first seen */
} arch_extra;

struct val_tigerbench {
    char *name;
    size_t rows;
    val_tigerbench_arch *arch;
    arch_extra *extra;
    size_t narch, cap_arch;
    /* interned phase/kind names, hashed */
    char (*names)[VAL_TIGERBENCH_NAME_MAX];
    size_t nnames, cap_names;
    uint32_t *name_slot;
    size_t name_nslot;
    /* rows with a timestamp, by (group, timestamp): for duplicates */
    uint64_t *row_key;
    int *row_line;
    size_t nrow_keys, row_nslot;
    /* groups, hashed */
    grp *g;
    size_t ng, cap_g;
    uint32_t *grp_slot;
    size_t grp_nslot;
};

typedef struct reader {
    val_tigerbench *tb;
    long line;     /* physical line being parsed (1-based) */
    long rec_line; /* line where the current record started */
    long next_rec; /* line where the next record starts (the one after the last record's end) */
    int nf;
    size_t used;
    size_t off[VAL_TIGERBENCH_MAX_FIELDS];
    char buf[VAL_TIGERBENCH_MAX_RECORD];
    int col[NCOL]; /* field index of each known column, -1 when absent */
    int nheader;   /* fields in the header; 0 before it is read */
    sim_err *err;
    int failed;
} reader;

/* ---- errors ---- */

static void rfail(reader *r, long line, const char *col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void rfail(reader *r, long line, const char *col, const char *fmt, ...)
{
    if (r->failed)
        return;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->failed = 1;
    sim_err_set(r->err, SIM_EINPUT, "%s:%ld: %s%s%s", r->tb->name, line, col ? col : "",
                col ? ": " : "", msg);
}

/* ---- hashing ----
 * The reader's own open-addressing tables, rebuilt at every read and never
 * stored: so the group key hashes the host bytes of its integers. */

static uint64_t grp_hash(int arch, int is_kind, int name_id, long conc)
{
    uint64_t h = sim_str_fnv(&arch, sizeof arch, SIM_STR_FNV0);
    h = sim_str_fnv(&is_kind, sizeof is_kind, h);
    h = sim_str_fnv(&name_id, sizeof name_id, h);
    return sim_str_fnv(&conc, sizeof conc, h);
}

/* Grow an open-addressing table of (index + 1) entries to twice its size,
 * re-inserting with hash_of(index). */
static uint32_t *rehash(uint32_t *old, size_t nold, size_t nnew, uint64_t (*hash_of)(void *, uint32_t),
                        void *ctx)
{
    uint32_t *s = calloc(nnew, sizeof *s);
    assert(s);
    for (size_t i = 0; i < nold; i++) {
        if (!old[i])
            continue;
        size_t j = (size_t)(hash_of(ctx, old[i] - 1) & (nnew - 1));
        while (s[j])
            j = (j + 1) & (nnew - 1);
        s[j] = old[i];
    }
    free(old);
    return s;
}

static uint64_t name_hash_of(void *ctx, uint32_t i)
{
    val_tigerbench *tb = ctx;
    return sim_str_fnv(tb->names[i], strlen(tb->names[i]), SIM_STR_FNV0);
}

static uint64_t grp_hash_of(void *ctx, uint32_t i)
{
    val_tigerbench *tb = ctx;
    const grp *g = &tb->g[i];
    return grp_hash(g->arch, g->is_kind, g->name_id, g->conc);
}

/* Id of a (validated, short) name, interning it; -1 when there are too many. */
static int name_id(val_tigerbench *tb, const char *s)
{
    size_t len = strlen(s);
    assert(len < VAL_TIGERBENCH_NAME_MAX);
    if (2 * (tb->nnames + 1) > tb->name_nslot) {
        size_t nn = tb->name_nslot ? 2 * tb->name_nslot : 64;
        tb->name_slot = rehash(tb->name_slot, tb->name_nslot, nn, name_hash_of, tb);
        tb->name_nslot = nn;
    }
    size_t j = (size_t)(sim_str_fnv(s, len, SIM_STR_FNV0) & (tb->name_nslot - 1));
    while (tb->name_slot[j]) {
        uint32_t id = tb->name_slot[j] - 1;
        if (!strcmp(tb->names[id], s))
            return (int)id;
        j = (j + 1) & (tb->name_nslot - 1);
    }
    if (tb->nnames >= VAL_TIGERBENCH_MAX_GROUPS)
        return -1;
    if (tb->nnames == tb->cap_names) {
        tb->cap_names = tb->cap_names ? 2 * tb->cap_names : 32;
        tb->names = realloc(tb->names, tb->cap_names * sizeof *tb->names);
        assert(tb->names);
    }
    memcpy(tb->names[tb->nnames], s, len + 1);
    tb->name_slot[j] = (uint32_t)(tb->nnames + 1);
    return (int)tb->nnames++;
}

/* The group for a key, created if new; NULL when there are too many. */
static grp *group(val_tigerbench *tb, int arch, int is_kind, int nid, long conc, long line)
{
    if (2 * (tb->ng + 1) > tb->grp_nslot) {
        size_t nn = tb->grp_nslot ? 2 * tb->grp_nslot : 256;
        tb->grp_slot = rehash(tb->grp_slot, tb->grp_nslot, nn, grp_hash_of, tb);
        tb->grp_nslot = nn;
    }
    size_t j = (size_t)(grp_hash(arch, is_kind, nid, conc) & (tb->grp_nslot - 1));
    while (tb->grp_slot[j]) {
        grp *g = &tb->g[tb->grp_slot[j] - 1];
        if (g->arch == arch && g->is_kind == is_kind && g->name_id == nid && g->conc == conc)
            return g;
        j = (j + 1) & (tb->grp_nslot - 1);
    }
    if (tb->ng >= VAL_TIGERBENCH_MAX_GROUPS)
        return NULL;
    if (tb->ng == tb->cap_g) {
        tb->cap_g = tb->cap_g ? 2 * tb->cap_g : 64;
        tb->g = realloc(tb->g, tb->cap_g * sizeof *tb->g);
        assert(tb->g);
    }
    grp *g = &tb->g[tb->ng];
    memset(g, 0, sizeof *g);
    g->arch = arch;
    g->is_kind = is_kind;
    g->name_id = nid;
    g->conc = conc;
    g->line = (int)line;
    sim_welford_init(&g->a);
    sim_welford_init(&g->b);
    sim_welford_init(&g->all);
    tb->grp_slot[j] = (uint32_t)(tb->ng + 1);
    tb->ng++;
    return g;
}

/* ---- field access and checks ---- */

static const char *field(const reader *r, int c)
{
    return r->col[c] < 0 ? NULL : r->buf + r->off[r->col[c]];
}

/* A finite number >= lo. */
static int fnum(reader *r, int c, double lo, double *out)
{
    const char *s = field(r, c), *why;
    if (sim_parse_double(s, out, &why)) {
        rfail(r, r->rec_line, col_name[c], "'%s' is not a number (%s)", s, why);
        return -1;
    }
    if (*out < lo) {
        rfail(r, r->rec_line, col_name[c], "%s must be %s %g", s, lo > 0 ? ">" : ">=",
              lo > 0 ? 0.0 : lo);
        return -1;
    }
    return 0;
}

/* An integer in [lo, hi]. */
static int fint(reader *r, int c, long lo, long hi, long *out)
{
    const char *s = field(r, c), *why;
    if (sim_parse_long(s, out, &why)) {
        rfail(r, r->rec_line, col_name[c], "'%s' is not an integer", s);
        return -1;
    }
    if (*out < lo || *out > hi) {
        rfail(r, r->rec_line, col_name[c], "%s is out of range %ld..%ld", s, lo, hi);
        return -1;
    }
    return 0;
}

/* A name: 1..NAME_MAX-1 characters from [A-Za-z0-9_.-]. */
static int fname(reader *r, int c, const char *s, const char *what)
{
    size_t n = strlen(s);
    if (n == 0) {
        rfail(r, r->rec_line, col_name[c], "empty %s", what);
        return -1;
    }
    if (n >= VAL_TIGERBENCH_NAME_MAX) {
        rfail(r, r->rec_line, col_name[c], "%s longer than %d characters", what,
              VAL_TIGERBENCH_NAME_MAX - 1);
        return -1;
    }
    for (const char *p = s; *p; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '.' || *p == '-')) {
            rfail(r, r->rec_line, col_name[c], "'%s': unexpected character '%c' in %s", s, *p,
                  what);
            return -1;
        }
    }
    return 0;
}

/* An optional setting column that must not vary within an architecture. */
static int setting(reader *r, int c, long *val, int *first_line, const char *arch)
{
    const char *s = field(r, c);
    if (!s || !*s)
        return 0;
    long v;
    if (fint(r, c, 0, 1000000000L, &v))
        return -1;
    if (*val < 0) {
        *val = v;
        *first_line = (int)r->rec_line;
    } else if (*val != v) {
        rfail(r, r->rec_line, col_name[c],
              "%ld differs from %ld (line %d) for %s; one file must hold one setting per "
              "architecture",
              v, *val, *first_line, arch);
        return -1;
    }
    return 0;
}

/* The load generator's settings of a row (arg_succeed_rate, parsed as
 * rate, NaN when empty; webhook_mode): the architecture keeps the first
 * row's and marks those that differ (TigerBench's older rows have no
 * webhook_mode: an empty field is no setting). */
static int loadgen_settings(reader *r, val_tigerbench_arch *a, double rate)
{
    if (!isnan(rate)) {
        if (isnan(a->succeed_rate))
            a->succeed_rate = rate;
        else if (a->succeed_rate != rate)
            a->mixed |= VAL_TIGERBENCH_MIXED_SUCCEED;
    }
    const char *m = field(r, C_WEBHOOK_MODE);
    if (!m || !*m)
        return 0;
    if (strlen(m) >= sizeof a->webhook_mode) {
        rfail(r, r->rec_line, col_name[C_WEBHOOK_MODE],
              "'%.40s' is not a webhook mode (TigerBench writes direct or emit)", m);
        return -1;
    }
    if (!a->webhook_mode[0])
        snprintf(a->webhook_mode, sizeof a->webhook_mode, "%s", m);
    else if (strcmp(a->webhook_mode, m))
        a->mixed |= VAL_TIGERBENCH_MIXED_WEBHOOK;
    return 0;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static long days_from_civil(long y, long m, long d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* Seconds since 1970 (UTC) of an ISO 8601 time, YYYY-MM-DD[T ]hh:mm[:ss[.f]]
 * with an optional Z or +hh:mm / -hh:mm (none: UTC); -1 when s is not one
 * (the column is optional and free-form: such rows give no order). */
static int parse_time(const char *s, double *t)
{
    int y, mo, d, h, mi, n = 0;
    if (sscanf(s, "%4d-%2d-%2d%*1[T ]%2d:%2d%n", &y, &mo, &d, &h, &mi, &n) != 5 || n < 16)
        return -1;
    double sec = 0;
    const char *p = s + n;
    if (*p == ':') {
        char *e;
        sec = strtod(p + 1, &e);
        if (e == p + 1 || !(sec >= 0 && sec < 61))
            return -1;
        p = e;
    }
    double off = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh, om = 0, k = 0;
        if (sscanf(p + 1, "%2d%n", &oh, &k) != 1 || k != 2)
            return -1;
        const char *q = p + 3;
        if (*q == ':')
            q++;
        if (isdigit((unsigned char)*q)) {
            if (sscanf(q, "%2d%n", &om, &k) != 1 || k != 2)
                return -1;
            q += 2;
        }
        off = (*p == '+' ? 1 : -1) * (oh * 3600.0 + om * 60.0);
        p = q;
    }
    if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59)
        return -1;
    *t = (double)days_from_civil(y, mo, d) * 86400.0 + h * 3600.0 + mi * 60.0 + sec - off;
    return 0;
}

/* Record a row's (group, timestamp) and fail when an earlier row had the
 * same: the same repetition twice (a file appended to itself, rows pasted
 * twice) would count double.  Only for timestamps that are times. */
static int row_unique(reader *r, size_t gi, const char *ts)
{
    val_tigerbench *tb = r->tb;
    if (2 * (tb->nrow_keys + 1) > tb->row_nslot) {
        size_t nn = tb->row_nslot ? 2 * tb->row_nslot : 256;
        uint64_t *k = calloc(nn, sizeof *k);
        int *l = calloc(nn, sizeof *l);
        assert(k && l);
        for (size_t i = 0; i < tb->row_nslot; i++) {
            if (!tb->row_line[i])
                continue;
            size_t j = (size_t)(tb->row_key[i] & (nn - 1));
            while (l[j])
                j = (j + 1) & (nn - 1);
            k[j] = tb->row_key[i];
            l[j] = tb->row_line[i];
        }
        free(tb->row_key);
        free(tb->row_line);
        tb->row_key = k;
        tb->row_line = l;
        tb->row_nslot = nn;
    }
    uint64_t h = sim_str_fnv(ts, strlen(ts), sim_str_fnv(&gi, sizeof gi, SIM_STR_FNV0));
    size_t j = (size_t)(h & (tb->row_nslot - 1));
    while (tb->row_line[j]) {
        if (tb->row_key[j] == h) {
            rfail(r, r->rec_line, NULL,
                  "duplicates line %d (same timestamp, phase, architecture and concurrency)",
                  tb->row_line[j]);
            return -1;
        }
        j = (j + 1) & (tb->row_nslot - 1);
    }
    tb->row_key[j] = h;
    tb->row_line[j] = (int)r->rec_line;
    tb->nrow_keys++;
    return 0;
}

/* ---- records ---- */

static void header(reader *r)
{
    for (int c = 0; c < NCOL; c++)
        r->col[c] = -1;
    for (int i = 0; i < r->nf; i++) {
        const char *s = r->buf + r->off[i];
        if (i == 0 && !strncmp(s, "\xEF\xBB\xBF", 3)) /* UTF-8 byte order mark */
            s += 3;
        for (int c = 0; c < NCOL; c++) {
            if (strcmp(s, col_name[c]))
                continue;
            if (r->col[c] >= 0) {
                rfail(r, r->rec_line, col_name[c], "column appears twice in the header");
                return;
            }
            r->col[c] = i;
        }
    }
    for (int c = 0; c < NCOL; c++) {
        if (col_required[c] && r->col[c] < 0) {
            rfail(r, r->rec_line, col_name[c],
                  "missing column; not a TigerBench CSV (expected the header " HEADER_TEXT ")");
            return;
        }
    }
    r->nheader = r->nf;
}

static int arch_index(reader *r, const char *acc, const char *pay)
{
    val_tigerbench *tb = r->tb;
    char name[2 * VAL_TIGERBENCH_NAME_MAX + 2];
    snprintf(name, sizeof name, "%s_%s", acc, pay);
    if (strlen(name) >= VAL_TIGERBENCH_NAME_MAX) {
        rfail(r, r->rec_line, "payments", "architecture name '%s' is too long", name);
        return -1;
    }
    for (size_t i = 0; i < tb->narch; i++)
        if (!strcmp(tb->arch[i].name, name))
            return (int)i;
    if (tb->narch == MAX_ARCH) {
        rfail(r, r->rec_line, "accounting", "more than %d architectures", MAX_ARCH);
        return -1;
    }
    if (tb->narch == tb->cap_arch) {
        tb->cap_arch = tb->cap_arch ? 2 * tb->cap_arch : 4;
        tb->arch = realloc(tb->arch, tb->cap_arch * sizeof *tb->arch);
        tb->extra = realloc(tb->extra, tb->cap_arch * sizeof *tb->extra);
        assert(tb->arch && tb->extra);
    }
    val_tigerbench_arch *a = &tb->arch[tb->narch];
    memset(a, 0, sizeof *a);
    memcpy(a->name, name, strlen(name) + 1);
    snprintf(a->accounting, sizeof a->accounting, "%s", acc);
    snprintf(a->payments, sizeof a->payments, "%s", pay);
    a->db_pool_size = a->redis_max_conn = -1;
    a->succeed_rate = NAN;
    tb->extra[tb->narch].db_line = tb->extra[tb->narch].redis_line = 0;
    return (int)tb->narch++;
}

static void row(reader *r)
{
    val_tigerbench *tb = r->tb;
    if (r->nf != r->nheader) {
        rfail(r, r->rec_line, NULL, "expected %d fields as in the header, got %d", r->nheader,
              r->nf);
        return;
    }
    tb->rows++;
    const char *phase = field(r, C_PHASE), *acc = field(r, C_ACCOUNTING),
               *pay = field(r, C_PAYMENTS);
    int is_kind = !strncmp(phase, "kind:", 5);
    const char *name = is_kind ? phase + 5 : phase;
    if (fname(r, C_PHASE, name, is_kind ? "kind name" : "phase name") ||
        fname(r, C_ACCOUNTING, acc, "backend name") || fname(r, C_PAYMENTS, pay, "backend name"))
        return;
    long conc, total, ok, errors;
    double wall, x, rate;
    if (fint(r, C_CONCURRENCY, 1, 10000000L, &conc) || fint(r, C_TOTAL, 0, LONG_MAX / 4, &total) ||
        fint(r, C_OK, 0, LONG_MAX / 4, &ok) || fint(r, C_ERRORS, 0, LONG_MAX / 4, &errors) ||
        fnum(r, C_WALLTIME, is_kind ? 0 : 1e-300, &wall) || fnum(r, C_THROUGHPUT, 0, &x))
        return;
    const char *sr = field(r, C_SUCCEED_RATE);
    rate = NAN;
    if (sr && *sr) {
        if (fnum(r, C_SUCCEED_RATE, 0, &rate))
            return;
        if (rate > 1) {
            rfail(r, r->rec_line, col_name[C_SUCCEED_RATE], "%s is not a rate in [0, 1]", sr);
            return;
        }
    }
    /* a time no benchmark of this format measures: a unit slip or a
     * corrupted field (kind rows: mean and sd in seconds; tb.batch_size in
     * transfers, at most VAL_TIGERBENCH_MAX_BATCH) */
    double cap = is_kind && !strcmp(name, "tb.batch_size") ? VAL_TIGERBENCH_MAX_BATCH
                                                            : VAL_TIGERBENCH_MAX_SECONDS;
    if (is_kind ? x > cap : wall > cap) {
        rfail(r, r->rec_line, is_kind ? "throughput" : "walltime",
              "%g is beyond %g %s: not a measurement of this benchmark%s", is_kind ? x : wall,
              cap, cap == VAL_TIGERBENCH_MAX_BATCH ? "transfers" : "s",
              is_kind ? " (a kind row's mean)" : "");
        return;
    }
    if (is_kind && wall > cap) {
        rfail(r, r->rec_line, "walltime",
              "%g is beyond %g %s: not a measurement of this benchmark (a kind row's sd)", wall,
              cap, cap == VAL_TIGERBENCH_MAX_BATCH ? "transfers" : "s");
        return;
    }
    if (!is_kind && ok > total) {
        rfail(r, r->rec_line, "ok", "%ld successful requests of %ld (total): not a phase row", ok,
              total);
        return;
    }
    if (!is_kind) {
        /* throughput = successful requests / wall time (docs/DESIGN.md section 3) */
        double e1 = (double)ok / wall, e2 = (double)total / wall;
        double d = fmin(fabs(x - e1), fabs(x - e2));
        if (d > 0.01 * fmax(x, 1e-9)) {
            rfail(r, r->rec_line, "throughput",
                  "%g disagrees with ok/walltime = %g (columns swapped or not a phase row?)", x,
                  e1);
            return;
        }
    } else if (total == 0) {
        return; /* a kind without samples */
    }
    int ai = arch_index(r, acc, pay);
    if (ai < 0)
        return;
    val_tigerbench_arch *a = &tb->arch[ai];
    if (setting(r, C_DB_POOL, &a->db_pool_size, &tb->extra[ai].db_line, a->name) ||
        setting(r, C_REDIS_MAX, &a->redis_max_conn, &tb->extra[ai].redis_line, a->name))
        return;
    if (loadgen_settings(r, a, rate))
        return;
    int nid = name_id(tb, name);
    grp *g = nid < 0 ? NULL : group(tb, ai, is_kind, nid, conc, r->rec_line);
    if (!g) {
        rfail(r, r->rec_line, NULL, "more than %d distinct (architecture, phase, concurrency) groups",
              VAL_TIGERBENCH_MAX_GROUPS);
        return;
    }
    /* a real time stamps one repetition: the same one twice is a duplicate
     * (placeholder text such as "t" says nothing) */
    const char *ts = field(r, C_TIMESTAMP);
    double t;
    int timed = ts && parse_time(ts, &t) == 0;
    if (timed && row_unique(r, (size_t)(g - tb->g), ts))
        return;
    g->reps++;
    g->last_line = (int)r->rec_line;
    if (timed) {
        g->t_first = g->timed ? fmin(g->t_first, t) : t;
        g->t_last = g->timed ? fmax(g->t_last, t) : t;
        g->timed++;
    }
    if (!is_kind) {
        sim_welford_add(&g->a, x);
        sim_welford_add(&g->b, wall);
        g->total += total;
        g->ok += ok;
        g->errors += errors;
        return;
    }
    /* kind row: throughput = mean, walltime = sd, total = samples */
    sim_welford_add(&g->a, x);
    sim_welford_add(&g->b, wall);
    g->samples += total;
    double m2 = (double)(total - 1) * wall * wall;
    g->ss_within += m2;
    g->df_within += (double)(total - 1);
    sim_welford one = {.n = (uint64_t)total, .mean = x, .m2 = m2, .min = x, .max = x};
    sim_welford_merge(&g->all, &one);
}

/* ---- libcsv callbacks ---- */

static void on_field(void *s, size_t len, void *data)
{
    reader *r = data;
    if (r->failed)
        return;
    if (r->nf == 0)
        r->rec_line = r->line;
    if (r->nf >= VAL_TIGERBENCH_MAX_FIELDS) {
        rfail(r, r->rec_line, NULL, "more than %d fields", VAL_TIGERBENCH_MAX_FIELDS);
        return;
    }
    if (len + 1 > sizeof r->buf - r->used) {
        rfail(r, r->rec_line, NULL, "record longer than %d bytes", VAL_TIGERBENCH_MAX_RECORD);
        return;
    }
    if (len && memchr(s, 0, len)) {
        rfail(r, r->rec_line, NULL, "NUL byte in field %d", r->nf + 1);
        return;
    }
    if (len)
        memcpy(r->buf + r->used, s, len);
    r->buf[r->used + len] = '\0';
    r->off[r->nf++] = r->used;
    r->used += len + 1;
}

static void on_record(int c, void *data)
{
    (void)c;
    reader *r = data;
    if (!r->failed) {
        if (r->nheader == 0)
            header(r);
        else
            row(r);
    }
    r->nf = 0;
    r->used = 0;
    r->next_rec = r->line + 1;
}

/* libcsv grows its field buffer with this; refusing bounds the memory. */
static void *capped_realloc(void *p, size_t n)
{
    return n > VAL_TIGERBENCH_MAX_RECORD ? NULL : realloc(p, n);
}

/* ---- summaries ---- */

typedef struct sort_item {
    int name_id;
    long conc;
    size_t g;
} sort_item;

static int cmp_item(const void *pa, const void *pb)
{
    const sort_item *a = pa, *b = pb;
    if (a->name_id != b->name_id)
        return a->name_id < b->name_id ? -1 : 1;
    return (a->conc > b->conc) - (a->conc < b->conc);
}

static void summarise(val_tigerbench *tb)
{
    sort_item *it = malloc((tb->ng ? tb->ng : 1) * sizeof *it);
    assert(it);
    for (size_t ai = 0; ai < tb->narch; ai++) {
        val_tigerbench_arch *a = &tb->arch[ai];
        for (int kind = 0; kind <= 1; kind++) {
            size_t n = 0;
            for (size_t i = 0; i < tb->ng; i++)
                if (tb->g[i].arch == (int)ai && tb->g[i].is_kind == kind)
                    it[n++] = (sort_item){tb->g[i].name_id, tb->g[i].conc, i};
            qsort(it, n, sizeof *it, cmp_item);
            if (!kind) {
                a->nphases = n;
                a->phases = calloc(n ? n : 1, sizeof *a->phases);
                assert(a->phases);
            } else {
                a->nkinds = n;
                a->kinds = calloc(n ? n : 1, sizeof *a->kinds);
                assert(a->kinds);
            }
            for (size_t k = 0; k < n; k++) {
                const grp *g = &tb->g[it[k].g];
                if (!kind) {
                    val_tigerbench_phase *p = &a->phases[k];
                    memcpy(p->phase, tb->names[g->name_id], sizeof p->phase);
                    p->concurrency = g->conc;
                    p->reps = g->reps;
                    p->x_mean = g->a.mean;
                    p->x_sd = g->reps > 1 ? sim_welford_sd(&g->a) : NAN;
                    p->x_min = g->a.min;
                    p->x_max = g->a.max;
                    p->wall_mean = g->b.mean;
                    p->total = g->total;
                    if (g->reps > 0 && g->total / g->reps > a->total)
                        a->total = g->total / g->reps;
                    p->ok = g->ok;
                    p->errors = g->errors;
                    p->line = g->line;
                    p->last_line = g->last_line;
                    p->timed = g->timed;
                    p->t_first = g->timed ? g->t_first : NAN;
                    p->t_last = g->timed ? g->t_last : NAN;
                } else {
                    val_tigerbench_kind *q = &a->kinds[k];
                    memcpy(q->kind, tb->names[g->name_id], sizeof q->kind);
                    q->concurrency = g->conc;
                    q->reps = g->reps;
                    q->samples = g->samples;
                    q->mean = g->a.mean;
                    q->sd_between = g->reps > 1 ? sim_welford_sd(&g->a) : NAN;
                    q->sd_pooled = g->df_within > 0 ? sqrt(g->ss_within / g->df_within) : NAN;
                    q->sd_total = g->all.n > 1 ? sqrt(g->all.m2 / (double)(g->all.n - 1)) : NAN;
                    q->sd_column = g->b.mean;
                    q->line = g->line;
                    q->last_line = g->last_line;
                    q->timed = g->timed;
                    q->t_first = g->timed ? g->t_first : NAN;
                    q->t_last = g->timed ? g->t_last : NAN;
                }
            }
        }
    }
    free(it);
    /* the requests per repetition: the largest (a phase after checkout
     * runs on the sessions checkout made, a few fewer after errors); a
     * group below 90% of it is another setting */
    for (size_t ai = 0; ai < tb->narch; ai++) {
        val_tigerbench_arch *a = &tb->arch[ai];
        for (size_t k = 0; k < a->nphases; k++)
            if ((double)a->phases[k].total < 0.9 * (double)a->total * a->phases[k].reps)
                a->mixed |= VAL_TIGERBENCH_MIXED_TOTAL;
    }
}

/* A kind's mean can not exceed the time its repetition's phases took. */
static int check_kinds(const val_tigerbench *tb, sim_err *err)
{
    for (size_t ai = 0; ai < tb->narch; ai++) {
        const val_tigerbench_arch *a = &tb->arch[ai];
        for (size_t k = 0; k < a->nkinds; k++) {
            const val_tigerbench_kind *q = &a->kinds[k];
            if (!strcmp(q->kind, "tb.batch_size"))
                continue;
            double wall = 0;
            int n = 0;
            for (size_t i = 0; i < a->nphases; i++)
                if (a->phases[i].concurrency == q->concurrency) {
                    wall += a->phases[i].wall_mean;
                    n++;
                }
            if (n > 0 && q->mean > wall)
                return sim_err_set(err, SIM_EINPUT,
                                   "%s:%d: throughput: kind:%s has a mean of %g s, longer than "
                                   "the %g s that the phases of %s at concurrency %ld lasted",
                                   tb->name, q->line, q->kind, q->mean, wall, a->name,
                                   q->concurrency);
        }
    }
    return SIM_OK;
}

/* Drop the accumulators once the summaries are built. */
static void drop_work(val_tigerbench *tb)
{
    free(tb->g);
    free(tb->grp_slot);
    free(tb->names);
    free(tb->name_slot);
    free(tb->row_key);
    free(tb->row_line);
    tb->row_key = NULL;
    tb->row_line = NULL;
    tb->nrow_keys = tb->row_nslot = 0;
    tb->g = NULL;
    tb->grp_slot = tb->name_slot = NULL;
    tb->names = NULL;
    tb->ng = tb->cap_g = tb->grp_nslot = tb->nnames = tb->cap_names = tb->name_nslot = 0;
}

void val_tigerbench_free(val_tigerbench *tb)
{
    if (!tb)
        return;
    drop_work(tb);
    for (size_t i = 0; i < tb->narch; i++) {
        free(tb->arch[i].phases);
        free(tb->arch[i].kinds);
    }
    free(tb->arch);
    free(tb->extra);
    free(tb->name);
    free(tb);
}

/* Read one physical line, or CHUNK-1 bytes of it, into buf (NULs kept);
 * returns the byte count, 0 at end of file. */
static size_t read_chunk(FILE *f, char *buf)
{
    size_t n = 0;
    int ch;
    while (n < CHUNK - 1 && (ch = getc(f)) != EOF) {
        buf[n++] = (char)ch;
        if (ch == '\n')
            break;
    }
    return n;
}

int val_tigerbench_read_stream(FILE *f, const char *name, val_tigerbench **out, sim_err *err)
{
    *out = NULL;
    val_tigerbench *tb = calloc(1, sizeof *tb);
    assert(tb);
    size_t nl = strlen(name) + 1;
    tb->name = malloc(nl);
    assert(tb->name);
    memcpy(tb->name, name, nl);

    reader *r = calloc(1, sizeof *r);
    assert(r);
    r->tb = tb;
    r->line = 1;
    r->next_rec = 1;
    r->err = err;

    struct csv_parser p;
    int rc = csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL);
    assert(rc == 0);
    csv_set_realloc_func(&p, capped_realloc);
    char chunk[CHUNK];
    size_t n;
    long last = 1; /* line of the last chunk read */
    while (!r->failed && (n = read_chunk(f, chunk)) > 0) {
        if (csv_parse(&p, chunk, n, on_field, on_record, r) != n && !r->failed) {
            int e = csv_error(&p);
            /* a record that began lines before: a quote never closed */
            long from = r->nf > 0 ? r->rec_line : r->next_rec;
            if ((e == CSV_ENOMEM || e == CSV_ETOOBIG) && from < r->line)
                rfail(r, from, NULL,
                      "field longer than %d bytes by line %ld: a quoted field opened on this "
                      "line and never closed?",
                      VAL_TIGERBENCH_MAX_RECORD, r->line);
            else if (e == CSV_ENOMEM || e == CSV_ETOOBIG)
                rfail(r, r->line, NULL, "field longer than %d bytes", VAL_TIGERBENCH_MAX_RECORD);
            else
                rfail(r, r->line, NULL, "malformed CSV (%s)", csv_strerror(e));
        }
        last = r->line;
        if (chunk[n - 1] == '\n')
            r->line++;
    }
    if (!r->failed && ferror(f)) {
        r->failed = 1;
        sim_err_set(err, errno == EISDIR ? SIM_EINPUT : SIM_EFAIL, "%s: read error: %s", tb->name,
                    strerror(errno));
    }
    if (!r->failed && csv_fini(&p, on_field, on_record, r) != 0 && !r->failed)
        rfail(r, r->nf > 0 ? r->rec_line : last, NULL,
              "malformed CSV: unterminated quoted field (opened on this line or before)");
    csv_free(&p);

    int failed = r->failed;
    int had_header = r->nheader > 0;
    free(r);
    if (!failed && !had_header) {
        failed = 1;
        sim_err_set(err, SIM_EINPUT, "%s:1: empty file (expected the TigerBench header " HEADER_TEXT
                    ")", tb->name);
    }
    if (!failed && tb->narch == 0) {
        failed = 1;
        sim_err_set(err, SIM_EINPUT, "%s:2: no data rows after the header", tb->name);
    }
    if (failed) {
        val_tigerbench_free(tb);
        return err ? err->code : SIM_EINPUT;
    }
    summarise(tb);
    drop_work(tb);
    if (check_kinds(tb, err)) {
        val_tigerbench_free(tb);
        return err ? err->code : SIM_EINPUT;
    }
    *out = tb;
    return SIM_OK;
}

int val_tigerbench_read(const char *path, val_tigerbench **out, sim_err *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return sim_err_set(err, errno == ENOENT ? SIM_EINPUT : SIM_EFAIL, "%s: cannot open: %s",
                           path, strerror(errno));
    int rc = val_tigerbench_read_stream(f, path, out, err);
    fclose(f);
    return rc;
}

/* ---- queries ---- */

const char *val_tigerbench_name(const val_tigerbench *tb) { return tb->name; }
size_t val_tigerbench_rows(const val_tigerbench *tb) { return tb->rows; }
size_t val_tigerbench_narch(const val_tigerbench *tb) { return tb->narch; }

const val_tigerbench_arch *val_tigerbench_arch_at(const val_tigerbench *tb, size_t i)
{
    assert(i < tb->narch);
    return &tb->arch[i];
}

const val_tigerbench_arch *val_tigerbench_find(const val_tigerbench *tb, const char *name)
{
    for (size_t i = 0; i < tb->narch; i++)
        if (!strcmp(tb->arch[i].name, name))
            return &tb->arch[i];
    return NULL;
}

void val_tigerbench_settings_copy(val_tigerbench_arch *to, const val_tigerbench_arch *from)
{
    to->db_pool_size = from->db_pool_size;
    to->redis_max_conn = from->redis_max_conn;
    to->succeed_rate = from->succeed_rate;
    memcpy(to->webhook_mode, from->webhook_mode, sizeof to->webhook_mode);
    to->total = from->total;
    to->mixed = from->mixed;
}

int val_tigerbench_arch_named(const char *name, val_tigerbench_arch *out, sim_err *err)
{
    memset(out, 0, sizeof *out);
    out->db_pool_size = out->redis_max_conn = -1;
    out->succeed_rate = NAN;
    const char *us = strchr(name, '_');
    size_t n = strlen(name);
    if (!us || us == name || !us[1] || strchr(us + 1, '_') || n >= sizeof out->name)
        return sim_err_set(err, SIM_EINPUT, "architecture '%s': expected ACCOUNTING_PAYMENTS "
                           "(pg_pg, pg_redis, tb_redis)", name);
    memcpy(out->name, name, n + 1);
    memcpy(out->accounting, name, (size_t)(us - name));
    out->accounting[us - name] = '\0';
    memcpy(out->payments, us + 1, n - (size_t)(us - name));
    return SIM_OK;
}

int val_tigerbench_arch_get(const val_tigerbench *tb, const char *name,
                            const val_tigerbench_arch **out, sim_err *err)
{
    *out = val_tigerbench_find(tb, name);
    if (*out)
        return SIM_OK;
    char list[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < tb->narch && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                 tb->arch[i].name);
    return sim_err_set(err, SIM_EINPUT, "%s: architecture '%s' is not in the file (present: %s)",
                       tb->name, name, list);
}

static int has_long(const long *v, size_t n, long x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

size_t val_tigerbench_concurrencies(const val_tigerbench_arch *a, int rows, long *out, size_t max)
{
    size_t cap = a->nphases + a->nkinds;
    long *all = malloc((cap ? cap : 1) * sizeof *all);
    assert(all);
    size_t n = 0;
    if (rows & VAL_TIGERBENCH_PHASE_ROWS)
        for (size_t i = 0; i < a->nphases; i++)
            if (!has_long(all, n, a->phases[i].concurrency))
                all[n++] = a->phases[i].concurrency;
    if (rows & VAL_TIGERBENCH_KIND_ROWS)
        for (size_t i = 0; i < a->nkinds; i++)
            if (!has_long(all, n, a->kinds[i].concurrency))
                all[n++] = a->kinds[i].concurrency;
    qsort(all, n, sizeof *all, cmp_long);
    for (size_t i = 0; i < n && i < max; i++)
        out[i] = all[i];
    free(all);
    return n;
}

const char *val_tigerbench_concurrency_list(const val_tigerbench_arch *a, int rows, char *buf,
                                            size_t len)
{
    long c[64];
    size_t n = val_tigerbench_concurrencies(a, rows, c, 64), used = 0;
    assert(len > 0);
    buf[0] = '\0';
    for (size_t i = 0; i < n && i < 64 && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%ld", i ? ", " : "", c[i]);
    if (n > 64 && used < len)
        snprintf(buf + used, len - used, ", ...");
    if (n == 0)
        snprintf(buf, len, "none");
    return buf;
}

size_t val_tigerbench_phase_names(const val_tigerbench_arch *a, const char **names, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < a->nphases; i++) {
        if (i > 0 && !strcmp(a->phases[i].phase, a->phases[i - 1].phase))
            continue; /* sorted by name order, so equal names are adjacent */
        if (n < max)
            names[n] = a->phases[i].phase;
        n++;
    }
    return n;
}

const val_tigerbench_phase *val_tigerbench_phase_get(const val_tigerbench_arch *a,
                                                     const char *phase, long concurrency)
{
    for (size_t i = 0; i < a->nphases; i++)
        if (a->phases[i].concurrency == concurrency && !strcmp(a->phases[i].phase, phase))
            return &a->phases[i];
    return NULL;
}

const val_tigerbench_kind *val_tigerbench_kind_get(const val_tigerbench_arch *a,
                                                   const char *kind, long concurrency)
{
    for (size_t i = 0; i < a->nkinds; i++)
        if (a->kinds[i].concurrency == concurrency && !strcmp(a->kinds[i].kind, kind))
            return &a->kinds[i];
    return NULL;
}

size_t val_tigerbench_phase_kinds(const char *phase, const char **kinds, size_t max)
{
    static const char *const checkout[] = {"accounting.hold", "paymentsession.save"};
    static const char *const webhook[] = {"paymentsession.get", "paymentsession.fulfill",
                                          "accounting.commit_order", "db.add_order",
                                          "paymentsession.remove_pending"};
    static const char *const reserve[] = {"accounting.hold"};
    static const char *const commit[] = {"accounting.commit_order"};
    const char *const *v = NULL;
    size_t n = 0;
    if (!strcmp(phase, "checkout"))
        v = checkout, n = 2;
    else if (!strcmp(phase, "webhook"))
        v = webhook, n = 5;
    else if (!strcmp(phase, "reserve"))
        v = reserve, n = 1;
    else if (!strcmp(phase, "commit"))
        v = commit, n = 1;
    for (size_t i = 0; i < n && i < max; i++)
        kinds[i] = v[i];
    return n;
}

int val_tigerbench_phase_is_window(const char *phase)
{
    return !strcmp(phase, "checkout") || !strcmp(phase, "reserve");
}
