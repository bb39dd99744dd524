/* The arithmetic and the text behind TraceLens' CSV numbers: numpy's pairwise summation (np.sum, np.mean,
 * np.std, np.median), pandas' groupby aggregations (Kahan-compensated sum and mean, Welford's sample std), and
 * pandas' to_csv text (floats as Python's repr: shortest round trip). docs/op-perf.md. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_perf_impl.h"

/* numpy pairwise_sum (numpy/_core/src/umath/loops_utils.h.src): blocks of 8 below 128 elements, halves above */
static double pairwise(const double *a, size_t n)
{
    if (n < 8) {
        double r = -0.0;
        for (size_t i = 0; i < n; i++)
            r += a[i];
        return r;
    }
    if (n <= 128) {
        double r[8];
        size_t i;
        memcpy(r, a, sizeof r);
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++)
                r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    size_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise(a, n2) + pairwise(a + n2, n - n2);
}

double tl_np_sum(const double *a, size_t n)
{
    return n ? pairwise(a, n) : 0.0;
}

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double tl_np_median(double *a, size_t n)
{
    qsort(a, n, sizeof *a, cmp_d);
    if (n % 2)
        return a[n / 2];
    double two[2] = { a[n / 2 - 1], a[n / 2] };
    return tl_np_sum(two, 2) / 2;
}

static double kahan(const double *a, size_t n)
{
    double total = 0.0, comp = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (a[i] != a[i])
            continue;
        double y = a[i] - comp, t = total + y;
        comp = t - total - y;
        total = t;
    }
    return total;
}

static size_t valid(const double *a, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += a[i] == a[i];
    return k;
}

double tl_pd_mean(const double *a, size_t n)
{
    size_t k = valid(a, n);
    return k ? kahan(a, n) / (double)k : NAN;
}

double tl_pd_sum(const double *a, size_t n)
{
    return kahan(a, n);
}

double tl_pd_std(const double *a, size_t n)
{
    double mean = 0, ssq = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (a[i] != a[i])
            continue;
        k++;
        double old = mean;
        mean += (a[i] - old) / (double)k;
        ssq += (a[i] - mean) * (a[i] - old);
    }
    return k < 2 ? NAN : sqrt(ssq / (double)(k - 1));
}

double tl_pd_median(const double *a, size_t n, double *tmp)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i] == a[i])
            tmp[k++] = a[i];
    if (!k)
        return NAN;
    qsort(tmp, k, sizeof *tmp, cmp_d);
    return k % 2 ? tmp[k / 2] : (tmp[k / 2 - 1] + tmp[k / 2]) / 2;
}

double tl_pd_min(const double *a, size_t n)
{
    double r = NAN;
    for (size_t i = 0; i < n; i++)
        if (a[i] == a[i] && !(r <= a[i]))
            r = a[i];
    return r;
}

double tl_pd_max(const double *a, size_t n)
{
    double r = NAN;
    for (size_t i = 0; i < n; i++)
        if (a[i] == a[i] && !(r >= a[i]))
            r = a[i];
    return r;
}

double tl_pd_first(const double *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] == a[i])
            return a[i];
    return NAN;
}

/* Python's float repr (the shortest text that reads back to x; fixed notation for exponents -4..15). */
void tl_repr(double x, char *out)
{
    if (x != x) {
        strcpy(out, "nan");
        return;
    }
    if (isinf(x)) {
        strcpy(out, x > 0 ? "inf" : "-inf");
        return;
    }
    if (x == 0) {
        strcpy(out, signbit(x) ? "-0.0" : "0.0");
        return;
    }
    char e[40];
    for (int p = 0; p < 17; p++) {
        snprintf(e, sizeof e, "%.*e", p, x);
        if (strtod(e, NULL) == x)
            break;
    }
    char digits[24];
    int nd = 0, neg = e[0] == '-';
    const char *s = e + neg;
    for (; *s && *s != 'e'; s++)
        if (*s != '.')
            digits[nd++] = *s;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = 0;
    int exp = atoi(s + 1);
    char *o = out;
    if (neg)
        *o++ = '-';
    if (exp < -4 || exp >= 16) {
        o += sprintf(o, "%c", digits[0]);
        if (nd > 1)
            o += sprintf(o, ".%s", digits + 1);
        sprintf(o, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    } else if (exp < 0) {
        o += sprintf(o, "0.");
        for (int k = 0; k < -exp - 1; k++)
            *o++ = '0';
        strcpy(o, digits);
    } else if (exp + 1 >= nd) {
        o += sprintf(o, "%s", digits);
        for (int k = nd; k < exp + 1; k++)
            *o++ = '0';
        strcpy(o, ".0");
    } else {
        memcpy(o, digits, (size_t)exp + 1);
        o += exp + 1;
        sprintf(o, ".%s", digits + exp + 1);
    }
}

/* ---- growing strings ---- */
void tl_str_add(struct tl_str *b, const char *s)
{
    size_t n = strlen(s);
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 128;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n + 1);
    b->n += n;
}

