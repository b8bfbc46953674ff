/* Tests for sim_cfg: loading with includes, override order, include cycles
 * and depth, line limits, NUL bytes, missing files, syntax, the schema
 * check with did-you-mean, typed getters with units, ranges, enums, bools,
 * defaults, and the `file:line: section.key: ...` message format. */
#include "tests/test_util.h"

#include "sim/sim_cfg.h"
#include "sim/sim_dist.h"

static const sim_cfg_key schema[] = {
    {"sim", "seed", SIM_CFG_INT, "1", 0, 1e15, NULL, NULL, "master seed"},
    {"sim", "duration", SIM_CFG_DUR, "60s", 1e-3, 1e7, NULL, "s", "simulated time"},
    {"sim", "warmup", SIM_CFG_DUR, "5ms", 0, 1e6, NULL, "s", "warm-up"},
    {"sim", "rate", SIM_CFG_RATE, "900/s", 0.1, 1e9, NULL, "1/s", "arrival rate"},
    {"sim", "replications", SIM_CFG_INT, "10", 1, 10000, NULL, NULL, "replications"},
    {"sim", "verbose", SIM_CFG_BOOL, "false", 0, 0, NULL, NULL, "chatty"},
    {"sim", "mode", SIM_CFG_ENUM, "open", 0, 0, "open|closed|waves", NULL, "load model"},
    {"sim", "name", SIM_CFG_STR, "x", 0, 0, NULL, NULL, "a name"},
    {"sim", "load", SIM_CFG_NUM, "0.5", 0, 1, NULL, NULL, "offered load"},
    {"sim", "anything", SIM_CFG_NUM, "0", 0, 0, NULL, NULL, "no range (min == max)"},
    {"station.*", "servers", SIM_CFG_INT, "1", 1, 1024, NULL, NULL, "servers"},
    {"station.*", "service", SIM_CFG_DIST, "exp(1ms)", 0, 0, NULL, "s", "service time"},
    {"client", "think", SIM_CFG_DUR, NULL, 0, 1e6, NULL, "s", "think time (required)"},
};
#define NS (sizeof schema / sizeof schema[0])

/* Path of name inside the tests' temporary directory (static buffer). */
static const char *P(const char *name) { return test_dir_path(name); }

static void W(const char *name, const char *text) { test_write_file(P(name), text); }

/* Load path into a new config; returns the status, message in err. */
static sim_cfg *load(const char *path, sim_err *err, int *rc)
{
    sim_cfg *c = sim_cfg_new();
    sim_err_clear(err);
    *rc = sim_cfg_load(c, path, err);
    return c;
}

static void expect_load_error(const char *path, const char *pattern)
{
    sim_err err;
    int rc;
    sim_cfg *c = load(path, &err, &rc);
    assert_int_equal(rc, SIM_EINPUT);
    assert_int_equal(err.code, SIM_EINPUT);
    if (!strstr(err.msg, pattern))
        fail_msg("message '%s' lacks '%s'", err.msg, pattern);
    sim_cfg_free(c);
}

static const char *value(const sim_cfg *c, const char *sec, const char *key)
{
    const sim_cfg_entry *e = sim_cfg_find(c, sec, key);
    return e ? e->value : NULL;
}

/* ---- loading ---- */

static void test_syntax(void **state)
{
    (void)state;
    W("syntax.ini", "\xEF\xBB\xBF; comment\n"
                    "# another\n"
                    "\n"
                    "[sim]  ; trailing comment\n"
                    "seed = 42\n"
                    "  name = a b ; inline comment\n"
                    "mode: closed\n"
                    "empty =\n"
                    "formula = a;b\n"
                    "[ station.cpu ]\r\n"
                    "servers=4\r\n"
                    "[a-section-name-longer-than-fifty-characters-is-still-fine]\n"
                    "k = v\n");
    sim_err err;
    int rc;
    sim_cfg *c = load(P("syntax.ini"), &err, &rc);
    if (rc)
        fail_msg("%s", err.msg);
    assert_string_equal(value(c, "sim", "seed"), "42");
    /* an indented line is a key of its own, not a continuation */
    assert_string_equal(value(c, "sim", "name"), "a b");
    assert_string_equal(value(c, "sim", "mode"), "closed");
    assert_string_equal(value(c, "sim", "empty"), "");
    assert_string_equal(value(c, "sim", "formula"), "a;b");
    assert_string_equal(value(c, "station.cpu", "servers"), "4");
    assert_string_equal(value(c, "a-section-name-longer-than-fifty-characters-is-still-fine", "k"), "v");
    assert_int_equal(sim_cfg_count(c), 7);
    const sim_cfg_entry *e = sim_cfg_find(c, "sim", "mode");
    assert_int_equal(e->line, 7);
    assert_string_equal(e->origin, P("syntax.ini"));
    assert_null(sim_cfg_find(c, "sim", "nope"));
    sim_cfg_free(c);
}

