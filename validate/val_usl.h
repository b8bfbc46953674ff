/* val_usl: Universal Scalability Law and Amdahl fits of throughput versus
 * concurrency.
 *
 * Role: fit X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1)) to
 * points (N_i, X_i) by nonlinear least squares on X (GSL
 * gsl_multifit_nlinear, trust region with Levenberg-Marquardt steps and an
 * analytic Jacobian), with sigma >= 0 and kappa >= 0; the Amdahl model is
 * the same with kappa = 0.  No N = 1 point is needed: lambda is a fitted
 * parameter, not X(1).
 *
 * Method: the start comes from the linear least-squares fit of N/X = a + b N
 * + c N^2 (the USL is linear in that form).  The constraints are handled by
 * an active set: the unconstrained fit is kept when it is feasible;
 * otherwise every fit with the offending parameters held at 0 is tried and
 * the feasible one with the least squared error wins (for two bound
 * constraints this finds the constrained optimum when each sub-fit
 * converges).  Standard errors come from the covariance s^2 (J'J)^-1 of
 * all the model's parameters at the solution (s^2 = SSE / (m - p)); for a
 * parameter held at its bound this is the curvature there, so read its
 * interval as one-sided.  Goodness of fit: R^2, adjusted R^2 and AICc
 * (m ln(SSE/m) + 2p + 2p(p+1)/(m-p-1)); the model with the lower AICc fits
 * better, a difference under 2 is no real preference.
 *
 * Invariants: a successful fit has lambda > 0, sigma >= 0, kappa >= 0
 * (kappa == 0 for Amdahl).  Needs m >= p + 1 points at p + 1 distinct N
 * (p = 3 for USL, 2 for Amdahl), all N >= 1 and X > 0 finite.
 * Cost: O(m) per iteration, a few hundred iterations at most per sub-fit;
 * up to four sub-fits.
 */
#ifndef VAL_USL_H
#define VAL_USL_H

#include <stddef.h>

#include "sim/sim_err.h"

typedef enum val_usl_model { VAL_USL_USL = 0, VAL_USL_AMDAHL = 1 } val_usl_model;

typedef struct val_usl_result {
    val_usl_model model;
    double lambda, sigma, kappa;          /* lambda in throughput units per unit of N */
    double se_lambda, se_sigma, se_kappa; /* standard errors; NaN when J'J is singular;
                                             se_kappa = 0 for Amdahl (kappa fixed) */
    int sigma_at_bound, kappa_at_bound;   /* held at 0 by the constraint */
    size_t m;                             /* points */
    int p;                                /* model parameters: 3 (USL) or 2 (Amdahl) */
    double sse, r2, adj_r2, aicc;
    double n_peak;                        /* N* = sqrt((1 - sigma)/kappa); INFINITY when
                                             kappa = 0 and sigma < 1; 1 when sigma >= 1 */
    double x_peak;                        /* X(N*); lambda/sigma (the asymptote) when
                                             N* is infinite; INFINITY when sigma = kappa = 0 */
    size_t iterations;                    /* of the winning sub-fit */
} val_usl_result;

/* USL (or Amdahl) throughput at concurrency n for the given parameters. */
double val_usl_x(double lambda, double sigma, double kappa, double n);
/* The fitted curve at n. */
double val_usl_eval(const val_usl_result *r, double n);

/* Fit model to the m points (n[i], x[i]) (borrowed).  Returns SIM_OK and
 * fills *out; SIM_EINPUT for bad or too few points ("USL fit: ..."; the
 * caller prefixes file and series), SIM_EFAIL when no sub-fit converges. */
int val_usl_fit(const double *n, const double *x, size_t m, val_usl_model model,
                val_usl_result *out, sim_err *err);

/* Which of two fits of the same points is better by AICc: returns the
 * better one (a or b); *delta = |AICc(a) - AICc(b)|. */
const val_usl_result *val_usl_better(const val_usl_result *a, const val_usl_result *b,
                                     double *delta);

/* "usl" or "amdahl". */
const char *val_usl_model_name(val_usl_model m);

#endif
