/* Tests for validate/val_fit: maximum-likelihood fits, goodness of fit,
 * model choice, the empirical fallback and the config fragment.
 *
 * Statistical tests draw n = 4000 values from a known distribution with a
 * fixed seed.  Tolerances are about four standard errors of each
 * estimator at that n.  "The right family" accepts a family that nests the
 * true one at the nested value (a gamma or Weibull of shape within 0.1 of
 * 1 for exponential data; a shift under 5% of the mean), since AIC cannot
 * tell those apart.  Run with seeds 1..20 while writing them, every check
 * held except one: with seed 14 the lognormal data chose the shifted
 * lognormal (a shift far from 0), so the choice check fails about once in
 * 20 samples for that family; the fixed seed 1 is not one of those. */
#include "tests/test_util.h"

#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "sim/sim_cfg.h"
#include "sim/sim_rng.h"
#include "validate/val_fit.h"

#define N 4000

static double draw(val_fit_family f, gsl_rng *r)
{
    switch (f) {
    case VAL_FIT_EXP:
        return gsl_ran_exponential(r, 0.3e-3);
    case VAL_FIT_LOGNORMAL:
        return gsl_ran_lognormal(r, log(0.5e-3), 0.4);
    case VAL_FIT_GAMMA:
        return gsl_ran_gamma(r, 3, 0.2e-3);
    case VAL_FIT_WEIBULL:
        return gsl_ran_weibull(r, 0.6e-3, 1.7);
    case VAL_FIT_SEXP:
        return 0.1e-3 + gsl_ran_exponential(r, 0.2e-3);
    case VAL_FIT_SLOGNORMAL:
        return 0.3e-3 + gsl_ran_lognormal(r, log(0.2e-3), 0.5);
    case VAL_FIT_SGAMMA:
        return 0.2e-3 + gsl_ran_gamma(r, 2.5, 0.1e-3);
    case VAL_FIT_SWEIBULL:
        return 0.25e-3 + gsl_ran_weibull(r, 0.3e-3, 1.6);
    default:
        /* bimodal: half around 0.2 ms, half around 2 ms */
        return gsl_rng_uniform(r) < 0.5 ? gsl_ran_lognormal(r, log(0.2e-3), 0.2)
                                        : gsl_ran_lognormal(r, log(2e-3), 0.2);
    }
}

static double *sample(val_fit_family f, unsigned seed)
{
    double *x = malloc(N * sizeof *x);
    assert_non_null(x);
    gsl_rng *r = sim_rng_new(seed, 0, (uint32_t)f);
    for (size_t i = 0; i < N; i++)
        x[i] = draw(f, r);
    gsl_rng_free(r);
    return x;
}

static void fit(val_fit_family f, val_fit_report *rep)
{
    double *x = sample(f, 1);
    val_fit_opts o;
    val_fit_opts_init(&o);
    sim_err err = {0};
    assert_int_equal(val_fit_sample(x, N, &o, rep, &err), SIM_OK);
    free(x);
}

/* Is the chosen fit the true family, or one that nests it at the nested
 * value? */
static int right_family(val_fit_family truth, const val_fit_report *rep)
{
    int c = rep->chosen;
    const sim_dist *d = &rep->fam[c].d;
    if (c == (int)truth)
        return 1;
    double mean = rep->mean;
    if (truth == VAL_FIT_EXP && (c == VAL_FIT_GAMMA || c == VAL_FIT_WEIBULL))
        return fabs(d->a - 1) < 0.1;
    if (truth == VAL_FIT_SEXP && (c == VAL_FIT_SGAMMA || c == VAL_FIT_SWEIBULL))
        return fabs(d->a - 1) < 0.1;
    if (c == (int)truth + VAL_FIT_SEXP)
        return d->shift < 0.05 * mean;
    return 0;
}

static void check_choice(val_fit_family truth, const val_fit_report *rep)
{
    if (!right_family(truth, rep))
        fail_msg("data from %s: chose %s", val_fit_family_name(truth), val_fit_family_name(rep->chosen));
    /* the true family passes KS at 1% */
    assert_true(rep->fam[truth].ok);
    assert_true(rep->fam[truth].ks_p >= 0.01);
}