static void test_syntax_errors(void **state)
{
    (void)state;
    W("e1.ini", "[sim]\nseed = 1\njust words\n");
    expect_load_error(P("e1.ini"), "e1.ini:3: syntax error");
    W("e2.ini", "[sim\nseed = 1\n");
    expect_load_error(P("e2.ini"), "e2.ini:1: syntax error");
    W("e3.ini", "[sim]\n\n= 5\n");
    expect_load_error(P("e3.ini"), "e3.ini:3: missing key name");
    W("e4.ini", "[sim]\nse ed = 5\n");
    expect_load_error(P("e4.ini"), "e4.ini:2: se ed: key names use letters");
    W("e5.ini", "[]\nx = 1\n");
    expect_load_error(P("e5.ini"), "e5.ini:1: empty section name");
    W("e6.ini", "[sim] extra\n");
    expect_load_error(P("e6.ini"), "e6.ini:1: syntax error");
    W("e7.ini", "[sim]\ninclude =\n");
    expect_load_error(P("e7.ini"), "e7.ini:2: include: empty file name");
}

/* Lines up to SIM_CFG_MAX_LINE - 1 bytes load (a long empirical spec);
 * longer ones are an error naming the line. */
static void test_long_lines(void **state)
{
    (void)state;
    size_t n = SIM_CFG_MAX_LINE + 100;
    char *text = malloc(2 * n);
    assert_non_null(text);
    strcpy(text, "[sim]\nname = ");
    size_t head = strlen(text), vlen = SIM_CFG_MAX_LINE - 1 - strlen("name = ");
    memset(text + head, 'x', vlen);
    strcpy(text + head + vlen, "\n");
    W("long_ok.ini", text);
    sim_err err;
    int rc;
    sim_cfg *c = load(P("long_ok.ini"), &err, &rc);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(strlen(value(c, "sim", "name")), vlen);
    sim_cfg_free(c);
    /* one byte more */
    memset(text + head, 'x', vlen + 1);
    strcpy(text + head + vlen + 1, "\nseed = 1\n");
    W("long_bad.ini", text);
    expect_load_error(P("long_bad.ini"), "long_bad.ini:2: line longer than 4095 bytes");
    free(text);
}

static void test_nul_byte(void **state)
{
    (void)state;
    FILE *f = fopen(P("nul.ini"), "wb");
    assert_non_null(f);
    fwrite("[sim]\nseed = 1\nna\0me = x\n", 1, 25, f);
    fclose(f);
    expect_load_error(P("nul.ini"), "nul.ini:3: NUL byte");
}

static void test_missing_file(void **state)
{
    (void)state;
    expect_load_error(P("does-not-exist.ini"), "does-not-exist.ini: cannot open");
    expect_load_error(test_dir, ": read error"); /* a directory */
    W("inc_missing.ini", "[sim]\nseed = 1\ninclude = nowhere.ini\n");
    expect_load_error(P("inc_missing.ini"), "inc_missing.ini:3: include: ");
    expect_load_error(P("inc_missing.ini"), "nowhere.ini: cannot open");
}

/* Includes are relative to the including file; later assignments win,
 * --set wins over all; an include may not set again a key its including
 * file set above it (the file's own value would be lost); the raw text of
 * each file is kept. */
