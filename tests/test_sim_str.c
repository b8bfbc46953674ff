/* Tests for sim/sim_str: the shared string copy and FNV-1a hash. */
#include "tests/test_util.h"

#include "sim/sim_cfg.h"
#include "sim/sim_str.h"

/* The published FNV-1a 64-bit test vectors (Fowler, Noll, Vo; the
 * reference code's test suite): the empty string is the offset basis. */
static void test_fnv_vectors(void **state)
{
    (void)state;
    assert_true(sim_str_fnv("", 0, SIM_STR_FNV0) == 0xcbf29ce484222325ull);
    assert_true(sim_str_fnv("a", 1, SIM_STR_FNV0) == 0xaf63dc4c8601ec8cull);
    assert_true(sim_str_fnv("foobar", 6, SIM_STR_FNV0) == 0x85944171f73967e8ull);
    /* continuing from a hash is hashing the concatenation */
    assert_true(sim_str_fnv("bar", 3, sim_str_fnv("foo", 3, SIM_STR_FNV0)) ==
                sim_str_fnv("foobar", 6, SIM_STR_FNV0));
}

/* Fields: the separator keeps ("ab", "c") apart from ("a", "bc"); NULL is
 * the empty field. */
static void test_fnv_fields(void **state)
{
    (void)state;
    uint64_t a = sim_str_fnv_field("c", sim_str_fnv_field("ab", SIM_STR_FNV0));
    uint64_t b = sim_str_fnv_field("bc", sim_str_fnv_field("a", SIM_STR_FNV0));
    assert_true(a != b);
    assert_true(sim_str_fnv_field(NULL, 7) == sim_str_fnv_field("", 7));
    const unsigned char ab_sep[] = {'a', 'b', 0xff};
    assert_true(sim_str_fnv_field("ab", SIM_STR_FNV0) == sim_str_fnv(ab_sep, 3, SIM_STR_FNV0));
}

/* sim_cfg_hash against the loop it had before it used sim_str (a naive
 * twin): the hashes stored by earlier versions must still match. */
static uint64_t old_cfg_hash(const char *text, const char *ov)
{
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
    for (const unsigned char *p = (const unsigned char *)ov; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

static void test_cfg_hash_unchanged(void **state)
{
    (void)state;
    sim_cfg *c = sim_cfg_new();
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_load_string(c, "[client]\nconcurrency = 20\n", "t.ini", &err), SIM_OK);
    assert_int_equal(sim_cfg_set(c, "server.workers=2", &err), SIM_OK);
    assert_true(sim_cfg_hash(c) == old_cfg_hash(sim_cfg_text(c), sim_cfg_overrides(c)));
    sim_cfg_free(c);
    c = sim_cfg_new();
    assert_true(sim_cfg_hash(c) == old_cfg_hash(sim_cfg_text(c), sim_cfg_overrides(c)));
    sim_cfg_free(c);
}

static void test_dup(void **state)
{
    (void)state;
    assert_null(sim_str_dup(NULL));
    const char *s = "pg_redis";
    char *d = sim_str_dup(s);
    assert_non_null(d);
    assert_ptr_not_equal(d, s);
    assert_string_equal(d, s);
    free(d);
    d = sim_str_dup("");
    assert_string_equal(d, "");
    free(d);
}

static int fmt(char *buf, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));
static int fmt(char *buf, size_t len, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int cut = sim_str_vfmt(buf, len, f, ap);
    va_end(ap);
    return cut;
}

/* The bounded format: a text that fits is vsnprintf's; one that does not
 * ends in "..." within the buffer, never inside a UTF-8 character. */
static void test_vfmt(void **state)
{
    (void)state;
    char b[12];
    assert_int_equal(fmt(b, sizeof b, "%s-%d", "ab", 42), 0);
    assert_string_equal(b, "ab-42");
    assert_int_equal(fmt(b, sizeof b, "%s", "12345678901"), 0); /* 11 bytes: just fits */
    assert_string_equal(b, "12345678901");
    assert_int_equal(fmt(b, sizeof b, "%s", "123456789012"), 1);
    assert_string_equal(b, "12345678...");
    /* "x" (U+00D7) is two bytes; the cut would take its first byte alone */
    assert_int_equal(fmt(b, sizeof b, "1234567\u00d7%s", "tail"), 1);
    assert_string_equal(b, "1234567...");
    assert_int_equal(fmt(b, 4, "%s", "abcd"), 1);
    assert_string_equal(b, "...");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fnv_vectors),
        cmocka_unit_test(test_fnv_fields),
        cmocka_unit_test(test_cfg_hash_unchanged),
        cmocka_unit_test(test_dup),
        cmocka_unit_test(test_vfmt),
    };
    return cmocka_run_group_tests_name("sim_str", tests, NULL, NULL);
}