static void test_exponential(void **state)
{
    (void)state;
    val_fit_report rep;
    fit(VAL_FIT_EXP, &rep);
    const sim_dist *d = &rep.fam[VAL_FIT_EXP].d;
    assert_int_equal(d->kind, SIM_DIST_EXP);
    assert_rel(d->a, 0.3e-3, 0.06);       /* SE 1.6% */
    check_choice(VAL_FIT_EXP, &rep);
    /* nested families land near shape 1 */
    assert_close(rep.fam[VAL_FIT_GAMMA].d.a, 1, 0.1);
    assert_close(rep.fam[VAL_FIT_WEIBULL].d.a, 1, 0.1);
    val_fit_report_fini(&rep);
}

static void test_lognormal(void **state)
{
    (void)state;
    val_fit_report rep;
    fit(VAL_FIT_LOGNORMAL, &rep);
    const sim_dist *d = &rep.fam[VAL_FIT_LOGNORMAL].d;
    assert_close(d->a, log(0.5e-3), 0.03);  /* SE 0.0063 */
    assert_rel(d->b, 0.4, 0.05);            /* SE 1.1% */
    check_choice(VAL_FIT_LOGNORMAL, &rep);
    /* a clearly wrong family fails KS */
    assert_true(rep.fam[VAL_FIT_EXP].ks_p < 1e-6);
    val_fit_report_fini(&rep);
}

static void test_gamma(void **state)
{
    (void)state;
    val_fit_report rep;
    fit(VAL_FIT_GAMMA, &rep);
    const sim_dist *d = &rep.fam[VAL_FIT_GAMMA].d;
    assert_rel(d->a, 3, 0.10);               /* SE 2.2% */
    assert_rel(d->a * d->b, 0.6e-3, 0.03);   /* the mean; SE 0.9% */
    check_choice(VAL_FIT_GAMMA, &rep);
    val_fit_report_fini(&rep);
}

static void test_weibull(void **state)
{
    (void)state;
    val_fit_report rep;
    fit(VAL_FIT_WEIBULL, &rep);
    const sim_dist *d = &rep.fam[VAL_FIT_WEIBULL].d;
    assert_rel(d->a, 1.7, 0.06);     /* SE 1.3% */
    assert_rel(d->b, 0.6e-3, 0.04);  /* SE 0.9% */
    check_choice(VAL_FIT_WEIBULL, &rep);
    val_fit_report_fini(&rep);
}

static void test_shifted_exponential(void **state)
{
    (void)state;
    val_fit_report rep;
    fit(VAL_FIT_SEXP, &rep);
    const sim_dist *d = &rep.fam[VAL_FIT_SEXP].d;
    assert_close(d->shift, 0.1e-3, 0.002e-3);  /* SE of min ~ 0.05 us */
    assert_rel(d->a, 0.2e-3, 0.06);
    check_choice(VAL_FIT_SEXP, &rep);
    val_fit_report_fini(&rep);
}

static void test_shifted_lognormal(void **state)
{
    (void)state;
    val_fit_report rep;
    fit(VAL_FIT_SLOGNORMAL, &rep);
    const sim_dist *d = &rep.fam[VAL_FIT_SLOGNORMAL].d;
    /* three-parameter lognormal: over 20 seeds shift 0.293..0.301 ms,
     * mu -8.57..-8.44, sigma 0.48..0.51 */
    assert_close(d->shift, 0.3e-3, 0.02e-3);
    assert_close(d->a, log(0.2e-3), 0.15);
    assert_rel(d->b, 0.5, 0.10);
    check_choice(VAL_FIT_SLOGNORMAL, &rep);
    val_fit_report_fini(&rep);
}

static void test_shifted_gamma(void **state)
{
    (void)state;
    val_fit_report rep;
    fit(VAL_FIT_SGAMMA, &rep);
    const sim_dist *d = &rep.fam[VAL_FIT_SGAMMA].d;
    /* over 20 seeds: shape 2.31..2.60 */
    assert_close(d->shift, 0.2e-3, 0.02e-3);
    assert_rel(d->a, 2.5, 0.12);
    assert_rel(d->a * d->b + d->shift, 0.45e-3, 0.02);
    check_choice(VAL_FIT_SGAMMA, &rep);
    val_fit_report_fini(&rep);
}

