/* Calibration and prediction (validate/val_calib, validate/val_predict):
 * the shipped data are those the embedded defaults were fitted on; a
 * stored calibration gives exactly what a fresh fit gives; the fit does
 * not depend on the threads; the light-load start finds a slower machine's
 * speed; a target whose hold timing is 4 times the baseline's at light
 * load is simulated against the database state that timing implies.
 * Fixed seeds throughout; tolerances stated where a figure is compared. */
#include "tests/test_util.h"

#include <unistd.h>

#include "models/tf_params.h"
#include "sim/sim_rng.h"
#include "validate/val_calib.h"
#include "validate/val_predict.h"

#define DATA "tests/data/calibration.csv"


/* Split buf at commas in place (empty fields kept); returns the count. */
static int split(char *buf, char **f, int max)
{
    int n = 0;
    f[n++] = buf;
    for (char *c = buf; *c && n < max; c++)
        if (*c == ',') {
            *c = '\0';
            f[n++] = c + 1;
        }
    return n;
}

/* Copy the header and the rows of the shipped data for which keep()
 * returns 1 (fields split at commas; f[2] phase, f[3] accounting, f[4]
 * payments, f[5] concurrency), each passed through edit() (may be NULL)
 * before it is written; returns the new file's path (static buffer). */
typedef int (*row_fn)(char **f);
static const char *filtered(const char *name, row_fn keep, row_fn edit)
{
    static char path[256];
    snprintf(path, sizeof path, "%s", test_dir_path(name));
    FILE *in = fopen(DATA, "r"), *out = fopen(path, "w");
    assert_non_null(in);
    assert_non_null(out);
    char line[1024];
    int first = 1;
    while (fgets(line, sizeof line, in)) {
        if (first) {
            fputs(line, out);
            first = 0;
            continue;
        }
        line[strcspn(line, "\r\n")] = '\0';
        char *f[16], buf[1024], num[2][64];
        snprintf(buf, sizeof buf, "%s", line);
        int n = split(buf, f, 16);
        assert_int_equal(n, 15);
        if (!keep(f))
            continue;
        if (edit) {
            snprintf(num[0], sizeof num[0], "%s", f[13]);
            snprintf(num[1], sizeof num[1], "%s", f[14]);
            f[13] = num[0];
            f[14] = num[1];
            edit(f);
        }
        for (int i = 0; i < 15; i++)
            fprintf(out, "%s%s", i ? "," : "", f[i]);
        fputc('\n', out);
    }
    fclose(in);
    fclose(out);
    return path;
}

/* The embedded defaults were fitted on the shipped pg_pg data: the data
 * hash tf_params.h records is the one val_calib computes from the file. */
static void test_shipped_data_hash(void **state)
{
    (void)state;
    val_calib_run_opts o;
    val_calib_run_opts_init(&o);
    o.file = DATA;
    o.arch = TF_PARAMS_CALIBRATED_ARCH;
    val_calibration *c = calloc(1, sizeof *c);
    sim_err err;
    sim_err_clear(&err);
    if (val_calib_prepare(&o, c, &err))
        fail_msg("%s", err.msg);
    if (strcmp(c->data_hash, TF_PARAMS_CALIBRATED_DATA))
        fail_msg("data hash %s, tf_params.h says %s: the data or their reading changed; "
                 "recalibrate the defaults and update TF_PARAMS_CALIBRATED_DATA",
                 c->data_hash, TF_PARAMS_CALIBRATED_DATA);
    val_calib_fini(c);
    free(c);
}

/* ---- an in-memory cache ---- */

typedef struct mem_cache {
    char key[17];
    double values[VAL_CALIB_MAX_PARAMS], objective;
    unsigned iters;
    size_t np;
    int saves, loads;
} mem_cache;

static int mem_load(void *ctx, const char *key, val_calib_param *params, size_t np,
                    double *objective, unsigned *iters, sim_err *err)
{
    (void)err;
    mem_cache *m = ctx;
    m->loads++;
    if (strcmp(m->key, key) || m->np != np)
        return 0;
    for (size_t i = 0; i < np; i++)
        params[i].value = m->values[i];
    *objective = m->objective;
    *iters = m->iters;
    return 1;
}

static int mem_save(void *ctx, const val_calibration *c, sim_err *err)
{
    (void)err;
    mem_cache *m = ctx;
    snprintf(m->key, sizeof m->key, "%s", c->key);
    for (size_t i = 0; i < c->np; i++)
        m->values[i] = c->params[i].value;
    m->np = c->np;
    m->objective = c->objective;
    m->iters = c->iters;
    m->saves++;
    return SIM_OK;
}

