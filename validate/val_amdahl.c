/* val_amdahl: the seed's Amdahl analysis (see the header).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include "validate/val_amdahl.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void val_amdahl_in_init(val_amdahl_in *in)
{
    memset(in, 0, sizeof *in);
    snprintf(in->base_name, sizeof in->base_name, "baseline");
    snprintf(in->target_name, sizeof in->target_name, "target");
    in->base_total = in->target_total = NAN;
    in->base_serial = in->target_serial = in->request_time = NAN;
    in->base_x = in->target_x = in->base_reserve_x = in->target_reserve_x = NAN;
    in->serial_listed = NAN;
    in->rounding = VAL_AMDAHL_EXACT;
    in->concurrency = 1;
    in->workers = 1;
    in->think_time = 0;
    in->tolerance = 0.10;
}

/* Round to dp decimals when doing the seed's arithmetic. */
static double rnd(double v, int dp, int seed)
{
    if (!seed || !isfinite(v))
        return v;
    double f = pow(10, dp);
    return round(v * f) / f;
}

int val_amdahl_compute(const val_amdahl_in *in, val_amdahl_out *out, sim_err *err)
{
    if (in->ncomp == 0)
        return sim_err_set(err, SIM_EINPUT, "no components: give at least one with a baseline "
                                            "and a target time");
    assert(in->ncomp <= VAL_AMDAHL_MAX_COMP);
    double sb = 0, st = 0;
    for (size_t i = 0; i < in->ncomp; i++) {
        const val_amdahl_comp *c = &in->comp[i];
        if (!(c->base > 0 && isfinite(c->base)) || !(c->target > 0 && isfinite(c->target)))
            return sim_err_set(err, SIM_EINPUT,
                               "component %s: baseline and target times must be > 0 (got %g s, "
                               "%g s)",
                               c->name, c->base, c->target);
        sb += c->base;
        st += c->target;
    }
    double T = isnan(in->base_total) ? sb : in->base_total;
    double T2 = isnan(in->target_total) ? st : in->target_total;
    if (T < sb * (1 - 1e-9))
        return sim_err_set(err, SIM_EINPUT,
                           "baseline total %g ms is smaller than the sum of its components %g ms",
                           T * 1e3, sb * 1e3);
    if (T2 < st * (1 - 1e-9))
        return sim_err_set(err, SIM_EINPUT,
                           "target total %g ms is smaller than the sum of its components %g ms",
                           T2 * 1e3, st * 1e3);
    int seed = in->rounding == VAL_AMDAHL_SEED;
    memset(out, 0, sizeof *out);
    out->ncomp = in->ncomp;
    out->base_total = T;
    out->target_total = T2;
    double psum = 0, terms = 0;
    for (size_t i = 0; i < in->ncomp; i++) {
        const val_amdahl_comp *c = &in->comp[i];
        double P = rnd(c->base / T, 3, seed);
        if (seed && i + 1 == in->ncomp)
            P = rnd(1 - psum, 3, seed); /* the seed's P_total = 1 */
        double S = rnd(c->base / c->target, 2, seed);
        double term = rnd(P / S, 3, seed), rest = rnd(1 - P, 3, seed);
        out->share[i] = P;
        out->speedup[i] = S;
        out->predicted[i] = rnd(1 / (rest + term), 2, seed);
        psum += P;
        terms += term;
    }
    out->serial_fraction = rnd(1 - psum, 3, seed);
    if (out->serial_fraction < 1e-12)
        out->serial_fraction = 0; /* shares that sum to 1 up to rounding */
    out->combined = rnd(1 / (out->serial_fraction + terms), 2, seed);
    out->combined_serial =
        rnd((in->base_serial + T) / (in->target_serial + T2), 2, seed);
    out->component_speedup = rnd(T / T2, 2, seed);
    out->throughput_speedup = rnd(in->target_x / in->base_x, 2, seed);
    out->reserve_speedup = rnd(in->target_reserve_x / in->base_reserve_x, 2, seed);
    double rt = isnan(in->request_time) ? in->target_serial + T2 : in->request_time;
    out->serial_ratio = rnd(in->target_serial / rt, 2, seed);
    out->ceiling = rnd(1 / out->serial_ratio, 1, seed);
    out->total = rnd(out->component_speedup * out->ceiling, 1, seed);
    return SIM_OK;
}

/* ---- configuration ---- */