static void test_shifted_weibull(void **state)
{
    (void)state;
    val_fit_report rep;
    fit(VAL_FIT_SWEIBULL, &rep);
    const sim_dist *d = &rep.fam[VAL_FIT_SWEIBULL].d;
    /* over 20 seeds: shape 1.56..1.63 */
    assert_close(d->shift, 0.25e-3, 0.02e-3);
    assert_rel(d->a, 1.6, 0.08);
    assert_rel(d->b, 0.3e-3, 0.10);
    check_choice(VAL_FIT_SWEIBULL, &rep);
    val_fit_report_fini(&rep);
}

/* A bimodal sample fits no family: the empirical quantiles are chosen. */
static void test_bimodal_falls_back_to_empirical(void **state)
{
    (void)state;
    val_fit_report rep;
    fit(VAL_FIT_NFAM, &rep);
    assert_int_equal(rep.chosen, VAL_FIT_EMPIRICAL);
    for (int f = 0; f < VAL_FIT_EMPIRICAL; f++)
        assert_true(!rep.fam[f].ok || rep.fam[f].ks_p < 0.01);
    const sim_dist *e = &rep.fam[VAL_FIT_EMPIRICAL].d;
    assert_int_equal(e->kind, SIM_DIST_EMPIRICAL);
    assert_int_equal(e->nq, 101);
    assert_close(e->q[0], rep.min, 0);
    assert_close(e->q[100], rep.max, 0);
    /* piecewise-linear quantiles keep the mean within 2% and the
     * distribution within KS D 0.02 of the sample */
    assert_rel(sim_dist_mean(e), rep.mean, 0.02);
    assert_true(rep.fam[VAL_FIT_EMPIRICAL].ks_d < 0.02);
    /* its spec parses back */
    char buf[8192];
    assert_true(sim_dist_format(e, buf, sizeof buf) < (int)sizeof buf);
    sim_dist back;
    char msg[200];
    assert_int_equal(sim_dist_parse(buf, &back, msg, sizeof msg), 0);
    assert_int_equal(back.nq, 101);
    sim_dist_fini(&back);
    val_fit_report_fini(&rep);
}

/* The distribution functions agree with GSL's and with each other. */
static void test_cdf_logpdf(void **state)
{
    (void)state;
    sim_dist d = sim_dist_const(0);
    d.kind = SIM_DIST_GAMMA;
    d.a = 2.5;
    d.b = 1e-4;
    d.shift = 2e-4;
    assert_close(val_fit_cdf(&d, 2e-4 + 3e-4), gsl_cdf_gamma_P(3e-4, 2.5, 1e-4), 1e-12);
    assert_close(val_fit_cdf(&d, 1e-4), 0, 0);
    assert_close(val_fit_logpdf(&d, 2e-4 + 3e-4), log(gsl_ran_gamma_pdf(3e-4, 2.5, 1e-4)), 1e-9);
    assert_true(isinf(val_fit_logpdf(&d, 1e-4)));
    d.kind = SIM_DIST_WEIBULL;
    d.a = 1.6;
    d.b = 3e-4;
    assert_close(val_fit_logpdf(&d, 5e-4), log(gsl_ran_weibull_pdf(3e-4, 3e-4, 1.6)), 1e-9);
    assert_close(val_fit_cdf(&d, 5e-4), gsl_cdf_weibull_P(3e-4, 3e-4, 1.6), 1e-12);
    d.kind = SIM_DIST_LOGNORMAL;
    d.a = -8;
    d.b = 0.5;
    assert_close(val_fit_logpdf(&d, 5e-4), log(gsl_ran_lognormal_pdf(3e-4, -8, 0.5)), 1e-9);
    double q[] = {1, 2, 4};
    sim_dist e = sim_dist_const(0);
    e.kind = SIM_DIST_EMPIRICAL;
    e.q = q;
    e.nq = 3;
    assert_close(val_fit_cdf(&e, 1.5), 0.25, 1e-12);
    assert_close(val_fit_cdf(&e, 3), 0.75, 1e-12);
    assert_close(val_fit_cdf(&e, 5), 1, 0);
}

