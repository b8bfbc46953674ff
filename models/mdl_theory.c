#include "models/mdl_theory.h"

#include <assert.h>
#include <math.h>

double mdl_erlang_c(int c, double a)
{
    assert(c >= 1 && a >= 0 && a < c);
    /* Erlang B by the stable recursion, then C from B. */
    double b = 1;
    for (int k = 1; k <= c; k++)
        b = a * b / (k + a * b);
    double rho = a / c;
    return b / (1 - rho + rho * b);
}

int mdl_theory_mmc(double lambda, double s, int c, mdl_open_result *out)
{
    double a = lambda * s;
    if (!(a < c) || lambda <= 0 || s <= 0)
        return -1;
    double pw = mdl_erlang_c(c, a);
    double mu = 1 / s;
    out->rho = a / c;
    out->wait = pw / (c * mu - lambda);
    out->response = out->wait + s;
    out->lq = lambda * out->wait;
    out->l = lambda * out->response;
    /* p99 of the response time is exponential only for c = 1 */
    out->p99 = c == 1 ? -log(0.01) / (mu - lambda) : NAN;
    return 0;
}

int mdl_theory_mg1(double lambda, double s, double v, mdl_open_result *out)
{
    double rho = lambda * s;
    if (!(rho < 1) || lambda <= 0 || s < 0)
        return -1;
    double es2 = v + s * s;
    out->rho = rho;
    out->wait = lambda * es2 / (2 * (1 - rho));
    out->response = out->wait + s;
    out->lq = lambda * out->wait;
    out->l = lambda * out->response;
    out->p99 = NAN;
    return 0;
}

int mdl_mva(const mdl_mva_station *st, size_t k, double z, long n, double *x, double *r, double *q,
            double *res)
{
    assert(n >= 0);
    double qq[64], rr[64];
    assert(k <= 64);
    for (size_t i = 0; i < k; i++)
        qq[i] = 0;
    double xn = 0, rn = 0;
    for (long m = 1; m <= n; m++) {
        rn = 0;
        for (size_t i = 0; i < k; i++) {
            rr[i] = st[i].delay ? st[i].demand : st[i].demand * (1 + qq[i]);
            rn += rr[i];
        }
        xn = (double)m / (z + rn);
        for (size_t i = 0; i < k; i++)
            qq[i] = xn * rr[i];
    }
    if (n == 0)
        for (size_t i = 0; i < k; i++)
            rr[i] = st[i].demand, rn += rr[i];
    *x = xn;
    *r = rn;
    for (size_t i = 0; i < k; i++) {
        if (q)
            q[i] = qq[i];
        if (res)
            res[i] = rr[i];
    }
    return 0;
}

double mdl_bound_throughput(double d, double dmax, double z, long n)
{
    double a = (double)n / (d + z);
    double b = dmax > 0 ? 1 / dmax : INFINITY;
    return a < b ? a : b;
}
