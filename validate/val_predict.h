/* val_predict: `tfsim predict`: the curve of an architecture that was not
 * measured under load, from a calibrated baseline and the target's
 * light-load operation timings, as opts -> run -> table.
 *
 * Steps:
 *  1. The baseline's calibration (val_calib), from the first that applies:
 *     --config (its values as given); a fit stored in the cache for the
 *     same data, architecture, model version, fitted keys and options; the
 *     shipped calibration (the embedded defaults) when the baseline's data
 *     are those it was fitted on (TF_PARAMS_CALIBRATED_DATA); else a fit of
 *     the baseline from the file (saved in the cache).  force_fit skips the
 *     second and third.  A fit or a stored one is made with either load
 *     generator (opts.client, AUTO by default: both, the lower objective
 *     kept).
 *  2. The target's own demands: at its lowest concurrency with operation
 *     timings (a light-load probe), the timings of the components the
 *     target does not share with the baseline fix their demands, as the
 *     seed's Amdahl table swaps only the component that changes: the
 *     registry's rows whose `own` bits match those backends (TigerBeetle
 *     batch latency from the accounting timings; the Redis client cost
 *     from the session timings) are fitted to those timings (kinds only,
 *     weight 1), from the baseline's values; cached like a calibration.
 *     A component both run whose value the baseline's calibration fitted
 *     under load on the same servers keeps it: PostgreSQL's statement cost
 *     (every architecture writes its orders there) and, when both account
 *     in PostgreSQL, the holds table's state, the series' rows.  The same
 *     SQL on the same database costs the same, and a light load's single
 *     timing carries what a light load adds (code paths and backends gone
 *     cold between requests, measured: docs/live-tigerfans.md, "A Python loop is slow
 *     after it idled") and its noise.  (Redis's and TigerBeetle's costs are
 *     not among a calibration's fitted keys: the target's timings fit
 *     them whether or not the baseline runs them.)  refit_shared fits the
 *     kept ones too, as before: the PostgreSQL statement cost from the
 *     target's PostgreSQL timings and, with PostgreSQL accounting, the
 *     holds rows its hold timing implies (each timing taken relative to
 *     the baseline's model error at the same concurrency).
 *  3. The target's state at every concurrency of the baseline: the series'
 *     (val_series: the file's order, or the point placed by it) plus, when
 *     the holds rows were fitted, the difference between the rows its hold
 *     timing implies and the series' rows at its light-load point.
 *  4. The target simulated at every concurrency (reps replications, CI),
 *     and an Amdahl-style scaling of the baseline's measured throughput:
 *     speedup = R / (R - sum of the baseline's kinds of the phase + sum of
 *     the target's), R = 1 / X_baseline at the light-load concurrency.
 *  5. Errors against the target's measured throughputs when the file has
 *     them; MAPE over the points at concurrency >= mape_from.
 *  6. The band: the baseline's own points simulated at its calibration as
 *     the target is (reps replications), their errors against its measured
 *     throughputs (VAL_PREDICT_BAND_Z, with the fit's degrees of freedom).
 *  7. An ensemble (fits > 1, a baseline fitted or stored): steps 1-6 again
 *     from the seeds seed + 1, ..., seed + fits - 1, each with the load
 *     generator the first kept; every point is the mean of the fits'
 *     predictions (fit_lo..fit_hi: their least and greatest), the band
 *     and the errors are those of the means.  A fit's simplex ends where
 *     its seed's noise lets it, and the baseline's throughputs fix the sum
 *     of the costs more than their split (docs/calibration.md, "Fits from
 *     several seeds"): the mean of three fits' predictions was closer
 *     than the seeds' own on twelve live series of twelve.
 * Every assumption is a line in notes.
 *
 * Ownership: val_prediction owns its calibrations (val_predict_fini, also
 * after a failure); options borrowed.  Cost: the baseline's fit when there
 * is one (see val_calib), the light-load fit (tens of evaluations of one
 * point), then twice concurrencies x reps simulations (the target's and the
 * baseline's points), on jobs threads; all of it once per fit.
 */
#ifndef VAL_PREDICT_H
#define VAL_PREDICT_H

#include <stddef.h>

#include "sim/sim_cfg.h"
#include "sim/sim_stats.h"
#include "sim/sim_table.h"
#include "validate/val_calib.h"

