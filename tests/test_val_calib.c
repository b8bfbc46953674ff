/* val_calib: the objective against known answers (squared log errors,
 * weighted by the point, a quarter for the kinds, nothing for a held-out
 * point or a held-out phase). */
#include "tests/test_util.h"

#include <math.h>

#include "validate/val_calib.h"

static void fill(val_calib_point *p, val_calib_sim *s)
{
    memset(p, 0, sizeof *p);
    memset(s, 0, sizeof *s);
    p->concurrency = 10;
    p->weight = 1;
    for (int i = 0; i < TF_NPHASES; i++) {
        p->thr[i] = 100;
        s->thr[i] = 100 * exp(0.1 * (i + 1)); /* log errors 0.1, 0.2, 0.3, 0.4 */
    }
    for (int i = 0; i < TF_NKINDS; i++) {
        p->kind[i] = NAN; /* absent: no term */
        s->kind[i] = 1;
    }
    p->kind[0] = 2e-3;
    s->kind[0] = 2e-3 * exp(0.2);
}

static void test_objective_known(void **state)
{
    (void)state;
    val_calib_point p;
    val_calib_sim s;
    fill(&p, &s);
    /* 0.01 + 0.04 + 0.09 + 0.16, plus 0.25 x 0.04 for the kind */
    assert_rel(val_calib_objective(&p, &s, 1, 0.25), 0.30 + 0.01, 1e-12);
    p.weight = 0.5;
    assert_rel(val_calib_objective(&p, &s, 1, 0.25), 0.5 * 0.31, 1e-12);
    p.weight = 0;
    assert_true(val_calib_objective(&p, &s, 1, 0.25) == 0);
}

static void test_objective_phases_out(void **state)
{
    (void)state;
    val_calib_point p[2];
    val_calib_sim s[2];
    fill(&p[0], &s[0]);
    fill(&p[1], &s[1]);
    /* the waves held out at both points: the windows' terms (by their
     * index in tf_phase_names) and the kind's stay */
    double want = 0;
    for (int i = 0; i < TF_NPHASES; i++) {
        const int wave = !strcmp(tf_phase_names[i], "webhook") || !strcmp(tf_phase_names[i], "commit");
        p[0].phase_out[i] = p[1].phase_out[i] = wave;
        if (!wave)
            want += 0.01 * (i + 1) * (i + 1);
    }
    want += 0.25 * 0.04;
    assert_rel(val_calib_objective(p, s, 2, 0.25), 2 * want, 1e-12);
    /* a simulated value the model cannot produce in a held-out phase
     * costs nothing; in a fitted one the finite penalty (25) */
    for (int i = 0; i < TF_NPHASES; i++)
        s[1].thr[i] = p[1].phase_out[i] ? 0 : s[1].thr[i];
    assert_rel(val_calib_objective(p, s, 2, 0.25), 2 * want, 1e-12);
    p[1].phase_out[0] = p[1].phase_out[1] = p[1].phase_out[2] = p[1].phase_out[3] = 0;
    assert_true(val_calib_objective(p, s, 2, 0.25) > 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_objective_known),
        cmocka_unit_test(test_objective_phases_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
