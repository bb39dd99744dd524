/* Exact µs -> ns conversion of Kineto timestamps (no double in between); expected values by hand. */
#include <stdint.h>

#include "check.h"
#include "reader_impl.h"

static long long us_ns(const char *s)
{
    int64_t v = -42;
    if (ps_parse_us_to_ns(s, strlen(s), &v) < 0)
        return -999999;
    return v;
}

static int parses(const char *s)
{
    int64_t v;
    return ps_parse_us_to_ns(s, strlen(s), &v) == 0;
}

static long long as_int(const char *s)
{
    int64_t v = -42;
    return ps_parse_int(s, strlen(s), &v) < 0 ? -999999 : v;
}

int main(void)
{
    /* integers and ns-resolution decimals: digits shift by 3 */
    CHECK_EQ(us_ns("7"), 7000);
    CHECK_EQ(us_ns("12.345"), 12345);
    CHECK_EQ(us_ns("0"), 0);
    CHECK_EQ(us_ns("-3.5"), -3500);
    CHECK_EQ(us_ns("1623143089861.123"), 1623143089861123LL);
    /* ddp_resnet trace style: 1712195495519695.8 µs parsed as a double and times 1000 gives
     * 1712195495519695872 ns (python3: int(float('1712195495519695.8')*1000)); exactly it is ...695800. */
    CHECK_EQ(us_ns("1712195495519695.8"), 1712195495519695800LL);
    CHECK_EQ(us_ns("1419116104994.671"), 1419116104994671LL);
    /* below 1 ns: round half to even (0.5 -> 0, 1.5 -> 2, 2.5 -> 2; anything above half rounds up) */
    CHECK_EQ(us_ns("0.0005"), 0);
    CHECK_EQ(us_ns("0.0015"), 2);
    CHECK_EQ(us_ns("0.0025"), 2);
    CHECK_EQ(us_ns("0.00250000001"), 3);
    CHECK_EQ(us_ns("2.0004999"), 2000);
    CHECK_EQ(us_ns("1.0006"), 1001);
    /* exponents */
    CHECK_EQ(us_ns("1e3"), 1000000);
    CHECK_EQ(us_ns("1.5E-3"), 2);
    CHECK_EQ(us_ns("2.5e-3"), 2);
    CHECK_EQ(us_ns("1.23456789e2"), 123457);
    /* range: INT64_MAX ns = 9223372036854775.807 µs */
    CHECK_EQ(us_ns("9223372036854775.807"), INT64_MAX);
    CHECK(!parses("9223372036854775.808"));
    CHECK(!parses("1e30"));
    /* not JSON numbers */
    CHECK(!parses(""));
    CHECK(!parses("abc"));
    CHECK(!parses("01"));
    CHECK(!parses("1."));
    CHECK(!parses(".5"));
    CHECK(!parses("1e"));
    CHECK(!parses("1.5x"));
    /* many digits: still exact after the 38th significant digit (dropped digits only decide rounding) */
    CHECK_EQ(us_ns("1.00000000000000000000000000000000000000000001"), 1000);
    CHECK_EQ(us_ns("0.00050000000000000000000000000000000000000001"), 1);
    /* integers for ids and bytes */
    CHECK_EQ(as_int("7"), 7);
    CHECK_EQ(as_int("7.0"), 7);
    CHECK_EQ(as_int("1e3"), 1000);
    CHECK_EQ(as_int("-1"), -1);
    CHECK_EQ(as_int("4294967295"), 4294967295LL);
    CHECK_EQ(as_int("7.5"), -999999);
    CHECK_EQ(as_int("99999999999999999999"), -999999);
    return check_failures ? 1 : 0;
}