void tl_str_addf(struct tl_str *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        tl_str_add(b, small);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    tl_str_add(b, big);
    free(big);
}

int tl_str_take(struct tl_str *b, char **out)
{
    *out = b->oom ? NULL : b->s ? b->s : strdup("");
    if (b->oom)
        free(b->s);
    memset(b, 0, sizeof *b);
    return *out ? 0 : -ENOMEM;
}

/* ---- tables ---- */
int tl_tab_start(struct ps_tl_tables *all, const char *name, const char *const *cols, size_t ncols,
                 struct tl_tab *tab)
{
    struct ps_tl_table *v = realloc(all->v, (all->n + 1) * sizeof *v);
    memset(tab, 0, sizeof *tab);
    if (!v)
        return -ENOMEM;
    all->v = v;
    struct ps_tl_table *t = &v[all->n];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->cols = calloc(ncols + 1, sizeof *t->cols);
    if (!t->cols)
        return -ENOMEM;
    all->n++;
    t->ncols = ncols;
    for (size_t k = 0; k < ncols; k++)
        if (!(t->cols[k] = strdup(cols[k])))
            return -ENOMEM;
    tab->t = t;
    return 0;
}

void tl_tab_cell(struct tl_tab *tab, char *owned)
{
    struct ps_tl_table *t = tab->t;
    if (!owned || tab->oom) {
        free(owned);
        tab->oom = 1;
        return;
    }
    size_t n = t->nrows * t->ncols + tab->pending;
    if (n + 1 > tab->cap_cells) {
        size_t cap = tab->cap_cells ? tab->cap_cells * 2 : 256;
        char **p = realloc(t->cells, cap * sizeof *p);
        if (!p) {
            free(owned);
            tab->oom = 1;
            return;
        }
        t->cells = p;
        tab->cap_cells = cap;
    }
    t->cells[n] = owned;
    if (++tab->pending == t->ncols) {
        tab->pending = 0;
        t->nrows++;
    }
}

void tl_tab_str(struct tl_tab *tab, struct tl_str *b)
{
    char *s;
    (void)tl_str_take(b, &s);   /* out of memory: s NULL, which marks the table */
    tl_tab_cell(tab, s);
}

void tl_tab_text(struct tl_tab *tab, const char *s)
{
    tl_tab_cell(tab, strdup(s ? s : ""));
}

void tl_tab_num(struct tl_tab *tab, double x)
{
    char r[40] = "";
    if (x == x)
        tl_repr(x, r);
    tl_tab_text(tab, r);
}

void tl_tab_int(struct tl_tab *tab, long long x)
{
    char r[32];
    snprintf(r, sizeof r, "%lld", x);
    tl_tab_text(tab, r);
}

int tl_tab_permute(struct tl_tab *tab, const size_t *perm)
{
    struct ps_tl_table *t = tab->t;
    size_t nc = t->ncols, total = t->nrows * nc;
    char **cells = malloc((total + 1) * sizeof *cells);
    if (!cells)
        return -ENOMEM;
    for (size_t r = 0; r < t->nrows; r++)
        memcpy(cells + r * nc, t->cells + perm[r] * nc, nc * sizeof *cells);
    memcpy(t->cells, cells, total * sizeof *cells);
    free(cells);
    return 0;
}

void ps_tl_tables_fini(struct ps_tl_tables *all)
{
    for (size_t k = 0; k < all->n; k++) {
        struct ps_tl_table *t = &all->v[k];
        for (size_t c = 0; c < t->ncols; c++)
            free(t->cols ? t->cols[c] : NULL);
        size_t cells = t->nrows * t->ncols;
        for (size_t c = 0; t->cells && c < cells; c++)
            free(t->cells[c]);
        free(t->cols);
        free(t->cells);
    }
    free(all->v);
    memset(all, 0, sizeof *all);
}
