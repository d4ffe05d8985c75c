/*
 * check.h - minimal assertion helpers shared by every C test under tests/.
 *
 * Each test program is one translation unit: include this once, use the
 * CHECK* macros, and end main() with `return check_summary();`, which
 * prints "N passed, N failed" and returns non-zero if anything failed.
 * Failures print file:line and keep going, so one run shows every failure.
 */
#ifndef FTL_SIM_TEST_CHECK_H
#define FTL_SIM_TEST_CHECK_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static unsigned long check_passed_count;
static unsigned long check_failed_count;

static inline int check_record(int ok, const char *file, int line,
                               const char *what)
{
    if (ok) {
        check_passed_count++;
    } else {
        check_failed_count++;
        fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what);
    }
    return ok;
}

/* Plain boolean check. */
#define CHECK(cond) \
    ((void)check_record(!!(cond), __FILE__, __LINE__, #cond))

/* Unsigned 64-bit equality; prints both values on failure. */
#define CHECK_EQ_U64(a, b) do { \
        uint64_t check_a_ = (uint64_t)(a), check_b_ = (uint64_t)(b); \
        if (!check_record(check_a_ == check_b_, __FILE__, __LINE__, \
                          #a " == " #b)) \
            fprintf(stderr, "    %" PRIu64 " != %" PRIu64 "\n", \
                    check_a_, check_b_); \
    } while (0)

/* |a - b| <= tol for doubles; prints the values on failure. */
#define CHECK_NEAR(a, b, tol) do { \
        double check_a_ = (double)(a), check_b_ = (double)(b); \
        double check_t_ = (double)(tol); \
        if (!check_record(fabs(check_a_ - check_b_) <= check_t_, \
                          __FILE__, __LINE__, #a " ~= " #b)) \
            fprintf(stderr, "    %.6g vs %.6g (tolerance %.3g)\n", \
                    check_a_, check_b_, check_t_); \
    } while (0)

/* Substring check, for error messages. */
#define CHECK_CONTAINS(haystack, needle) do { \
        const char *check_h_ = (haystack), *check_n_ = (needle); \
        if (!check_record(check_h_ != NULL && strstr(check_h_, check_n_) \
                          != NULL, __FILE__, __LINE__, \
                          #haystack " contains \"" needle "\"")) \
            fprintf(stderr, "    got: \"%s\"\n", \
                    check_h_ ? check_h_ : "(null)"); \
    } while (0)

/* Print the summary line; returns the process exit status. */
static inline int check_summary(void)
{
    printf("%lu passed, %lu failed\n", check_passed_count,
           check_failed_count);
    return check_failed_count ? 1 : 0;
}

#endif