#define VAL_PREDICT_MAX_NOTES 48
#define VAL_PREDICT_NOTE_LEN 1024
/* Baseline fits of an ensemble (step 7): the default, and the most. */
#define VAL_PREDICT_FITS 3
#define VAL_PREDICT_MAX_FITS 16

typedef struct val_predict_opts {
    val_calib_run_opts base;   /* file, baseline (base.arch), config, overrides, series,
                                  fit options (seed, jobs, progress), cache */
    const char *target;
    unsigned reps;             /* replications per predicted point */
    int force_fit;             /* fit the baseline from the file even when a calibration is
                                  at hand (stored or shipped) */
    long mape_from;            /* MAPE over the concurrencies >= this */
    int client;                /* enum val_predict_client */
    int refit_shared;          /* 1: fit the components the baseline shares from the
                                  target's light-load timings too (step 2) */
    unsigned fits;             /* baseline fits averaged (step 7), 1..VAL_PREDICT_MAX_FITS;
                                  one when the baseline is given (--config, shipped) */
} val_predict_opts;

/* The load generator the baseline is fitted with.  AUTO: when the baseline
 * is fitted (or read from the cache) and neither the config nor --set
 * names client.httpcore, fit it with the config's client and with the
 * "debian12" preset (validate/val_presets.h: Debian 12's httpx 0.23 /
 * httpcore 0.16) and keep the lower objective: the same data, points and
 * weights, one speed factor fitted for either client.  CONFIG: the
 * config's client only.  DEBIAN12: the preset only (as --config
 * configs/tigerfans/client_debian12.ini over the given base). */
enum val_predict_client {
    VAL_PREDICT_CLIENT_AUTO = 0,
    VAL_PREDICT_CLIENT_CONFIG,
    VAL_PREDICT_CLIENT_DEBIAN12
};

/* A loop busy this share of a phase's time or more holds the phase; predict
 * names the phases and concurrencies from which each loop does. */
#define VAL_PREDICT_HELD 0.9

/* The band around each prediction (band_low, band_high): the baseline's own
 * points simulated at its calibration, the root mean square of their
 * relative errors (at concurrency >= mape_from), widened by sqrt(n / (n -
 * k)) for the k values a fit of its n measured throughputs chose (the
 * residuals of a fit understate the errors of points it did not see: the
 * textbook n - k degrees of freedom), times this factor, the two-sided
 * 90% quantile of a normal error: where about nine in ten of the target's
 * measured points fall if its errors spread as the baseline's do.  The
 * model cannot be closer to an architecture it never saw than to the one
 * it was fitted on, and on a shared VM much of that spread can be the
 * measurement's own (docs/calibration.md, "The band"). */
#define VAL_PREDICT_BAND_Z 1.645

/* How far apart AUTO's two fits are: 100 (hi / lo - 1) percent of the
 * larger objective over the smaller, when that is under 25% (the data
 * hardly tell the clients apart: predict says so), else -1.  The live
 * series of tests/data with their operation timings give 28% to 1,060%;
 * the fourth without them 10%. */
double val_predict_clients_close(double obj_config, double obj_debian12);

/* The choice for a name ("auto", "config", "debian12"; -1: unknown). */
int val_predict_client_parse(const char *name);

/* The defaults (one place): val_calib_run_opts_init, 10 replications,
 * MAPE from concurrency 5, VAL_PREDICT_FITS fits. */
void val_predict_opts_init(val_predict_opts *o);

enum val_predict_source {
    VAL_PREDICT_CONFIG = 0, /* --config as given */
    VAL_PREDICT_CACHED,     /* a fit stored in the cache */
    VAL_PREDICT_SHIPPED,    /* the shipped calibration: the file is the data it came from */
    VAL_PREDICT_FITTED      /* fitted now */
};

typedef struct val_predict_point {
    long concurrency;
    double holds_rows, goodies;
    int how;                                   /* enum val_series_how */
    double thr[TF_NPHASES], half[TF_NPHASES];  /* simulated, CI half-width */
    double fit_lo[TF_NPHASES], fit_hi[TF_NPHASES]; /* the fits' least and greatest thr (one
                                                      fit: thr) */
    double busy[2][TF_NPHASES];  /* busy shares: [0] client's loop, [1] server's (val_calib_sim) */
    double meas[TF_NPHASES];                   /* target measured (NaN: not in the file) */
    double meas_lo[TF_NPHASES], meas_hi[TF_NPHASES]; /* its repetitions' least and greatest */
    double amdahl[TF_NPHASES];                 /* Amdahl-style scaling (NaN: none) */
} val_predict_point;