static void test_include_and_override(void **state)
{
    (void)state;
    char sub[600];
    snprintf(sub, sizeof sub, "mkdir -p '%s/conf/base'", test_dir);
    assert_int_equal(system(sub), 0);
    W("conf/common.ini", "[sim]\nseed = 1\nname = common\nload = 0.1\n");
    W("conf/base/base.ini", "include = ../common.ini\n[sim]\nseed = 2\nmode = closed\n");
    W("conf/main.ini", "[sim]\nload = 0.2\ninclude = base/base.ini\nseed = 3\n");
    /* main's load, then an include (of an include) that sets it again */
    expect_load_error(P("conf/main.ini"), "main.ini:2: sim.load: set at line 2, then again by the "
                                          "include at line 3 (");
    expect_load_error(P("conf/main.ini"), "common.ini:4)");
    W("conf/main.ini", "[sim]\nother = 0.2\ninclude = base/base.ini\nseed = 3\n");
    sim_err err;
    int rc;
    sim_cfg *c = load(P("conf/main.ini"), &err, &rc);
    if (rc)
        fail_msg("%s", err.msg);
    assert_string_equal(value(c, "sim", "seed"), "3");   /* main after the include */
    assert_string_equal(value(c, "sim", "load"), "0.1"); /* from the include's include */
    assert_string_equal(value(c, "sim", "other"), "0.2");
    assert_string_equal(value(c, "sim", "name"), "common");
    assert_string_equal(value(c, "sim", "mode"), "closed");
    const sim_cfg_entry *e = sim_cfg_find(c, "sim", "mode");
    assert_non_null(strstr(e->origin, "base/base.ini"));
    assert_int_equal(e->line, 4);
    const char *text = sim_cfg_text(c);
    assert_non_null(strstr(text, "# file: "));
    assert_non_null(strstr(text, "name = common"));
    assert_non_null(strstr(text, "mode = closed"));
    uint64_t h0 = sim_cfg_hash(c);
    assert_string_equal(sim_cfg_overrides(c), "");

    sim_err_clear(&err);
    assert_int_equal(sim_cfg_set(c, "sim.seed=4", &err), SIM_OK);
    /* spaces around the key and value are trimmed */
    assert_int_equal(sim_cfg_set(c, " station.db.main.servers =  8 ", &err), SIM_OK);
    assert_string_equal(value(c, "sim", "seed"), "4");
    assert_string_equal(value(c, "station.db.main", "servers"), "8");
    e = sim_cfg_find(c, "sim", "seed");
    assert_string_equal(e->origin, "--set");
    assert_int_equal(e->line, 0);
    assert_string_equal(sim_cfg_overrides(c), "sim.seed=4  station.db.main.servers =  8 ");
    assert_true(sim_cfg_hash(c) != h0);
    char where[128];
    assert_string_equal(sim_cfg_where(c, "sim", "seed", where, sizeof where), "--set");
    assert_non_null(strstr(sim_cfg_where(c, "sim", "name", where, sizeof where), "common.ini:3"));
    assert_string_equal(sim_cfg_where(c, "sim", "warmup", where, sizeof where), "default");
    sim_cfg_free(c);

    /* same files, same overrides: same hash */
    c = load(P("conf/main.ini"), &err, &rc);
    assert_int_equal(sim_cfg_hash(c), h0);
    sim_cfg_free(c);
}

static void test_set_errors(void **state)
{
    (void)state;
    static const char *bad[] = {"noequals", "nodot=1", ".k=1", "sim.=1", "=1", "sim.k"};
    sim_cfg *c = sim_cfg_new();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sim_err err;
        sim_err_clear(&err);
        assert_int_equal(sim_cfg_set(c, bad[i], &err), SIM_EINPUT);
        assert_non_null(strstr(err.msg, "expected SECTION.KEY=VALUE"));
    }
    assert_int_equal(sim_cfg_count(c), 0);
    sim_cfg_free(c);
}

static void test_include_cycle(void **state)
{
    (void)state;
    W("cyc_a.ini", "[sim]\ninclude = cyc_b.ini\n");
    W("cyc_b.ini", "[sim]\nseed = 1\ninclude = cyc_a.ini\n");
    expect_load_error(P("cyc_a.ini"), "include cycle");
    expect_load_error(P("cyc_a.ini"), "cyc_b.ini:3: include: ");
    W("self.ini", "include = ./self.ini\n");
    expect_load_error(P("self.ini"), "include cycle");
    /* including the same file twice side by side is no cycle */
    W("twice_c.ini", "[sim]\nseed = 5\n");
    W("twice.ini", "include = twice_c.ini\ninclude = twice_c.ini\n");
    sim_err err;
    int rc;
    sim_cfg *c = load(P("twice.ini"), &err, &rc);
    assert_int_equal(rc, SIM_OK);
    assert_int_equal(sim_cfg_count(c), 2);
    sim_cfg_free(c);
}