static void test_bad_samples(void **state)
{
    (void)state;
    val_fit_opts o;
    val_fit_opts_init(&o);
    val_fit_report rep;
    sim_err err = {0};
    double x[VAL_FIT_MIN_N];
    for (int i = 0; i < VAL_FIT_MIN_N; i++)
        x[i] = 1e-3 * (i + 1);
    assert_int_equal(val_fit_sample(x, VAL_FIT_MIN_N - 1, &o, &rep, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "only 19 samples"));
    sim_err_clear(&err);
    x[3] = -1;
    assert_int_equal(val_fit_sample(x, VAL_FIT_MIN_N, &o, &rep, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "sample 4"));
    /* all equal: no family applies; the empirical fallback still does */
    for (int i = 0; i < VAL_FIT_MIN_N; i++)
        x[i] = 2e-3;
    sim_err_clear(&err);
    assert_int_equal(val_fit_sample(x, VAL_FIT_MIN_N, &o, &rep, &err), SIM_OK);
    assert_int_equal(rep.chosen, VAL_FIT_EMPIRICAL);
    for (int f = 0; f < VAL_FIT_EMPIRICAL; f++)
        assert_false(rep.fam[f].ok);
    assert_rel(sim_dist_mean(&rep.fam[VAL_FIT_EMPIRICAL].d), 2e-3, 1e-12);
    val_fit_report_fini(&rep);
}

/* ---- the file level ---- */

static char dir[64];

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static const char *path_of(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

/* Samples CSV: redis.x.save at c=4 (lognormal) and c=1 (gamma), then
 * pg.hold at c=2 (exponential), plus a 5-row group. */
static void write_samples(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "operation,concurrency,latency_us,timestamp\n");
    gsl_rng *r = sim_rng_new(7, 0, 0);
    for (int i = 0; i < 500; i++) {
        fprintf(f, "\"redis.x.save\",4,%.3f,%d\n", gsl_ran_lognormal(r, log(300), 0.3), 1000 + i);
        fprintf(f, "redis.x.save,1,%.3f,%d\n", gsl_ran_gamma(r, 4, 50), 1000 + i);
        fprintf(f, "pg.hold,2,%.3f,%d\n", gsl_ran_exponential(r, 800), 1000 + i);
    }
    for (int i = 0; i < 5; i++)
        fprintf(f, "tiny,1,%d,1\n", 100 + i);
    gsl_rng_free(r);
    fclose(f);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = calloc(1, 1 << 20);
    assert_non_null(buf);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_file_groups_and_config(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmpdir());
    const char *csv = path_of("s.csv");
    write_samples(csv);
    val_fit_opts o;
    val_fit_opts_init(&o);
    sim_err err = {0};
    val_fit_result *r = val_fit_file(csv, &o, &err);
    if (!r)
        fail_msg("%s", err.msg);
    assert_int_equal(r->n, 4);
    /* order: operations by first appearance, then concurrency */
    assert_string_equal(r->g[0].op, "redis.x.save");
    assert_int_equal(r->g[0].concurrency, 1);
    assert_string_equal(r->g[1].op, "redis.x.save");
    assert_int_equal(r->g[1].concurrency, 4);
    assert_string_equal(r->g[2].op, "pg.hold");
    assert_string_equal(r->g[3].op, "tiny");
    assert_int_equal(r->g[3].rep == NULL, 1);  /* too few to fit */
    assert_int_equal(r->g[0].rep->n, 500);
    /* the means are those of the data, in seconds */
    assert_rel(r->g[2].rep->mean, 800e-6, 0.15);

    sim_table *t = val_fit_table(r, 1);
    assert_int_equal(sim_table_nrows(t), 4);
    sim_table_free(t);
    t = val_fit_table(r, 0);
    assert_true(sim_table_nrows(t) >= 3 * 8 + 1);
    sim_table_free(t);

    const char *ini = path_of("fit.ini");
    assert_int_equal(val_fit_write_config(r, ini, &err), SIM_OK);
    /* the fragment loads as a config and every value parses as a distribution */
    sim_cfg *c = sim_cfg_new();
    if (sim_cfg_load(c, ini, &err) != SIM_OK)
        fail_msg("%s", err.msg);
    const char *keys[][2] = {{"fit.redis.x", "save"},   {"fit.redis.x", "save_c1"},
                             {"fit.redis.x", "save_c4"}, {"fit.pg", "hold"},
                             {"fit.pg", "hold_c2"}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const sim_cfg_entry *e = sim_cfg_find(c, keys[i][0], keys[i][1]);
        if (!e)
            fail_msg("missing %s.%s", keys[i][0], keys[i][1]);
        sim_dist d;
        char msg[200];
        if (sim_dist_parse(e->value, &d, msg, sizeof msg))
            fail_msg("%s.%s = %s: %s", keys[i][0], keys[i][1], e->value, msg);
        sim_dist_fini(&d);
    }
    /* the plain key is the lowest concurrency's fit */
    assert_string_equal(sim_cfg_find(c, "fit.redis.x", "save")->value,
                        sim_cfg_find(c, "fit.redis.x", "save_c1")->value);
    assert_null(sim_cfg_find(c, "fit", "tiny"));
    /* the chosen fit keeps the sample mean */
    const val_fit_report *h = r->g[2].rep;
    assert_rel(sim_dist_mean(&h->fam[h->chosen].d), h->mean, 0.05);
    sim_cfg_free(c);

    /* same input, same bytes */
    const char *ini2 = path_of("fit2.ini");
    val_fit_result *r2 = val_fit_file(csv, &o, &err);
    assert_non_null(r2);
    assert_int_equal(val_fit_write_config(r2, ini2, &err), SIM_OK);
    char *a = slurp(ini), *b = slurp(ini2);
    assert_string_equal(a, b);
    free(a);
    free(b);
    val_fit_result_free(r2);
    val_fit_result_free(r);
    remove_dir();
}