typedef struct val_prediction {
    val_calibration base;          /* the baseline (owned) */
    int source;                    /* enum val_predict_source */
    int client_tried;              /* 1: AUTO fitted both clients (objectives below) */
    int client_debian12;           /* 1: the baseline's client is the debian12 preset */
    double client_obj[2];          /* AUTO: objective with the config's client, the preset's */
    sim_cfg *client_ov;            /* the overrides with the preset's client (owned; NULL:
                                      CONFIG) */
    val_calibration own;           /* the target's light-load fit (owned; own.np = 0: none) */
    long c0;                       /* the target's light-load concurrency (0: no timings) */
    double rows_series, rows_timing; /* target's holds rows at c0: the series', its hold's */
    double rel[TF_NKINDS];         /* baseline simulated / measured at c0 per kind (1: none;
                                      only with refit_shared) */
    int shared;                    /* TF_OWN_* bits of the components kept from the baseline
                                      (step 2; 0 with refit_shared) */
    char target[VAL_TIGERBENCH_NAME_MAX];
    int target_absent;             /* 1: FILE has no row of the target: its demands are the
                                      config's, its database state the baseline's */
    val_tigerbench_arch absent;    /* the target's record then (no rows) */
    val_predict_point pts[VAL_CALIB_MAX_POINTS];
    size_t n;
    unsigned reps;
    unsigned fits;                 /* baseline fits averaged (step 7) */
    double fit_obj[VAL_PREDICT_MAX_FITS]; /* their objectives (fit 0: base.objective) */
    /* the baseline's points simulated at its calibration (step 6; the mean
     * over the fits), [k][phase] for base.pts[k]; NaN: not simulated */
    double base_thr[VAL_CALIB_MAX_POINTS][TF_NPHASES];
    sim_mape mape_sim, mape_amdahl; /* over the points at concurrency >= mape_from (mape_sim
                                       also counts them within 15% and beyond the
                                       repetitions' range) */
    /* the baseline's measured throughputs against its calibration, simulated
     * as the target is (reps replications), at concurrency >= mape_from (all
     * its points when none is that high): MAPE, root mean square of the
     * relative errors (a fraction; NaN without points), the worst point;
     * not simulated (empty, NaN) when base_n <= base.np: no band then */
    sim_mape base_mape;
    long base_from;                    /* the concurrency they start at (0: every point) */
    double base_rms;
    long base_n;                       /* the baseline's measured throughputs, every point */
    double band;                       /* half-width, a fraction: VAL_PREDICT_BAND_Z x base_rms x
                                          sqrt(base_n / (base_n - base.np)) (NaN: no band) */
    long in_band;                      /* of the mape_sim points, those whose measured mean lies in
                                          the band (0 without a band) */
    int base_worst_phase;
    long base_worst_c;
    double base_worst_err;             /* percent, signed */
    long mape_from;
    char notes[VAL_PREDICT_MAX_NOTES][VAL_PREDICT_NOTE_LEN]; /* a note cut to fit ends in "..." */
    size_t nnotes;
    size_t notes_left_out;             /* notes beyond VAL_PREDICT_MAX_NOTES, the baseline
                                          series' own included */
} val_prediction;

/* Run the prediction.  p is caller storage, filled; free with
 * val_predict_fini (also after a failure).  SIM_EINPUT for bad input
 * (file:line), SIM_EFAIL for a failed simulation. */
int val_predict_run(const val_predict_opts *o, val_prediction *p, sim_err *err);
void val_predict_fini(val_prediction *p);

/* One row per phase and concurrency: phase, concurrency, throughput,
 * ci_low, ci_high, band_low, band_high (throughput x (1 -+ band), the low
 * end at least 0; empty without a band), with more than one fit fit_low,
 * fit_high (the fits' least and greatest), holds_rows
 * (empty when the target accounts in TigerBeetle: no holds table), and
 * when the file has the target's throughput: measured, error_pct, amdahl,
 * amdahl_error_pct. */
void val_predict_table(const val_prediction *p, sim_table *t);

/* A name for the baseline's source ("the shipped calibration", ...). */
const char *val_predict_source_name(int source);

#endif
