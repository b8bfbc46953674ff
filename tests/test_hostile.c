/* Hostile inputs: replays the fuzz corpora and every saved crash input
 * through the fuzz harnesses (tests/fuzz/fuzz_targets.h), then checks
 * specific hostile inputs against the readers' promises (an error naming
 * file:line, never a crash or unbounded memory). */
#include "tests/test_util.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *replaying = "";
#define FUZZ_FAIL(...)                           \
    do {                                         \
        print_error("input %s:\n", replaying);  \
        fail_msg(__VA_ARGS__);                   \
    } while (0)
#include "tests/fuzz/fuzz_targets.h"

/* ---- replay of tests/fuzz/{corpus,regress}/TARGET ---- */

/* Run every file of dir through fn; returns how many there were. */
static int replay_dir(const char *dir, int (*fn)(const uint8_t *, size_t))
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        FILE *f = fopen(p, "rb");
        assert_non_null(f);
        uint8_t *buf = malloc(1 << 20);
        assert_non_null(buf);
        size_t len = fread(buf, 1, 1 << 20, f);
        fclose(f);
        replaying = p;
        fn(buf, len);
        free(buf);
        n++;
    }
    closedir(d);
    return n;
}

static void replay(const char *target, int (*fn)(const uint8_t *, size_t))
{
    char dir[128];
    snprintf(dir, sizeof dir, "tests/fuzz/corpus/%s", target);
    int seeds = replay_dir(dir, fn);
    assert_true(seeds > 0); /* run from the repository root */
    snprintf(dir, sizeof dir, "tests/fuzz/regress/%s", target);
    replay_dir(dir, fn);
}

static void test_replay_cfg(void **state)
{
    (void)state;
    replay("cfg", fuzz_cfg_input);
}

static void test_replay_dist(void **state)
{
    (void)state;
    replay("dist", fuzz_dist_input);
}

static void test_replay_tigerbench(void **state)
{
    (void)state;
    replay("tigerbench", fuzz_tigerbench_input);
}

/* ---- numbers ---- */

/* A subnormal parameter (here gamma's scale = mean / shape) must print to a
 * spec that parses back (regress/dist/subnormal-roundtrip: strtod flags
 * ERANGE on underflow, which the parsers used to reject). */
static void test_subnormal_round_trip(void **state)
{
    (void)state;
    double v;
    const char *why;
    assert_int_equal(sim_parse_double("4.94065646e-324", &v, &why), 0);
    assert_true(v > 0 && v < 1e-320);
    assert_int_equal(sim_parse_duration("1e-400ms", &v, &why), 0);
    assert_true(v == 0);
    assert_int_equal(sim_parse_double("1e309", &v, &why), -1);
    assert_string_equal(why, "number out of range");
    sim_dist d, e;
    char msg[256], txt[256];
    assert_int_equal(sim_dist_parse("gamma(shape=1e10, mean=1e-300)", &d, msg, sizeof msg), 0);
    assert_true(d.b < 2.3e-308); /* subnormal */
    sim_dist_format(&d, txt, sizeof txt);
    assert_int_equal(sim_dist_parse(txt, &e, msg, sizeof msg), 0);
    assert_true(fabs(e.b - d.b) <= 1e-8 * d.b);
}

/* lognormal(mean=, sd=) used to accept a mean whose log-space mu lies
 * outside the range that lognormal(mu=, sigma=) accepts, so its formatted
 * spec did not parse back (regress/dist/lognormal-tiny-mean). */
static void test_lognormal_mu_range(void **state)
{
    (void)state;
    sim_dist d;
    char msg[256], txt[256];
    assert_int_equal(sim_dist_parse("lognormal(mean=2e-308ms, sd=0ms)", &d, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "mean out of range"));
    assert_int_equal(sim_dist_parse("lognormal(mean=1e-300, sd=0)", &d, msg, sizeof msg), 0);
    sim_dist_format(&d, txt, sizeof txt);
    sim_dist_fini(&d);
    assert_int_equal(sim_dist_parse(txt, &d, msg, sizeof msg), 0);
    sim_dist_fini(&d);
    assert_int_equal(sim_dist_parse("lognormal(mu=-700, sigma=0)", &d, msg, sizeof msg), 0);
    assert_int_equal(sim_dist_parse("lognormal(mu=700.5, sigma=0)", &d, msg, sizeof msg), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_cfg),
        cmocka_unit_test(test_replay_dist),
        cmocka_unit_test(test_replay_tigerbench),
        cmocka_unit_test(test_subnormal_round_trip),
        cmocka_unit_test(test_lognormal_mu_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