/* A chain d0 -> d1 -> ... : SIM_CFG_MAX_DEPTH files load, one more fails. */
static void test_include_depth(void **state)
{
    (void)state;
    char name[32], text[64];
    for (int i = 0; i <= SIM_CFG_MAX_DEPTH; i++) {
        snprintf(name, sizeof name, "d%d.ini", i);
        snprintf(text, sizeof text, "include = d%d.ini\n", i + 1);
        W(name, text);
    }
    snprintf(name, sizeof name, "d%d.ini", SIM_CFG_MAX_DEPTH);
    W(name, "[sim]\nseed = 9\n");
    expect_load_error(P("d0.ini"), "include nesting deeper than 16");
    sim_err err;
    int rc;
    sim_cfg *c = load(P("d1.ini"), &err, &rc); /* 16 files */
    if (rc)
        fail_msg("%s", err.msg);
    assert_string_equal(value(c, "sim", "seed"), "9");
    sim_cfg_free(c);
}

static void test_load_string(void **state)
{
    (void)state;
    W("str_inc.ini", "[sim]\nseed = 11\n");
    char name[600];
    snprintf(name, sizeof name, "%s/virtual.ini", test_dir);
    sim_cfg *c = sim_cfg_new();
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_load_string(c, "include = str_inc.ini\n[sim]\nload = 0.3\n", name, &err), SIM_OK);
    assert_string_equal(value(c, "sim", "seed"), "11");
    assert_string_equal(value(c, "sim", "load"), "0.3");
    assert_int_equal(sim_cfg_load_string(c, "[sim]\nbad line\n", "mem.ini", &err), SIM_EINPUT);
    assert_string_equal(err.msg, "mem.ini:2: syntax error (expected [section] or key = value)");
    sim_cfg_free(c);
}

/* ---- schema check ---- */

static void expect_check_error(const char *text, const char *msg)
{
    sim_cfg *c = sim_cfg_new();
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_load_string(c, text, "t.ini", &err), SIM_OK);
    assert_int_equal(sim_cfg_check(c, schema, NS, &err), SIM_EINPUT);
    if (!strstr(err.msg, msg))
        fail_msg("message '%s' lacks '%s'", err.msg, msg);
    sim_cfg_free(c);
}

static void test_check(void **state)
{
    (void)state;
    sim_cfg *c = sim_cfg_new();
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_load_string(c,
                                         "[sim]\nseed = 7\nduration = 2min\nrate = 54000/min\n"
                                         "mode = waves\nverbose = yes\n[station.cpu]\nservers = 4\n"
                                         "service = lognormal(mean=2ms, sd=1ms)\n[client]\nthink = 1s\n",
                                         "ok.ini", &err),
                     SIM_OK);
    if (sim_cfg_check(c, schema, NS, &err))
        fail_msg("%s", err.msg);
    const char *names[4];
    assert_int_equal(sim_cfg_sections(c, "station.*", names, 4), 1);
    assert_string_equal(names[0], "station.cpu");
    assert_int_equal(sim_cfg_sections(c, "sim", names, 4), 1);
    sim_cfg_free(c);

    expect_check_error("[sim]\nseed = 1\nsed = 1\n", "t.ini:3: sim.sed: unknown key (did you mean seed?)");
    expect_check_error("[sim]\nzzzzzz = 1\n", "t.ini:2: sim.zzzzzz: unknown key");
    /* named at its header line, with keys or without */
    expect_check_error("[smi]\nseed = 1\n", "t.ini:1: [smi]: unknown section (did you mean [sim]?)");
    expect_check_error("[sim]\nseed = 1\n[bogus]\n", "t.ini:3: [bogus]: unknown section");
    expect_check_error("[qqqqqqqq]\nseed = 1\n", "t.ini:1: [qqqqqqqq]: unknown section");
    expect_check_error("seed = 1\n", "t.ini:1: seed: key outside any [section]");
    expect_check_error("[station]\nservers = 1\n", "[station]: unknown section (did you mean [station.NAME]?)");
    expect_check_error("[stations.cpu]\nservers = 1\n", "[stations.cpu]: unknown section (did you mean [station.cpu]?)");
    expect_check_error("[station.cpu]\nserver = 1\n", "t.ini:2: station.cpu.server: unknown key (did you mean servers?)");
    expect_check_error("[station.cpu]\nservers = 0\n", "t.ini:2: station.cpu.servers: 0 is out of range 1..1024");
    expect_check_error("[station.cpu]\nservice = exp(-1ms)\n",
                       "t.ini:2: station.cpu.service: bad distribution 'exp(-1ms)': exp(): mean must be > 0");
    expect_check_error("[sim]\nload = 1.5\n", "t.ini:2: sim.load: 1.5 is out of range 0..1");
    expect_check_error("[sim]\nload = abc\n", "t.ini:2: sim.load: 'abc': not a number");
    expect_check_error("[sim]\nload = 0.5x\n", "t.ini:2: sim.load: '0.5x': trailing characters after number");
    expect_check_error("[sim]\nload = nan\n", "t.ini:2: sim.load: 'nan': not a number");
    expect_check_error("[sim]\nload = inf\n", "t.ini:2: sim.load: 'inf': not a number");
    /* strtod and strtol's hexadecimal forms are not numbers of a config */
    expect_check_error("[sim]\nreplications = 0x10\n", "t.ini:2: sim.replications: '0x10': not an integer");
    expect_check_error("[sim]\nload = 0x0.8p0\n", "sim.load: '0x0.8p0': not a number");
    expect_check_error("[sim]\nduration = 0x10ms\n", "sim.duration: '0x10ms': not a number");
    expect_check_error("[sim]\nrate = -0X5/s\n", "sim.rate: '-0X5/s': not a number");
    expect_check_error("[sim]\nload = 1e999\n", "number out of range");
    expect_check_error("[sim]\nduration = 5 parsecs\n", "sim.duration: '5 parsecs': unknown time unit");
    expect_check_error("[sim]\nduration = 1e308h\n", "sim.duration: '1e308h': number out of range");
    expect_check_error("[sim]\nduration = -1s\n", "sim.duration: -1s is out of range 0.001..1e+07 s");
    expect_check_error("[sim]\nrate = 5ms\n", "sim.rate: '5ms': unknown rate unit");
    expect_check_error("[sim]\nmode = Open\n", "t.ini:2: sim.mode: 'Open' is not one of open|closed|waves");
    expect_check_error("[sim]\nmode = ope\n", "is not one of");
    expect_check_error("[sim]\nverbose = maybe\n", "t.ini:2: sim.verbose: 'maybe': expected true or false");
    expect_check_error("[sim]\nreplications = 2.5\n", "sim.replications: '2.5': not an integer");
    expect_check_error("[sim]\nreplications = 99999999999999999999\n", "integer out of range");
    expect_check_error("[sim]\nreplications =\n", "sim.replications: '': not an integer");
}