static int pg_pg_low(char **f)
{
    return !strcmp(f[3], "pg") && !strcmp(f[4], "pg") && (!strcmp(f[5], "1") || !strcmp(f[5], "10"));
}

static void quick(val_calib_run_opts *o, const char *file)
{
    val_calib_run_opts_init(o);
    o->file = file;
    o->arch = "pg_pg";
    o->fit = "client.cpu,server.cpu_request,postgres.query_cpu";
    o->fit_opts.max_iter = 6;
    o->fit_opts.reps = 1;
}

/* A calibration read back from the cache is the fresh one, to the bit:
 * fitted values, objective and every simulated point. */
static void test_cached_equals_fresh(void **state)
{
    (void)state;
    const char *file = filtered("low.csv", pg_pg_low, NULL);
    mem_cache m = {0};
    val_calib_cache cache = {mem_load, mem_save, &m};
    val_calib_run_opts o;
    quick(&o, file);
    o.cache = &cache;
    val_calibration *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    sim_err err;
    sim_err_clear(&err);
    if (val_calib_run(&o, a, &err))
        fail_msg("%s", err.msg);
    assert_false(a->cached);
    assert_int_equal(m.saves, 1);
    assert_true(a->evals > 0);
    if (val_calib_run(&o, b, &err))
        fail_msg("%s", err.msg);
    assert_true(b->cached);
    assert_int_equal(b->evals, 0);
    assert_int_equal(m.saves, 1);
    assert_string_equal(a->key, b->key);
    for (size_t i = 0; i < a->np; i++)
        assert_true(a->params[i].value == b->params[i].value);
    assert_true(a->objective == b->objective);
    assert_int_equal(a->npts, b->npts);
    assert_memory_equal(a->sims, b->sims, a->npts * sizeof a->sims[0]);
    /* another key (more iterations) is a miss */
    o.fit_opts.max_iter = 7;
    val_calib_fini(b);
    if (val_calib_run(&o, b, &err))
        fail_msg("%s", err.msg);
    assert_false(b->cached);
    assert_string_not_equal(a->key, b->key);
    val_calib_fini(a);
    val_calib_fini(b);
    free(a);
    free(b);
}

/* The fit is the same on 1 thread and on 3, also when it runs long
 * enough for the stall rule and the restarts (a fit of 2 points restarts
 * its simplex; the stall rule once read GSL's fval before it was set). */
static void test_jobs_do_not_matter(void **state)
{
    (void)state;
    const char *file = filtered("low.csv", pg_pg_low, NULL);
    val_calibration *c[2] = {calloc(1, sizeof **c), calloc(1, sizeof **c)};
    for (int j = 0; j < 2; j++) {
        val_calib_run_opts o;
        quick(&o, file);
        o.fit_opts.max_iter = 60;
        o.fit_opts.jobs = j ? 3 : 1;
        sim_err err;
        sim_err_clear(&err);
        if (val_calib_run(&o, c[j], &err))
            fail_msg("%s", err.msg);
    }
    for (size_t i = 0; i < c[0]->np; i++)
        assert_true(c[0]->params[i].value == c[1]->params[i].value);
    assert_memory_equal(c[0]->sims, c[1]->sims, c[0]->npts * sizeof c[0]->sims[0]);
    assert_int_equal(c[0]->iters, c[1]->iters);
    assert_int_equal(c[0]->evals, c[1]->evals);
    assert_true(c[0]->iters > 10); /* past the stall rule's window */
    assert_true(c[0]->objective == c[1]->objective);
    for (int j = 0; j < 2; j++) {
        val_calib_fini(c[j]);
        free(c[j]);
    }
}

/* Data of a machine 1.8 times slower (every throughput / 1.8, every
 * timing x 1.8): the start from the light-load demands scales the fitted
 * costs by 1.8 (within 15%: the model's light-load response is not exactly
 * proportional to its CPU costs, the round trips and flushes stay). */
static int slower(char **f)
{
    static char a[64], b[64];
    double w = atof(f[13]), x = atof(f[14]);
    if (!strncmp(f[2], "kind:", 5)) {
        if (!strcmp(f[2], "kind:tb.batch_size"))
            return 1;
        snprintf(a, sizeof a, "%.9g", w * 1.8);
        snprintf(b, sizeof b, "%.9g", x * 1.8);
    } else {
        snprintf(a, sizeof a, "%.9g", w * 1.8);
        snprintf(b, sizeof b, "%.9g", x / 1.8);
    }
    f[13] = a;
    f[14] = b;
    return 1;
}