const sim_cfg_key val_amdahl_schema[] = {
    {"amdahl", "rounding", SIM_CFG_ENUM, "exact", 0, 0, "exact|seed", NULL,
     "exact: full precision; seed: round every printed figure as the seed does by hand"},
    {"amdahl", "baseline", SIM_CFG_STR, "baseline", 0, 0, NULL, NULL, "label of the baseline"},
    {"amdahl", "target", SIM_CFG_STR, "target", 0, 0, NULL, NULL, "label of the target"},
    {"component.*", "baseline", SIM_CFG_DUR, NULL, 0, 0, NULL, "s",
     "time per request of this component in the baseline (required, > 0)"},
    {"component.*", "target", SIM_CFG_DUR, NULL, 0, 0, NULL, "s",
     "time per request of this component in the target (required, > 0)"},
    {"baseline", "total", SIM_CFG_DUR, NULL, 0, 0, NULL, "s",
     "component time per request (optional; default: sum of the components)"},
    {"baseline", "serial", SIM_CFG_DUR, NULL, 0, 0, NULL, "s",
     "serial event-loop time per request (optional)"},
    {"baseline", "throughput", SIM_CFG_RATE, NULL, 0, 0, NULL, "1/s",
     "measured checkout throughput (optional)"},
    {"baseline", "reserve_throughput", SIM_CFG_RATE, NULL, 0, 0, NULL, "1/s",
     "measured reserve throughput (optional)"},
    {"target", "total", SIM_CFG_DUR, NULL, 0, 0, NULL, "s",
     "component time per request (optional; default: sum of the components)"},
    {"target", "serial", SIM_CFG_DUR, NULL, 0, 0, NULL, "s",
     "serial event-loop time per request (optional; needed for the ceiling)"},
    {"target", "request_time", SIM_CFG_DUR, NULL, 0, 0, NULL, "s",
     "time per request for the ceiling (optional; default: serial + total)"},
    {"target", "throughput", SIM_CFG_RATE, NULL, 0, 0, NULL, "1/s",
     "measured checkout throughput (optional)"},
    {"target", "reserve_throughput", SIM_CFG_RATE, NULL, 0, 0, NULL, "1/s",
     "measured reserve throughput (optional)"},
    {"laws", "concurrency", SIM_CFG_INT, "1", 1, 1e6, NULL, "requests",
     "requests in flight (closed loop) for Little's law and the bounds"},
    {"laws", "workers", SIM_CFG_INT, "1", 1, 1024, NULL, "processes",
     "event-loop processes (servers of the serial station)"},
    {"laws", "think_time", SIM_CFG_DUR, "0", 0, 3600, NULL, "s", "think time Z of the closed loop"},
    {"laws", "tolerance", SIM_CFG_NUM, "0.1", 0, 1, NULL, NULL,
     "relative tolerance before a law check reports a finding"},
    {"laws", "serial_listed", SIM_CFG_DUR, NULL, 0, 0, NULL, "s",
     "another estimate of the target's serial time per request (optional)"},
};
const size_t val_amdahl_schema_len = sizeof val_amdahl_schema / sizeof val_amdahl_schema[0];

#define SCH val_amdahl_schema, val_amdahl_schema_len

/* A time or rate that must be > 0; absent: NaN when optional, an error
 * otherwise. */
static int positive(const sim_cfg *c, const char *name, const char *sec, const char *key,
                    int required, double *out, sim_err *err)
{
    *out = NAN;
    const sim_cfg_entry *e = sim_cfg_find(c, sec, key);
    if (!e) {
        if (!required)
            return SIM_OK;
        return sim_err_set(err, SIM_EINPUT, "%s: %s.%s: required key is missing", name, sec, key);
    }
    if (sim_cfg_num(c, SCH, sec, key, out, err))
        return err->code;
    if (!(*out > 0)) {
        char w[512];
        return sim_err_set(err, SIM_EINPUT, "%s: %s.%s: must be > 0, got '%s'",
                           sim_cfg_where(c, sec, key, w, sizeof w), sec, key, e->value);
    }
    return SIM_OK;
}