static void test_file_reservoir_is_deterministic(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmpdir());
    const char *csv = path_of("s.csv");
    write_samples(csv);
    val_fit_opts o;
    val_fit_opts_init(&o);
    o.max_samples = 100;
    sim_err err = {0};
    val_fit_result *r1 = val_fit_file(csv, &o, &err), *r2 = val_fit_file(csv, &o, &err);
    assert_non_null(r1);
    assert_non_null(r2);
    assert_int_equal(r1->g[0].rep->n, 100);
    assert_int_equal(r1->g[0].seen, 500);
    assert_true(r1->g[0].rep->mean == r2->g[0].rep->mean);
    val_fit_result_free(r1);
    val_fit_result_free(r2);
    remove_dir();
}

static void test_file_errors(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmpdir());
    val_fit_opts o;
    val_fit_opts_init(&o);
    sim_err err = {0};
    const char *p = path_of("bad.csv");
    test_write_file(p, "operation,concurrency,latency_us,timestamp\na,1,5,1\na,1,x,1\n");
    assert_null(val_fit_file(p, &o, &err));
    assert_int_equal(err.code, SIM_EINPUT);
    assert_non_null(strstr(err.msg, "bad.csv:3: latency_us: 'x'"));
    sim_err_clear(&err);
    test_write_file(p, "operation,concurrency,latency_us,timestamp\n");
    assert_null(val_fit_file(p, &o, &err));
    assert_non_null(strstr(err.msg, "no samples"));
    sim_err_clear(&err);
    test_write_file(p, "operation,concurrency,latency_us,timestamp\na,1,5,1\n");
    assert_null(val_fit_file(p, &o, &err));
    assert_int_equal(err.code, SIM_EINPUT);
    assert_non_null(strstr(err.msg, "no (operation, concurrency) group"));
    remove_dir();
}

/* Operations of one section that are not adjacent (a.x, b.y, a.z) give
 * one [fit.a] (a section repeated in one file would not load), and two
 * operations that map onto one key are refused by name. */