/* One file sets a key once and opens a section once; an including file
 * may set an included file's keys again, and --set anything. */
static void expect_text_error(const char *text, const char *msg)
{
    sim_cfg *c = sim_cfg_new();
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_load_string(c, text, "t.ini", &err), SIM_EINPUT);
    if (!strstr(err.msg, msg))
        fail_msg("message '%s' lacks '%s'", err.msg, msg);
    sim_cfg_free(c);
}

static void test_one_file_rules(void **state)
{
    (void)state;
    expect_text_error("[sim]\nseed = 1\nload = 0.5\nseed = 2\n",
                      "t.ini:4: sim.seed: set twice in one file (first at t.ini:2)");
    expect_text_error("top = 1\ntop = 2\n", "t.ini:2: top: set twice in one file (first at t.ini:1)");
    expect_text_error("[sim]\nseed = 1\n[client]\nthink = 1s\n[sim]\nload = 0.5\n",
                      "t.ini:5: [sim] repeated (first at t.ini:1)");
    /* a key set twice around an include of a file that sets it too */
    W("dup_inc.ini", "[sim]\nseed = 5\n");
    char name[600];
    snprintf(name, sizeof name, "%s/dup.ini", test_dir);
    sim_cfg *c = sim_cfg_new();
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_load_string(c, "[sim]\nseed = 1\ninclude = dup_inc.ini\nseed = 2\n",
                                         name, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "dup.ini:2: sim.seed: set at line 2, then again by the "
                                    "include at line 3"));
    sim_cfg_free(c);
    c = sim_cfg_new();
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_load_string(c, "include = dup_inc.ini\n[sim]\nseed = 1\nseed = 2\n",
                                         name, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "dup.ini:4: sim.seed: set twice in one file (first at "));
    assert_non_null(strstr(err.msg, "dup.ini:3)"));
    sim_cfg_free(c);
    sim_err_clear(&err);
    /* overriding an included file's key, twice through a diamond, and --set */
    W("dia_base.ini", "[sim]\nseed = 5\nload = 0.1\n");
    W("dia_a.ini", "include = dia_base.ini\n[sim]\nload = 0.2\n");
    W("dia_b.ini", "include = dia_base.ini\n");
    c = sim_cfg_new();
    assert_int_equal(sim_cfg_load_string(c, "include = dia_a.ini\ninclude = dia_b.ini\n"
                                            "[sim]\nseed = 7\n", name, &err), SIM_OK);
    assert_string_equal(value(c, "sim", "seed"), "7");
    assert_string_equal(value(c, "sim", "load"), "0.1");
    assert_int_equal(sim_cfg_set(c, "sim.seed=8", &err), SIM_OK);
    assert_int_equal(sim_cfg_set(c, "sim.seed=9", &err), SIM_OK);
    assert_string_equal(value(c, "sim", "seed"), "9");
    /* names and text */
    assert_int_equal(sim_cfg_set(c, "my sec.seed=1", &err), SIM_EINPUT);
    assert_string_equal(err.msg, "--set my sec.seed=1: section names use letters, digits, _, - and .");
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_set(c, "sim.seed=\xff", &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "invalid UTF-8 in the value"));
    sim_cfg_free(c);
    expect_text_error("[my section]\nx = 1\n", "t.ini:1: [my section]: section names use letters");
    expect_text_error("[sim]\nname = caf\xc3\n", "t.ini:2: invalid UTF-8");
    expect_text_error("[sim]\n; \xed\xa0\x80 surrogate\n", "t.ini:2: invalid UTF-8");
    expect_text_error("[sim]\nname = \xc0\xaf\n", "t.ini:2: invalid UTF-8");
    c = sim_cfg_new();
    assert_int_equal(sim_cfg_load_string(c, "[sim]\nname = caf\xc3\xa9 \xf0\x9f\x8e\xab\n", "u.ini", &err),
                     SIM_OK);
    sim_cfg_free(c);
    assert_true(sim_utf8_valid("\xe2\x82\xac"));
    assert_false(sim_utf8_valid("\xf4\x90\x80\x80")); /* above U+10FFFF */
    assert_false(sim_utf8_valid("\xe2\x82"));
}

