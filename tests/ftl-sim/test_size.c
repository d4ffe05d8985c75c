/* Unit tests for tools/ftl-sim/size.c: fio's size and time spellings. */
#include "check.h"
#include "size.h"

static void size_ok(const char *text, uint64_t want, int line)
{
    uint64_t got = 0;
    char err[256] = "";
    int rc = parse_size(text, &got, err, sizeof(err));

    if (!check_record(rc == 0 && got == want, __FILE__, line, text))
        fprintf(stderr, "    rc %d, got %llu, want %llu (%s)\n", rc,
                (unsigned long long)got, (unsigned long long)want, err);
}
#define SIZE_OK(t, w) size_ok((t), (w), __LINE__)

static void size_bad(const char *text, const char *want_msg, int line)
{
    uint64_t got = 12345;
    char err[256] = "";
    int rc = parse_size(text, &got, err, sizeof(err));

    if (!check_record(rc == -1 && got == 12345, __FILE__, line, text))
        fprintf(stderr, "    accepted '%s' as %llu\n", text,
                (unsigned long long)got);
    if (!check_record(strstr(err, want_msg) != NULL &&
                      strchr(err, '\n') == NULL, __FILE__, line, want_msg))
        fprintf(stderr, "    message: '%s'\n", err);
}
#define SIZE_BAD(t, m) size_bad((t), (m), __LINE__)

static void dur_ok(const char *text, double want, int line)
{
    double got = -1;
    char err[256] = "";
    int rc = parse_duration_s(text, &got, err, sizeof(err));

    if (!check_record(rc == 0 && fabs(got - want) <= 1e-12 * (want + 1),
                      __FILE__, line, text))
        fprintf(stderr, "    rc %d, got %.17g, want %.17g (%s)\n", rc, got,
                want, err);
}
#define DUR_OK(t, w) dur_ok((t), (w), __LINE__)

static void dur_bad(const char *text, const char *want_msg, int line)
{
    double got = 12345;
    char err[256] = "";
    int rc = parse_duration_s(text, &got, err, sizeof(err));

    if (!check_record(rc == -1 && got == 12345, __FILE__, line, text))
        fprintf(stderr, "    accepted '%s' as %g\n", text, got);
    if (!check_record(strstr(err, want_msg) != NULL &&
                      strchr(err, '\n') == NULL, __FILE__, line, want_msg))
        fprintf(stderr, "    message: '%s'\n", err);
}
#define DUR_BAD(t, m) dur_bad((t), (m), __LINE__)