static void test_light_start(void **state)
{
    (void)state;
    const char *file = filtered("slow.csv", pg_pg_low, slower);
    val_calib_run_opts o;
    val_calib_run_opts_init(&o);
    o.file = file;
    o.arch = "pg_pg";
    val_calibration *c = calloc(1, sizeof *c);
    sim_err err;
    sim_err_clear(&err);
    if (val_calib_prepare(&o, c, &err))
        fail_msg("%s", err.msg);
    /* client.cpu_scale multiplies the client's demands: scaled with them */
    assert_string_equal(c->params[0].key, "client.cpu_scale");
    double start = c->params[0].value;
    int which[VAL_CALIB_MAX_PARAMS];
    for (size_t i = 0; i < c->np; i++) {
        const tf_param *r = tf_params_find(c->params[i].key);
        which[i] = r->demand;
    }
    double f;
    unsigned evals = 0;
    /* the lowest concurrency's point, as the light start takes it */
    if (val_calib_scale(c->cfg, c->params, c->np, which, &c->pts[0], 1, &c->fit_opts, 4, &f,
                        &evals, &err))
        fail_msg("%s", err.msg);
    printf("  scale %.3f after %u evaluations\n", f, evals);
    assert_rel(f, 1.8, 0.15);
    assert_rel(c->params[0].value, start * f, 1e-9);
    val_calib_fini(c);
    free(c);
}

/* With refit_shared, the target's hold at light load 4 times the
 * baseline's: the rows its timing implies follow from the model's cost law at light load (a hold's
 * sums cost scan_fraction x row_cost per row, nothing else grows with
 * rows): 3 x the baseline's simulated hold / (scan_fraction x row_cost)
 * more rows than the baseline's state (within 10%: the hold's own CPU
 * jitter and the fit's tolerance), and every predicted point runs on the
 * series' rows plus that difference. */
static int pg_pg_low_and_pg_redis(char **f)
{
    return pg_pg_low(f) || (!strcmp(f[3], "pg") && !strcmp(f[4], "redis"));
}

/* The shipped pg_pg points at low concurrency and pg_redis's light-load
 * timings, with pg_redis's hold x `factor` of pg_pg's mean at concurrency
 * 1 (4.826 ms); returns the path (static buffer) and pg_pg's mean hold. */
static const char *hold_file(const char *name, double factor, double *base_hold_out)
{
    const char *file = filtered(name, pg_pg_low_and_pg_redis, NULL);
    static char path[256];
    snprintf(path, sizeof path, "%s", file);
    /* rewrite pg_redis's hold rows */
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *in = fopen(path, "r"), *out = fopen(tmp, "w");
    assert_non_null(in);
    assert_non_null(out);
    char line[1024];
    double base_hold = 0;
    int nb = 0;
    while (fgets(line, sizeof line, in)) {
        char *f[16], buf[1024];
        snprintf(buf, sizeof buf, "%s", line);
        buf[strcspn(buf, "\r\n")] = '\0';
        int n = split(buf, f, 16);
        if (n == 15 && !strcmp(f[2], "kind:accounting.hold") && !strcmp(f[5], "1") &&
            !strcmp(f[4], "pg")) {
            base_hold += atof(f[14]);
            nb++;
        }
    }
    assert_int_equal(nb, 3);
    base_hold /= nb;
    rewind(in);
    while (fgets(line, sizeof line, in)) {
        char *f[16], buf[1024];
        snprintf(buf, sizeof buf, "%s", line);
        buf[strcspn(buf, "\r\n")] = '\0';
        int n = split(buf, f, 16);
        if (n == 15 && !strcmp(f[2], "kind:accounting.hold") && !strcmp(f[4], "redis")) {
            char v[64];
            snprintf(v, sizeof v, "%.9g", factor * base_hold);
            f[14] = v;
            for (int i = 0; i < 15; i++)
                fprintf(out, "%s%s", i ? "," : "", f[i]);
            fputc('\n', out);
        } else {
            fputs(line, out);
        }
    }
    fclose(in);
    fclose(out);
    rename(tmp, path);
    *base_hold_out = base_hold;
    return path;
}

/* Predict target from pg_pg.ini's values on file; p: caller storage
 * (val_predict_fini). */
