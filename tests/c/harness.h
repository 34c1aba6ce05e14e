/* A tiny test harness: CHECK records failures, the runner prints "N passed, N failed". */
#ifndef TS_HARNESS_H
#define TS_HARNESS_H
#include <stdio.h>

static int ts_failures_in_test;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
            ts_failures_in_test++;                                                     \
        }                                                                              \
    } while (0)

#define RUN(test, passed, failed)                                                      \
    do {                                                                               \
        ts_failures_in_test = 0;                                                       \
        test();                                                                        \
        if (ts_failures_in_test) {                                                     \
            fprintf(stderr, "FAIL %s\n", #test);                                       \
            (failed)++;                                                                \
        } else {                                                                       \
            (passed)++;                                                                \
        }                                                                              \
    } while (0)

#endif
