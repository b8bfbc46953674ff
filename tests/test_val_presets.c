/* Tests for validate/val_presets: the embedded copy of a preset's file
 * applies exactly the keys of its sections that the file on disk holds (so
 * that the binary and configs/ cannot drift apart), nothing from its
 * include or other sections, and an unknown name is an input error. */
#include "tests/test_util.h"

#include "validate/val_presets.h"

static void test_debian12_matches_file(void **state)
{
    (void)state;
    sim_err err;
    sim_err_clear(&err);
    sim_cfg *ov = sim_cfg_new();
    assert_int_equal(val_preset_apply("debian12", ov, &err), SIM_OK);
    const char *path = val_preset_path("debian12");
    assert_string_equal(path, "configs/tigerfans/client_debian12.ini");
    sim_cfg *file = sim_cfg_new();
    assert_int_equal(sim_cfg_load(file, path, &err), SIM_OK);
    /* every [client], [host] and [redis] key the file itself sets, with its value */
    size_t nfile = 0;
    for (size_t i = 0; i < sim_cfg_count(file); i++) {
        const sim_cfg_entry *e = sim_cfg_at(file, i);
        if (strcmp(e->origin, path) || (strcmp(e->section, "client") && strcmp(e->section, "host") &&
                                        strcmp(e->section, "redis")))
            continue;
        nfile++;
        const sim_cfg_entry *p = sim_cfg_find(ov, e->section, e->key);
        assert_non_null(p);
        assert_string_equal(p->value, e->value);
        assert_non_null(strstr(p->origin, path));
    }
    /* and nothing else: no other section, no key of base.ini */
    assert_true(nfile >= 5);
    assert_int_equal(sim_cfg_count(ov), nfile);
    assert_string_equal(sim_cfg_find(ov, "client", "httpcore")->value, "0.16");
    assert_string_equal(sim_cfg_find(ov, "host", "redis_on_host")->value, "true");
    assert_string_equal(sim_cfg_find(ov, "redis", "pool_lock")->value, "false");
    assert_null(sim_cfg_find(ov, "model", "name"));
    sim_cfg_free(file);
    sim_cfg_free(ov);
}

static void test_unknown(void **state)
{
    (void)state;
    sim_err err;
    sim_err_clear(&err);
    sim_cfg *ov = sim_cfg_new();
    assert_int_equal(val_preset_apply("debian13", ov, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "unknown preset 'debian13'"));
    assert_int_equal(sim_cfg_count(ov), 0);
    assert_null(val_preset_path("debian13"));
    sim_cfg_free(ov);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_debian12_matches_file),
        cmocka_unit_test(test_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