static void predict_from_pg_pg(const char *path, const char *target, int refit_shared,
                               val_prediction *p)
{
    val_predict_opts o;
    val_predict_opts_init(&o);
    o.base.file = path;
    o.base.arch = "pg_pg";
    o.base.config = "configs/tigerfans/pg_pg.ini";
    o.target = target;
    o.reps = 2;
    o.refit_shared = refit_shared;
    sim_err err;
    sim_err_clear(&err);
    if (val_predict_run(&o, p, &err))
        fail_msg("%s", err.msg);
    for (size_t i = 0; i < p->nnotes; i++)
        printf("  note: %s\n", p->notes[i]);
}

static void test_hold_gives_the_state(void **state)
{
    (void)state;
    double base_hold;
    const char *path = hold_file("x4.csv", 4, &base_hold);
    val_prediction *p = calloc(1, sizeof *p);
    predict_from_pg_pg(path, "pg_redis", 1, p);
    sim_err err;
    /* the fitted state reproduces the target's (relative) hold */
    double want_hold = p->own.pts[0].kind[TF_K_HOLD], got_hold = p->own.sims[0].kind[TF_K_HOLD];
    assert_rel(got_hold, want_hold, 0.03);
    /* ... and is the cost law's: 3 x the baseline's simulated hold per row cost */
    double row = 0, scan = 0;
    sim_err_clear(&err);
    assert_int_equal(val_calib_value(p->own.cfg, "postgres.row_cost", &row, NULL, 0, &err), SIM_OK);
    assert_int_equal(val_calib_value(p->own.cfg, "postgres.scan_fraction", &scan, NULL, 0, &err),
                     SIM_OK);
    double base_sim = base_hold * p->rel[TF_K_HOLD];
    double expect = 3 * base_sim / (scan * row);
    printf("  rows: series %.0f, timing %.0f, expected difference %.0f, found %.0f\n",
           p->rows_series, p->rows_timing, expect, p->rows_timing - p->rows_series);
    /* the baseline's state at concurrency 1 and the target's differ by the
     * baseline's repetitions there; the expected difference counts from the
     * baseline's state */
    double base_rows = 4000; /* pg_pg's middle repetition at concurrency 1: one before it */
    assert_rel(p->rows_timing - base_rows, expect, 0.10);
    double shift = p->rows_timing - p->rows_series;
    for (size_t i = 0; i < p->n; i++) {
        double rows, goodies;
        assert_int_equal(val_series_state(&p->base.series, "pg_redis", p->pts[i].concurrency, &rows,
                                          &goodies, NULL, NULL, &err),
                         SIM_OK);
        assert_close(p->pts[i].holds_rows, rows + shift, 1e-6);
    }
    val_predict_fini(p);
    free(p);
}

/* By default a component the baseline runs too keeps the baseline's
 * values and the series' state: pg_redis's PostgreSQL statements and holds
 * table are pg_pg's, so its hold at light load 4 times pg_pg's changes
 * nothing (every predicted throughput the same as with the hold as
 * measured, to the bit: the same seeds), while its own component, Redis,
 * is still fitted from its session timings. */
static void test_shared_keeps_the_baseline(void **state)
{
    (void)state;
    double base_hold;
    val_prediction *p[2] = {calloc(1, sizeof *p[0]), calloc(1, sizeof *p[1])};
    predict_from_pg_pg(hold_file("x4s.csv", 4, &base_hold), "pg_redis", 0, p[0]);
    predict_from_pg_pg(hold_file("x1s.csv", 1, &base_hold), "pg_redis", 0, p[1]);
    for (int j = 0; j < 2; j++) {
        assert_int_equal(p[j]->shared, TF_OWN_PG | TF_OWN_PG_ACCOUNTING);
        int redis = 0;
        for (size_t i = 0; i < p[j]->own.np; i++) {
            assert_string_not_equal(p[j]->own.params[i].key, "postgres.query_cpu");
            assert_string_not_equal(p[j]->own.params[i].key, "postgres.holds_rows");
            redis |= !strcmp(p[j]->own.params[i].key, "redis.loop_cpu");
        }
        assert_true(redis);
        assert_true(p[j]->rows_timing == p[j]->rows_series);
        int said = 0;
        for (size_t i = 0; i < p[j]->nnotes; i++)
            said |= strstr(p[j]->notes[i], "pg_redis runs PostgreSQL's statements, PostgreSQL "
                                            "accounting and its holds table as pg_pg does") != NULL;
        assert_true(said);
    }
    assert_int_equal(p[0]->n, p[1]->n);
    sim_err err;
    sim_err_clear(&err);
    for (size_t i = 0; i < p[0]->n; i++) {
        double rows, goodies;
        assert_int_equal(val_series_state(&p[0]->base.series, "pg_redis", p[0]->pts[i].concurrency,
                                          &rows, &goodies, NULL, NULL, &err),
                         SIM_OK);
        assert_true(p[0]->pts[i].holds_rows == rows);
        for (int k = 0; k < TF_NPHASES; k++)
            assert_true(p[0]->pts[i].thr[k] == p[1]->pts[i].thr[k]);
    }
    for (int j = 0; j < 2; j++) {
        val_predict_fini(p[j]);
        free(p[j]);
    }
}