int val_amdahl_from_cfg(const sim_cfg *c, const char *name, val_amdahl_in *in, sim_err *err)
{
    val_amdahl_in_init(in);
    if (sim_cfg_check(c, SCH, err))
        return err->code;
    const char *s;
    if (sim_cfg_str(c, SCH, "amdahl", "rounding", &s, err))
        return err->code;
    in->rounding = !strcmp(s, "seed") ? VAL_AMDAHL_SEED : VAL_AMDAHL_EXACT;
    if (sim_cfg_str(c, SCH, "amdahl", "baseline", &s, err))
        return err->code;
    snprintf(in->base_name, sizeof in->base_name, "%s", s);
    if (sim_cfg_str(c, SCH, "amdahl", "target", &s, err))
        return err->code;
    snprintf(in->target_name, sizeof in->target_name, "%s", s);

    const char *secs[VAL_AMDAHL_MAX_COMP + 1];
    size_t n = sim_cfg_sections(c, "component.*", secs, VAL_AMDAHL_MAX_COMP + 1);
    if (n == 0)
        return sim_err_set(err, SIM_EINPUT,
                           "%s: no [component.NAME] section: give at least one component with "
                           "baseline and target times",
                           name);
    if (n > VAL_AMDAHL_MAX_COMP) {
        char w[512];
        return sim_err_set(err, SIM_EINPUT, "%s: [%s]: more than %d components",
                           sim_cfg_where(c, secs[n - 1], "baseline", w, sizeof w), secs[n - 1],
                           VAL_AMDAHL_MAX_COMP);
    }
    for (size_t i = 0; i < n; i++) {
        val_amdahl_comp *k = &in->comp[i];
        snprintf(k->name, sizeof k->name, "%s", secs[i] + strlen("component."));
        if (positive(c, name, secs[i], "baseline", 1, &k->base, err) ||
            positive(c, name, secs[i], "target", 1, &k->target, err))
            return err->code;
    }
    in->ncomp = n;
    if (positive(c, name, "baseline", "total", 0, &in->base_total, err) ||
        positive(c, name, "baseline", "serial", 0, &in->base_serial, err) ||
        positive(c, name, "baseline", "throughput", 0, &in->base_x, err) ||
        positive(c, name, "baseline", "reserve_throughput", 0, &in->base_reserve_x, err) ||
        positive(c, name, "target", "total", 0, &in->target_total, err) ||
        positive(c, name, "target", "serial", 0, &in->target_serial, err) ||
        positive(c, name, "target", "request_time", 0, &in->request_time, err) ||
        positive(c, name, "target", "throughput", 0, &in->target_x, err) ||
        positive(c, name, "target", "reserve_throughput", 0, &in->target_reserve_x, err) ||
        positive(c, name, "laws", "serial_listed", 0, &in->serial_listed, err))
        return err->code;
    long conc, workers;
    if (sim_cfg_int(c, SCH, "laws", "concurrency", &conc, err) ||
        sim_cfg_int(c, SCH, "laws", "workers", &workers, err) ||
        sim_cfg_num(c, SCH, "laws", "think_time", &in->think_time, err) ||
        sim_cfg_num(c, SCH, "laws", "tolerance", &in->tolerance, err))
        return err->code;
    in->concurrency = (double)conc;
    in->workers = (int)workers;
    /* a given total below its components is an input error: name it */
    double sb = 0, st = 0;
    for (size_t i = 0; i < n; i++)
        sb += in->comp[i].base, st += in->comp[i].target;
    char w[512];
    if (in->base_total < sb * (1 - 1e-9))
        return sim_err_set(err, SIM_EINPUT,
                           "%s: baseline.total: %g ms is smaller than the sum of the components' "
                           "baseline times (%g ms)",
                           sim_cfg_where(c, "baseline", "total", w, sizeof w),
                           in->base_total * 1e3, sb * 1e3);
    if (in->target_total < st * (1 - 1e-9))
        return sim_err_set(err, SIM_EINPUT,
                           "%s: target.total: %g ms is smaller than the sum of the components' "
                           "target times (%g ms)",
                           sim_cfg_where(c, "target", "total", w, sizeof w),
                           in->target_total * 1e3, st * 1e3);
    return SIM_OK;
}

/* ---- from TigerBench data ---- */