static void test_config_sections_and_collisions(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmpdir());
    const char *csv = path_of("s.csv");
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "operation,concurrency,latency_us,timestamp\n");
    for (int i = 0; i < 40; i++)
        fprintf(f, "a.x,1,%d,1\nb.y,1,%d,1\na.z,2,%d,1\n", 100 + i, 200 + 3 * i, 50 + 2 * i);
    fclose(f);
    val_fit_opts o;
    val_fit_opts_init(&o);
    sim_err err = {0};
    val_fit_result *r = val_fit_file(csv, &o, &err);
    assert_non_null(r);
    const char *ini = path_of("fit.ini");
    assert_int_equal(val_fit_write_config(r, ini, &err), SIM_OK);
    sim_cfg *c = sim_cfg_new();
    if (sim_cfg_load(c, ini, &err) != SIM_OK)
        fail_msg("%s", err.msg);
    assert_non_null(sim_cfg_find(c, "fit.a", "x_c1"));
    assert_non_null(sim_cfg_find(c, "fit.a", "z_c2"));
    assert_non_null(sim_cfg_find(c, "fit.b", "y"));
    sim_cfg_free(c);
    char *text = slurp(ini);
    assert_non_null(strstr(text, "[fit.a]"));
    assert_null(strstr(strstr(text, "[fit.a]") + 1, "[fit.a]")); /* once */
    assert_true(strstr(text, "[fit.a]") < strstr(text, "[fit.b]"));
    free(text);
    /* a full disk: the fragment is not written, and says so */
    sim_err_clear(&err);
    assert_int_equal(val_fit_write_config(r, "/dev/full", &err), SIM_EFAIL);
    assert_non_null(strstr(err.msg, "/dev/full: write failed"));
    val_fit_result_free(r);

    f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "operation,concurrency,latency_us,timestamp\n");
    for (int i = 0; i < 40; i++)
        fprintf(f, "_x,1,%d,1\n.x,1,%d,1\n", 100 + i, 200 + i);
    fclose(f);
    r = val_fit_file(csv, &o, &err);
    assert_non_null(r);
    sim_err_clear(&err);
    const char *ini2 = path_of("clash.ini");
    assert_int_equal(val_fit_write_config(r, ini2, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "operations _x and .x both map onto key _x of [fit]"));
    assert_int_equal(access(ini2, F_OK), -1); /* nothing written */
    val_fit_result_free(r);
    remove_dir();
}

/* Groups are bounded: one more than VAL_FIT_MAX_GROUPS is an error naming
 * the line (2e5 operations used to take 1.2 GB and 106 s). */
static void test_group_limit(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmpdir());
    const char *csv = path_of("many.csv");
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "operation,concurrency,latency_us,timestamp\n");
    for (int i = 0; i < 25; i++)
        fprintf(f, "big,1,%d,1\n", 100 + i);
    for (int i = 0; i < VAL_FIT_MAX_GROUPS; i++)
        fprintf(f, "op%d,%d,100,1\n", i / 7, 1 + i % 7);
    fclose(f);
    val_fit_opts o;
    val_fit_opts_init(&o);
    sim_err err = {0};
    val_fit_result *r = val_fit_file(csv, &o, &err);
    assert_null(r);
    char want[128];
    snprintf(want, sizeof want, "many.csv:%d: more than %d (operation, concurrency) groups",
             2 + 25 + VAL_FIT_MAX_GROUPS - 1, VAL_FIT_MAX_GROUPS);
    if (!strstr(err.msg, want))
        fail_msg("'%s' lacks '%s'", err.msg, want);
    /* at the limit: every group listed, in order of appearance */
    f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "operation,concurrency,latency_us,timestamp\n");
    for (int i = 0; i < 25; i++)
        fprintf(f, "big,1,%d,1\n", 100 + i);
    for (int i = 0; i < VAL_FIT_MAX_GROUPS - 1; i++)
        fprintf(f, "op%d,%d,100,1\n", i / 7, 7 - i % 7);
    fclose(f);
    sim_err_clear(&err);
    r = val_fit_file(csv, &o, &err);
    if (!r)
        fail_msg("%s", err.msg);
    assert_int_equal(r->n, VAL_FIT_MAX_GROUPS);
    assert_string_equal(r->g[1].op, "op0");
    assert_int_equal(r->g[1].concurrency, 1);
    assert_string_equal(r->g[8].op, "op1");
    assert_null(r->g[8].rep);
    val_fit_result_free(r);
    remove_dir();
}

int main(void)
{
    sim_rng_setup();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exponential),
        cmocka_unit_test(test_lognormal),
        cmocka_unit_test(test_gamma),
        cmocka_unit_test(test_weibull),
        cmocka_unit_test(test_shifted_exponential),
        cmocka_unit_test(test_shifted_lognormal),
        cmocka_unit_test(test_shifted_gamma),
        cmocka_unit_test(test_shifted_weibull),
        cmocka_unit_test(test_bimodal_falls_back_to_empirical),
        cmocka_unit_test(test_cdf_logpdf),
        cmocka_unit_test(test_bad_samples),
        cmocka_unit_test(test_file_groups_and_config),
        cmocka_unit_test(test_file_reservoir_is_deterministic),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_config_sections_and_collisions),
        cmocka_unit_test(test_group_limit),
    };
    return cmocka_run_group_tests_name("val_fit", tests, NULL, NULL);
}