/* AUTO's two fits: within a quarter (either way round) they are close and
 * the percentage is the larger over the smaller; from a quarter on, or
 * with an objective that is zero, negative or not finite, not close. */
/* The band (step 6): the baseline's own points simulated at its
 * calibration as the target is.  Predicting pg_pg from itself (its values
 * from pg_pg.ini) simulates the same points with the same seeds, so the
 * band's errors must be the self-prediction's to the last bit; the root
 * mean square is at least the mean absolute error; the table's band is the
 * prediction -+ 1.645 x that x sqrt(n / (n - k)) for k fitted values. */
static void test_band_is_the_self_prediction(void **state)
{
    (void)state;
    val_prediction *p = malloc(sizeof *p);
    assert_non_null(p);
    predict_from_pg_pg(DATA, "pg_pg", 0, p);
    assert_int_equal(p->base_mape.n, 44); /* 11 concurrencies from 5 on, 4 phases */
    assert_int_equal(p->base_mape.n, p->mape_sim.n);
    assert_true(sim_mape_mean(&p->base_mape) == sim_mape_mean(&p->mape_sim));
    assert_true(p->base_mape.max == p->mape_sim.max);
    assert_int_equal(p->base_from, 5);
    assert_true(p->base_rms > 0.01 && p->base_rms < 0.5);
    assert_true(100 * p->base_rms >= sim_mape_mean(&p->base_mape));
    assert_true(fabs(p->base_worst_err) == p->base_mape.max);
    /* 12 concurrencies x 4 phases measured, pg_pg.ini's values for the
     * registry's fitted keys */
    assert_int_equal(p->base_n, 48);
    assert_int_equal(p->fits, 1); /* a given baseline: one fit, whatever opts.fits says */
    assert_true(p->base.np >= 1 && (long)p->base.np < p->base_n);
    assert_true(p->band == VAL_PREDICT_BAND_Z * p->base_rms *
                               sqrt(48.0 / (double)(48 - (long)p->base.np)));
    sim_table *t = sim_table_new("predict");
    val_predict_table(p, t);
    int cx = sim_table_find_col(t, "throughput"), clo = sim_table_find_col(t, "band_low");
    int chi = sim_table_find_col(t, "band_high");
    assert_true(cx >= 0 && clo >= 0 && chi >= 0);
    assert_int_equal(sim_table_nrows(t), 48);
    double w = p->band;
    for (int r = 0; r < sim_table_nrows(t); r++) {
        double x, lo, hi;
        const char *sv;
        assert_int_equal(sim_table_cell(t, r, cx, &x, &sv), 1);
        assert_int_equal(sim_table_cell(t, r, clo, &lo, &sv), 1);
        assert_int_equal(sim_table_cell(t, r, chi, &hi, &sv), 1);
        assert_true(lo == fmax(0, x * (1 - w)) && hi == x * (1 + w) && lo < x && x < hi);
    }
    sim_table_free(t);
    val_predict_fini(p);
    free(p);
}

/* pg_pg at concurrency 1 and 10, and every row of the other
 * architectures (their light-load timings). */
static int pg_pg_low_and_targets(char **f)
{
    return !(!strcmp(f[3], "pg") && !strcmp(f[4], "pg")) || pg_pg_low(f);
}

/* A prediction from a quick fit of pg_pg (seed, fits), the client
 * 1.0's; p: caller storage (val_predict_fini). */
static void predict_fitted(const char *file, uint64_t seed, unsigned fits, val_prediction *p)
{
    val_predict_opts o;
    val_predict_opts_init(&o);
    quick(&o.base, file);
    o.base.fit_opts.seed = seed;
    o.target = "tb_redis";
    o.reps = 2;
    o.client = VAL_PREDICT_CLIENT_CONFIG;
    o.fits = fits;
    sim_err err;
    sim_err_clear(&err);
    if (val_predict_run(&o, p, &err))
        fail_msg("%s", err.msg);
}