int main(void)
{
    const uint64_t K = 1024, M = K * K, G = M * K, T = G * K, P = T * K;

    /* plain bytes */
    SIZE_OK("0", 0);
    SIZE_OK("4096", 4096);
    SIZE_OK("4096b", 4096);
    SIZE_OK("4096B", 4096);
    SIZE_OK("18446744073709551615", UINT64_MAX);
    SIZE_OK("0x1000", 4096);
    SIZE_OK("0X10k", 16 * K);

    /* kb_base=1024: plain and B-suffixed prefixes are powers of two */
    SIZE_OK("4k", 4 * K);
    SIZE_OK("4K", 4 * K);
    SIZE_OK("4kb", 4 * K);
    SIZE_OK("4kB", 4 * K);
    SIZE_OK("4KB", 4 * K);
    SIZE_OK("16k", 16 * K);
    SIZE_OK("576M", 576 * M);
    SIZE_OK("576m", 576 * M);
    SIZE_OK("2304M", 2304 * M);
    SIZE_OK("1024k", M);
    SIZE_OK("3G", 3 * G);
    SIZE_OK("3gb", 3 * G);
    SIZE_OK("1T", T);
    SIZE_OK("1048576m", T);
    SIZE_OK("2p", 2 * P);
    SIZE_OK("15PB", 15 * P);

    /* ... and the IEC-looking ones powers of ten (fio's compatibility mode) */
    SIZE_OK("4KiB", 4000);
    SIZE_OK("4ki", 4000);
    SIZE_OK("4kib", 4000);
    SIZE_OK("1mi", 1000000);
    SIZE_OK("1000ki", 1000000);
    SIZE_OK("1MiB", 1000000);
    SIZE_OK("1ti", 1000000000000ULL);
    SIZE_OK("1GiB", 1000000000ULL);
    SIZE_OK("1PIB", 1000000000000000ULL);

    /* errors */
    SIZE_BAD("", "empty");
    SIZE_BAD("-4k", "negative");
    SIZE_BAD("k", "number");
    SIZE_BAD("0x", "number");
    SIZE_BAD(" 4k", "number");
    SIZE_BAD("+4k", "number");
    SIZE_BAD("4x", "suffix 'x'");
    SIZE_BAD("4kk", "suffix 'kk'");
    SIZE_BAD("4 k", "suffix ' k'");
    SIZE_BAD("4k ", "suffix 'k '");
    SIZE_BAD("4kbx", "suffix");
    SIZE_BAD("4ib", "suffix");
    SIZE_BAD("4i", "suffix");
    SIZE_BAD("1.5G", "suffix '.5G'");
    SIZE_BAD("4e3", "suffix");
    SIZE_BAD("4%", "suffix");
    SIZE_BAD("18446744073709551616", "too large");
    SIZE_BAD("99999999999999999999999", "too large");
    SIZE_BAD("16384P", "too large");
    SIZE_BAD("16777216t", "too large");
    SIZE_BAD("0x10000000000000000", "too large");
    SIZE_OK("16383P", 16383 * P);
    {
        uint64_t v = 7;

        CHECK(parse_size(NULL, &v, NULL, 0) == -1 && v == 7);
        CHECK(parse_size("bad", &v, NULL, 0) == -1 && v == 7);
    }

    /* durations: seconds by default */
    DUR_OK("300", 300);
    DUR_OK("300s", 300);
    DUR_OK("300S", 300);
    DUR_OK("300sec", 300);
    DUR_OK("5m", 300);
    DUR_OK("5M", 300);          /* fio: units not case sensitive, m = min */
    DUR_OK("1h", 3600);
    DUR_OK("2d", 172800);
    DUR_OK("500ms", 0.5);
    DUR_OK("500msec", 0.5);
    DUR_OK("250us", 250e-6);
    DUR_OK("250usec", 250e-6);
    DUR_OK("1234567ns", 1234567e-9);
    DUR_OK("40nsec", 40e-9);
    DUR_OK("0", 0);
    DUR_OK("1.5", 1.5);
    DUR_OK("0.5h", 1800);
    DUR_OK(".25m", 15);
    DUR_BAD("", "empty");
    DUR_BAD("-1", "non-negative");
    DUR_BAD("+1", "non-negative");
    DUR_BAD(" 1", "non-negative");
    DUR_BAD("s", "non-negative");
    DUR_BAD("inf", "non-negative");
    DUR_BAD("nan", "non-negative");
    DUR_BAD("1.2.3", "malformed");
    DUR_BAD("5x", "unit 'x'");
    DUR_BAD("5 s", "unit ' s'");
    DUR_BAD("1h30m", "unit 'h30m'");
    DUR_BAD("5mins", "unit");
    DUR_BAD("5ps", "unit");
    DUR_BAD("1e3", "unit 'e3'");
    DUR_BAD("1e400", "unit");
    {
        char big[400];

        memset(big, '9', 330);
        big[330] = '\0';
        DUR_BAD(big, "too");
        memset(big, '9', 60);
        big[60] = '\0';
        DUR_OK(big, 1e60);
        strcpy(big + 60, "d");
        DUR_OK(big, 1e60 * 86400);
    }
    {
        double v = 7;

        CHECK(parse_duration_s(NULL, &v, NULL, 0) == -1 && v == 7);
    }
    return check_summary();
}
