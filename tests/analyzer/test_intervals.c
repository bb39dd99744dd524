/* Interval-set algebra against hand-computed sets. a = [0,10) [20,30) [40,50), b = [5,25) [45,60):
 *   a ∩ b = [5,10) [20,25) [45,50); a − b = [0,5) [25,30) [40,45);
 *   |a| = 30; |a inside [8,42)| = 2 + 10 + 2 = 14. Unsorted input with a nested, a touching and an empty interval
 *   normalises to the merged set. */
#include <stdio.h>

#include "analyses/base.h"

static int failures;

static void expect(const char *what, const struct ps_ivls *got, const int64_t *want, size_t n)
{
    int ok = got->n == n;
    for (size_t i = 0; ok && i < n; i++)
        ok = got->v[i].s == want[2 * i] && got->v[i].e == want[2 * i + 1];
    if (!ok) {
        fprintf(stderr, "%s:", what);
        for (size_t i = 0; i < got->n; i++)
            fprintf(stderr, " [%lld,%lld)", (long long)got->v[i].s, (long long)got->v[i].e);
        fprintf(stderr, "\n");
        failures++;
    }
}

int main(void)
{
    struct ps_ivls a = { 0 }, b = { 0 }, out = { 0 }, u = { 0 };
    ps_ivls_push(&a, 40, 50);
    ps_ivls_push(&a, 0, 10);
    ps_ivls_push(&a, 20, 30);
    ps_ivls_push(&a, 22, 25);   /* nested */
    ps_ivls_push(&a, 30, 30);   /* empty: ignored */
    ps_ivls_normalize(&a);
    expect("normalize", &a, (int64_t[]){ 0, 10, 20, 30, 40, 50 }, 3);
    ps_ivls_push(&b, 5, 25);
    ps_ivls_push(&b, 45, 60);
    ps_ivls_normalize(&b);
    ps_ivls_intersect(&out, &a, &b);
    expect("intersect", &out, (int64_t[]){ 5, 10, 20, 25, 45, 50 }, 3);
    ps_ivls_subtract(&out, &a, &b);
    expect("subtract", &out, (int64_t[]){ 0, 5, 25, 30, 40, 45 }, 3);
    if (ps_ivls_total(&a) != 30 || ps_ivls_within(&a, 8, 42) != 14) {
        fprintf(stderr, "total %lld, within %lld\n", (long long)ps_ivls_total(&a), (long long)ps_ivls_within(&a, 8, 42));
        failures++;
    }
    ps_ivls_push(&u, 0, 10);
    ps_ivls_push(&u, 10, 15);   /* touching, in order: merged on insert */
    expect("touching", &u, (int64_t[]){ 0, 15 }, 1);
    ps_ivls_fini(&a);
    ps_ivls_fini(&b);
    ps_ivls_fini(&out);
    ps_ivls_fini(&u);
    return failures ? 1 : 0;
}