/* An ensemble of two fits (step 7) is the mean of the two one-fit
 * predictions from its seeds, to the bit: every point's throughput and
 * busy shares, the baseline's simulated points the band is scored on;
 * fit_low..fit_high their least and greatest; the objectives are theirs.
 * The two seeds' fits differ (else the test would prove nothing). */
static void test_fits_are_averaged(void **state)
{
    (void)state;
    const char *file = filtered("low_targets.csv", pg_pg_low_and_targets, NULL);
    val_prediction *e = calloc(1, sizeof *e), *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    predict_fitted(file, 5, 2, e);
    predict_fitted(file, 5, 1, a);
    predict_fitted(file, 6, 1, b);
    assert_int_equal(e->fits, 2);
    assert_int_equal(a->fits, 1);
    assert_true(e->fit_obj[0] == a->base.objective && e->fit_obj[1] == b->base.objective);
    assert_int_equal(e->n, a->n);
    assert_true(e->n >= 2);
    int differ = 0;
    for (size_t i = 0; i < e->n; i++)
        for (int ph = 0; ph < TF_NPHASES; ph++) {
            double x = a->pts[i].thr[ph], y = b->pts[i].thr[ph];
            differ |= x != y;
            assert_true(e->pts[i].thr[ph] == (x + y) / 2);
            assert_true(e->pts[i].fit_lo[ph] == fmin(x, y) && e->pts[i].fit_hi[ph] == fmax(x, y));
            assert_true(a->pts[i].fit_lo[ph] == x && a->pts[i].fit_hi[ph] == x);
            for (int l = 0; l < 2; l++)
                assert_true(e->pts[i].busy[l][ph] ==
                            (a->pts[i].busy[l][ph] + b->pts[i].busy[l][ph]) / 2);
        }
    assert_true(differ);
    for (size_t k = 0; k < e->base.npts; k++)
        for (int ph = 0; ph < TF_NPHASES; ph++)
            if (!isnan(a->base_thr[k][ph]))
                assert_true(e->base_thr[k][ph] == (a->base_thr[k][ph] + b->base_thr[k][ph]) / 2);
    int said = 0;
    for (size_t i = 0; i < e->nnotes; i++)
        said |= strstr(e->notes[i], "2 fits from seeds 5-6") != NULL;
    assert_true(said);
    sim_table *t = sim_table_new("predict");
    val_predict_table(e, t);
    assert_true(sim_table_find_col(t, "fit_low") >= 0 && sim_table_find_col(t, "fit_high") >= 0);
    sim_table_free(t);
    t = sim_table_new("predict");
    val_predict_table(a, t);
    assert_true(sim_table_find_col(t, "fit_low") < 0);
    sim_table_free(t);
    val_predict_fini(e);
    val_predict_fini(a);
    val_predict_fini(b);
    free(e);
    free(a);
    free(b);
}

static void test_clients_close(void **state)
{
    (void)state;
    assert_true(fabs(val_predict_clients_close(0.12867, 0.14177) - 10.18) < 0.01);
    assert_true(fabs(val_predict_clients_close(0.14177, 0.12867) - 10.18) < 0.01);
    assert_true(val_predict_clients_close(1.0, 1.0) == 0);
    assert_true(fabs(val_predict_clients_close(1.0, 1.2499) - 24.99) < 1e-9);
    assert_true(val_predict_clients_close(1.0, 1.25) == -1);
    assert_true(val_predict_clients_close(0.49367, 0.38506) == -1); /* 28%: the fourth live series */
    assert_true(val_predict_clients_close(0, 0) == -1);
    assert_true(val_predict_clients_close(-1, -1.1) == -1);
    assert_true(val_predict_clients_close(NAN, 1) == -1);
    assert_true(val_predict_clients_close(1, INFINITY) == -1);
}

int main(void)
{
    sim_rng_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_data_hash),  cmocka_unit_test(test_cached_equals_fresh),
        cmocka_unit_test(test_jobs_do_not_matter), cmocka_unit_test(test_light_start),
        cmocka_unit_test(test_hold_gives_the_state), cmocka_unit_test(test_shared_keeps_the_baseline),
        cmocka_unit_test(test_clients_close), cmocka_unit_test(test_band_is_the_self_prediction),
        cmocka_unit_test(test_fits_are_averaged),
    };
    return cmocka_run_group_tests_name("val_predict", tests, test_dir_setup, NULL);
}
