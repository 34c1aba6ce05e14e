/* Small dense linear algebra for the SVM solvers' Newton steps: a Cholesky factorisation and
 * its solve, on row-major matrices of a few hundred rows at most. */
#include "internal.h"

#include <math.h>

double ts_dot(const double *a, const double *b, int64_t n)
{
    /* four partial sums: the factorisation is a sequence of these dot products, and one running
     * sum would wait out the latency of every addition */
    int64_t k = 0;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (; k + 4 <= n; k += 4) {
        s0 += a[k] * b[k];
        s1 += a[k + 1] * b[k + 1];
        s2 += a[k + 2] * b[k + 2];
        s3 += a[k + 3] * b[k + 3];
    }
    for (; k < n; k++)
        s0 += a[k] * b[k];
    return (s0 + s1) + (s2 + s3);
}

int ts_cholesky(double *H, int64_t d)
{
    int64_t i, j;
    for (j = 0; j < d; j++) {
        double s = H[j * d + j] - ts_dot(H + j * d, H + j * d, j);
        if (!(s > 0) || !isfinite(s))
            return 1;
        s = sqrt(s);
        H[j * d + j] = s;
        for (i = j + 1; i < d; i++)
            H[i * d + j] = (H[i * d + j] - ts_dot(H + i * d, H + j * d, j)) / s;
    }
    return 0;
}

void ts_cholesky_solve(double *L, int64_t d, const double *b, double *x)
{
    int64_t i, k;
    for (i = 0; i < d; i++)
        x[i] = (b[i] - ts_dot(L + i * d, x, i)) / L[i * d + i];
    /* L' by rows: copied into the upper triangle so that the back substitution reads rows too */
    for (i = 0; i < d; i++)
        for (k = i + 1; k < d; k++)
            L[i * d + k] = L[k * d + i];
    for (i = d - 1; i >= 0; i--)
        x[i] = (x[i] - ts_dot(L + i * d + i + 1, x + i + 1, d - i - 1)) / L[i * d + i];
}