static int tb_side(const val_tigerbench *tb, const char *arch, long conc,
                   val_amdahl_reading reading, int is_target, val_amdahl_in *in, sim_err *err)
{
    static const char *const kinds[2] = {"accounting.hold", "paymentsession.save"};
    static const char *const names[2] = {"accounting", "sessions"};
    const val_tigerbench_arch *a;
    if (val_tigerbench_arch_get(tb, arch, &a, err))
        return err->code;
    double sum = 0;
    for (size_t i = 0; i < 2; i++) {
        const val_tigerbench_kind *k = val_tigerbench_kind_get(a, kinds[i], conc);
        if (!k) {
            char list[256];
            return sim_err_set(err, SIM_EINPUT,
                               "%s: %s has no kind:%s rows at concurrency %ld (its kind rows are "
                               "at concurrency %s)",
                               val_tigerbench_name(tb), arch, kinds[i], conc,
                               val_tigerbench_concurrency_list(a, VAL_TIGERBENCH_KIND_ROWS, list,
                                                               sizeof list));
        }
        double v = reading == VAL_AMDAHL_READ_SD ? k->sd_column : k->mean;
        if (!(v > 0))
            return sim_err_set(err, SIM_EINPUT,
                               "%s:%d: kind:%s of %s at concurrency %ld: the %s is %g, a time "
                               "must be > 0",
                               val_tigerbench_name(tb), k->line, kinds[i], arch, conc,
                               reading == VAL_AMDAHL_READ_SD ? "walltime column (sd)" : "mean", v);
        snprintf(in->comp[i].name, sizeof in->comp[i].name, "%s", names[i]);
        if (is_target)
            in->comp[i].target = v;
        else
            in->comp[i].base = v;
        sum += v;
    }
    const val_tigerbench_phase *co = val_tigerbench_phase_get(a, "checkout", conc);
    const val_tigerbench_phase *re = val_tigerbench_phase_get(a, "reserve", conc);
    double x = co ? co->x_mean : NAN, xr = re ? re->x_mean : NAN;
    /* the seed's inference: time per request minus the measured components */
    double serial = co && co->x_mean > 0 ? (double)conc / co->x_mean - sum : NAN;
    if (!(serial > 0))
        serial = NAN;
    if (is_target) {
        in->target_x = x;
        in->target_reserve_x = xr;
        in->target_serial = isnan(serial) ? in->base_serial : serial;
        snprintf(in->target_name, sizeof in->target_name, "%s", arch);
    } else {
        in->base_x = x;
        in->base_reserve_x = xr;
        in->base_serial = serial;
        snprintf(in->base_name, sizeof in->base_name, "%s", arch);
    }
    return SIM_OK;
}

int val_amdahl_from_tigerbench(const val_tigerbench *tb, const char *base, const char *target,
                               long concurrency, val_amdahl_reading reading, val_amdahl_in *in,
                               sim_err *err)
{
    val_amdahl_in_init(in);
    in->ncomp = 2;
    in->concurrency = (double)concurrency;
    if (tb_side(tb, base, concurrency, reading, 0, in, err) ||
        tb_side(tb, target, concurrency, reading, 1, in, err))
        return err->code;
    return SIM_OK;
}

/* ---- laws ---- */

static double comp_sum(const val_amdahl_in *in, int target)
{
    double s = 0;
    for (size_t i = 0; i < in->ncomp; i++)
        s += target ? in->comp[i].target : in->comp[i].base;
    return s;
}

static size_t side_laws(const val_amdahl_in *in, int target, val_laws_findings *f)
{
    const char *name = target ? in->target_name : in->base_name;
    double serial = target ? in->target_serial : in->base_serial;
    double x = target ? in->target_x : in->base_x;
    double total = target ? in->target_total : in->base_total;
    if (isnan(total))
        total = comp_sum(in, target);
    if (isnan(x) || !(x > 0))
        return 0;
    char subj[96];
    snprintf(subj, sizeof subj, "%s checkout", name);
    size_t k = 0;
    if (serial > 0)
        k += (size_t)val_laws_utilisation(f, subj, serial, in->workers, x, in->tolerance);
    double r = serial > 0 ? serial + total : total;
    k += (size_t)val_laws_little(f, subj, in->concurrency, 1, r,
                                 serial > 0 ? "serial + components" : "components only",
                                 in->think_time, x, in->tolerance);
    if (serial > 0) {
        val_laws_station st[2] = {{"event loop", serial, in->workers}, {"components", total, 0}};
        k += (size_t)val_laws_bounds(f, subj, in->concurrency, 1, st, 2, in->think_time, x,
                                     in->tolerance);
    }
    return k;
}

size_t val_amdahl_laws(const val_amdahl_in *in, val_laws_findings *f)
{
    size_t k = side_laws(in, 0, f);
    if (strcmp(in->base_name, in->target_name)) /* the same architecture twice: once */
        k += side_laws(in, 1, f);
    if (in->serial_listed > 0 && in->target_x > 0) {
        char subj[96];
        snprintf(subj, sizeof subj, "%s checkout (listed serial work)", in->target_name);
        k += (size_t)val_laws_utilisation(f, subj, in->serial_listed, in->workers, in->target_x,
                                          in->tolerance);
    }
    return k;
}

/* ---- table ---- */

typedef struct rowdef {
    const char *label; /* per component: appended to the component name */
    const char *unit;
    int comp;          /* per component */
} rowdef;

enum {
    R_BASE_T, R_TARGET_T, R_BTOTAL, R_TTOTAL, R_BSERIAL, R_TSERIAL, R_RT, R_BX, R_TX, R_BRX,
    R_TRX, R_P, R_S, R_PRED, R_SERIALF, R_COMB, R_COMBS, R_COMPSP, R_XSP, R_RSP, R_SRATIO, R_CEIL,
    R_TOTAL, NROWS
};