/* ---- typed getters ---- */

static sim_cfg *cfg_from(const char *text)
{
    sim_cfg *c = sim_cfg_new();
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_load_string(c, text, "g.ini", &err), SIM_OK);
    return c;
}

/* [fit.*] sections hold named distributions; a distribution key names one
 * as fit.SECTION.KEY (what tfsim fit --config-out writes, to be included). */
static void test_fit_references(void **state)
{
    (void)state;
    sim_cfg *c = cfg_from("[fit.redis.session]\nsave = exp(mean=2ms)\nget_c4 = 50us\n"
                          "[station.db]\nservice = fit.redis.session.save\n"
                          "[station.web]\nservice = fit.redis.session.get_c4\n"
                          "[client]\nthink = 1s\n");
    sim_err err;
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_check(c, schema, NS, &err), SIM_OK);
    sim_dist d;
    assert_int_equal(sim_cfg_dist(c, schema, NS, "station.db", "service", &d, &err), SIM_OK);
    assert_close(sim_dist_mean(&d), 2e-3, 1e-15);
    sim_dist_fini(&d);
    assert_int_equal(sim_cfg_dist(c, schema, NS, "station.web", "service", &d, &err), SIM_OK);
    assert_close(sim_dist_mean(&d), 50e-6, 1e-15);
    sim_dist_fini(&d);
    /* a missing one names the reference; a bad spec in a fit section and a
     * reference without a key are refused by the check */
    assert_int_equal(sim_cfg_set(c, "station.db.service=fit.redis.session.nope", &err), SIM_OK);
    assert_int_equal(sim_cfg_dist(c, schema, NS, "station.db", "service", &d, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "'fit.redis.session.nope': no such fitted distribution"));
    assert_int_equal(sim_cfg_check(c, schema, NS, &err), SIM_EINPUT);
    sim_cfg_free(c);
    c = cfg_from("[fit.x]\na = exp(mean=-1)\n[client]\nthink = 1s\n");
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_check(c, schema, NS, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "fit.x.a: bad distribution"));
    sim_cfg_free(c);
    c = cfg_from("[station.db]\nservice = fit.\n[client]\nthink = 1s\n");
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_check(c, schema, NS, &err), SIM_EINPUT);
    assert_non_null(strstr(err.msg, "is not fit.SECTION.KEY"));
    sim_cfg_free(c);
    /* [fit] holds the operations without a dot: fit.KEY names one */
    c = cfg_from("[fit]\nping = const(1ms)\n[station.db]\nservice = fit.ping\n[client]\nthink = 1s\n");
    sim_err_clear(&err);
    if (sim_cfg_check(c, schema, NS, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(sim_cfg_dist(c, schema, NS, "station.db", "service", &d, &err), SIM_OK);
    assert_close(sim_dist_mean(&d), 1e-3, 1e-15);
    sim_dist_fini(&d);
    sim_cfg_free(c);
}

static void test_getters(void **state)
{
    (void)state;
    sim_cfg *c = cfg_from("[sim]\nduration = 5ms\nwarmup = 20us\nrate = 900/s\nseed = 1e6\n"
                          "verbose = On\nmode = closed\nload = 0.25\nanything = -1e300\n"
                          "[station.db]\nservers = 16\n[client]\nthink = 2min\n");
    sim_err err;
    sim_err_clear(&err);
    double v;
    long l;
    int b;
    const char *s;
    assert_int_equal(sim_cfg_num(c, schema, NS, "sim", "duration", &v, &err), SIM_OK);
    assert_close(v, 5e-3, 1e-18);
    assert_int_equal(sim_cfg_num(c, schema, NS, "sim", "warmup", &v, &err), SIM_OK);
    assert_close(v, 20e-6, 1e-18);
    assert_int_equal(sim_cfg_num(c, schema, NS, "sim", "rate", &v, &err), SIM_OK);
    assert_close(v, 900, 0);
    assert_int_equal(sim_cfg_num(c, schema, NS, "client", "think", &v, &err), SIM_OK);
    assert_close(v, 120, 0);
    assert_int_equal(sim_cfg_num(c, schema, NS, "sim", "load", &v, &err), SIM_OK);
    assert_close(v, 0.25, 0);
    assert_int_equal(sim_cfg_num(c, schema, NS, "sim", "anything", &v, &err), SIM_OK);
    assert_close(v, -1e300, 0);
    assert_int_equal(sim_cfg_int(c, schema, NS, "sim", "seed", &l, &err), SIM_OK);
    assert_int_equal(l, 1000000);
    assert_int_equal(sim_cfg_int(c, schema, NS, "station.db", "servers", &l, &err), SIM_OK);
    assert_int_equal(l, 16);
    assert_int_equal(sim_cfg_bool(c, schema, NS, "sim", "verbose", &b, &err), SIM_OK);
    assert_int_equal(b, 1);
    assert_int_equal(sim_cfg_str(c, schema, NS, "sim", "mode", &s, &err), SIM_OK);
    assert_string_equal(s, "closed");
    /* defaults from the schema */
    assert_int_equal(sim_cfg_int(c, schema, NS, "sim", "replications", &l, &err), SIM_OK);
    assert_int_equal(l, 10);
    assert_int_equal(sim_cfg_str(c, schema, NS, "sim", "name", &s, &err), SIM_OK);
    assert_string_equal(s, "x");
    assert_int_equal(sim_cfg_str(c, schema, NS, "station.web", "service", &s, &err), SIM_OK);
    assert_string_equal(s, "exp(1ms)");
    assert_int_equal(sim_cfg_int(c, schema, NS, "station.web", "servers", &l, &err), SIM_OK);
    assert_int_equal(l, 1);
    /* --set wins, and its errors say so */
    assert_int_equal(sim_cfg_set(c, "sim.rate=2/ms", &err), SIM_OK);
    assert_int_equal(sim_cfg_num(c, schema, NS, "sim", "rate", &v, &err), SIM_OK);
    assert_close(v, 2000, 0);
    assert_int_equal(sim_cfg_set(c, "sim.load=2", &err), SIM_OK);
    assert_int_equal(sim_cfg_num(c, schema, NS, "sim", "load", &v, &err), SIM_EINPUT);
    assert_string_equal(err.msg, "--set: sim.load: 2 is out of range 0..1");
    sim_cfg_free(c);

    /* required key without a value */
    c = cfg_from("[sim]\nseed = 2\n");
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_num(c, schema, NS, "client", "think", &v, &err), SIM_EINPUT);
    assert_string_equal(err.msg, "g.ini: client.think: required key is missing");
    /* errors name file:line: section.key */
    sim_cfg_free(c);
    c = cfg_from("[sim]\n\nverbose = 2\n");
    sim_err_clear(&err);
    assert_int_equal(sim_cfg_bool(c, schema, NS, "sim", "verbose", &b, &err), SIM_EINPUT);
    assert_string_equal(err.msg, "g.ini:3: sim.verbose: '2': expected true or false");
    sim_cfg_free(c);
}

/* ---- parsers and helpers ---- */

static void test_parsers(void **state)
{
    (void)state;
    double v;
    long l;
    int b;
    const char *why;
    assert_int_equal(sim_parse_duration("1.5e-3s", &v, &why), 0);
    assert_close(v, 1.5e-3, 0);
    assert_int_equal(sim_parse_duration("7ns", &v, &why), 0);
    assert_close(v, 7e-9, 1e-24);
    assert_int_equal(sim_parse_duration("1h", &v, &why), 0);
    assert_close(v, 3600, 0);
    assert_int_equal(sim_parse_duration("3 ms ", &v, &why), 0);
    assert_close(v, 3e-3, 0);
    assert_int_equal(sim_parse_duration("ms", &v, &why), -1);
    assert_int_equal(sim_parse_duration("1msx", &v, &why), -1);
    assert_int_equal(sim_parse_duration("1e400", &v, &why), -1);
    assert_int_equal(sim_parse_rate("900", &v, &why), 0);
    assert_close(v, 900, 0);
    assert_int_equal(sim_parse_rate("54000/min", &v, &why), 0);
    assert_close(v, 900, 1e-9);
    assert_int_equal(sim_parse_rate("3600/h", &v, &why), 0);
    assert_close(v, 1, 1e-12);
    assert_int_equal(sim_parse_rate("1e308/ms", &v, &why), -1);
    assert_string_equal(why, "number out of range");
    assert_int_equal(sim_parse_long(" 42 ", &l, &why), 0);
    assert_int_equal(l, 42);
    assert_int_equal(sim_parse_long("-7", &l, &why), 0);
    assert_int_equal(l, -7);
    assert_int_equal(sim_parse_long("2e3", &l, &why), 0);
    assert_int_equal(l, 2000);
    assert_int_equal(sim_parse_long("", &l, &why), -1);
    assert_int_equal(sim_parse_double(" -2.5 ", &v, &why), 0);
    assert_close(v, -2.5, 0);
    assert_int_equal(sim_parse_double("inf", &v, &why), -1);
    assert_int_equal(sim_parse_double("", &v, &why), -1);
    assert_string_equal(why, "empty value");
    static const char *yes[] = {"1", "true", "YES", "on"}, *no[] = {"0", "False", "no", "OFF"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(sim_parse_bool(yes[i], &b, &why), 0);
        assert_int_equal(b, 1);
        assert_int_equal(sim_parse_bool(no[i], &b, &why), 0);
        assert_int_equal(b, 0);
    }
    assert_int_equal(sim_parse_bool("2", &b, &why), -1);
    assert_int_equal(sim_edit_distance("seed", "sed"), 1);
    assert_int_equal(sim_edit_distance("kitten", "sitting"), 3);
    assert_int_equal(sim_edit_distance("SEED", "seed"), 0);
    assert_int_equal(sim_edit_distance("", "abc"), 3);
    char lng[80];
    memset(lng, 'a', 79);
    lng[79] = '\0';
    assert_int_equal(sim_edit_distance(lng, "a"), 100);
}

static void test_spec_lookup(void **state)
{
    (void)state;
    assert_ptr_equal(sim_cfg_spec(schema, NS, "station.x", "servers"), &schema[10]);
    assert_ptr_equal(sim_cfg_spec(schema, NS, "station.x.y", "servers"), &schema[10]);
    assert_null(sim_cfg_spec(schema, NS, "station", "servers"));
    assert_null(sim_cfg_spec(schema, NS, "station.", "servers"));
    assert_null(sim_cfg_spec(schema, NS, "sim", "servers"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_syntax),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_long_lines),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_include_and_override),
        cmocka_unit_test(test_set_errors),
        cmocka_unit_test(test_include_cycle),
        cmocka_unit_test(test_include_depth),
        cmocka_unit_test(test_load_string),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_getters),
        cmocka_unit_test(test_one_file_rules),
        cmocka_unit_test(test_fit_references),
        cmocka_unit_test(test_parsers),
        cmocka_unit_test(test_spec_lookup),
    };
    return cmocka_run_group_tests_name("sim_cfg", tests, test_dir_setup, NULL);
}