static const rowdef rows[NROWS] = {
    {" baseline", "ms", 1},          {" target", "ms", 1},
    {"baseline total", "ms", 0},       {"target total", "ms", 0},
    {"baseline serial", "ms", 0},      {"target serial", "ms", 0},
    {"request time (ceiling)", "ms", 0},
    {"baseline throughput", "1/s", 0}, {"target throughput", "1/s", 0},
    {"baseline reserve", "1/s", 0},    {"target reserve", "1/s", 0},
    {" P", "", 1},                   {" S", "x", 1},
    {" predicted", "x", 1},          {"serial fraction 1-sum(P)", "", 0},
    {"combined (Amdahl)", "x", 0},     {"combined incl. serial", "x", 0},
    {"component speedup", "x", 0},
    {"throughput speedup", "x", 0},    {"reserve speedup", "x", 0},
    {"serial / request time", "", 0},  {"ceiling (rest -> 0)", "x", 0},
    {"total from baseline", "x", 0},
};

static double value(const val_amdahl_in *in, const val_amdahl_out *o, int r, size_t i)
{
    double rt = isnan(in->request_time) ? in->target_serial + o->target_total : in->request_time;
    switch (r) {
    case R_BASE_T: return in->comp[i].base * 1e3;
    case R_TARGET_T: return in->comp[i].target * 1e3;
    case R_BTOTAL: return o->base_total * 1e3;
    case R_TTOTAL: return o->target_total * 1e3;
    case R_BSERIAL: return in->base_serial * 1e3;
    case R_TSERIAL: return in->target_serial * 1e3;
    case R_RT: return rt * 1e3;
    case R_BX: return in->base_x;
    case R_TX: return in->target_x;
    case R_BRX: return in->base_reserve_x;
    case R_TRX: return in->target_reserve_x;
    case R_P: return o->share[i];
    case R_S: return o->speedup[i];
    case R_PRED: return o->predicted[i];
    case R_SERIALF: return o->serial_fraction;
    case R_COMB: return o->combined;
    case R_COMBS: return o->combined_serial;
    case R_COMPSP: return o->component_speedup;
    case R_XSP: return o->throughput_speedup;
    case R_RSP: return o->reserve_speedup;
    case R_SRATIO: return o->serial_ratio;
    case R_CEIL: return o->ceiling;
    case R_TOTAL: return o->total;
    }
    return NAN;
}

void val_amdahl_table(const val_amdahl_in *const *in, const val_amdahl_out *const *out,
                      const char *const *cols, size_t k, const char *ratio_col, sim_table *t)
{
    assert(k >= 1);
    for (size_t j = 1; j < k; j++) {
        assert(in[j]->ncomp == in[0]->ncomp);
        for (size_t i = 0; i < in[0]->ncomp; i++)
            assert(!strcmp(in[j]->comp[i].name, in[0]->comp[i].name));
    }
    int cq = sim_table_col(t, "quantity", NULL), cu = sim_table_col(t, "unit", NULL);
    int cv[VAL_AMDAHL_MAX_COMP];
    assert(k <= VAL_AMDAHL_MAX_COMP);
    for (size_t j = 0; j < k; j++)
        cv[j] = sim_table_col(t, cols[j], NULL);
    int cr = ratio_col && k == 2 ? sim_table_col(t, ratio_col, "%.3g") : -1;
    /* consecutive per-component rows form a block, repeated per component */
    for (int r0 = 0; r0 < NROWS;) {
        int r1 = r0 + 1;
        while (rows[r0].comp && r1 < NROWS && rows[r1].comp)
            r1++;
        size_t nrep = rows[r0].comp ? in[0]->ncomp : 1;
        for (size_t i = 0; i < nrep; i++) {
            for (int r = r0; r < r1; r++) {
                char label[128];
                if (rows[r].comp)
                    snprintf(label, sizeof label, "%s%s", in[0]->comp[i].name, rows[r].label);
                else
                    snprintf(label, sizeof label, "%s", rows[r].label);
                sim_table_row(t);
                sim_table_str(t, cq, label);
                sim_table_str(t, cu, rows[r].unit);
                for (size_t j = 0; j < k; j++)
                    sim_table_num(t, cv[j], value(in[j], out[j], r, i));
                if (cr >= 0)
                    sim_table_num(t, cr, value(in[1], out[1], r, i) / value(in[0], out[0], r, i));
            }
        }
        r0 = r1;
    }
}
