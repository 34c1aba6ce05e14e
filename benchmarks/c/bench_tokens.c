/*
 * Microbenchmark of the word kernel alone (csrc/tokens.c): the documents' words counted into
 * rows while the vocabulary is built (ts_count_terms, ngram_range (1, 1) and (1, 2)), counted
 * again through the vocabulary built (fixed, as transform counts), and hashed into 2^20 columns
 * (ts_hash_terms), min of N runs each, with MB/s of text (a code point counted as a byte) and a
 * checksum so nothing is optimised away.  The Python side of a call (decoding, lowercasing,
 * the columns' order, the vocabulary's dict) is not in these figures.
 *
 * Input: a binary file written by benchmarks/c/dump_texts.py.
 *
 *   cc -O3 -std=c99 -Icsrc benchmarks/c/bench_tokens.c csrc/tokens.c csrc/csr.c -lm -o /tmp/bench_tokens
 *   /tmp/bench_tokens texts.bin [runs] [case]
 *
 * `case` (0-5) runs one row of the table alone (for a profiler): 0-2 the words built, fixed and
 * hashed, 3-5 the same for ngram_range (1, 2).
 */
#define _POSIX_C_SOURCE 199309L
#include "textsel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Monotonic wall-clock seconds. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct {
    int64_t n;
    ts_text *docs;
    uint8_t *word;
    int64_t chars;
} texts_file;

static int read_texts_file(const char *path, texts_file *T)
{
    int64_t d, head[2];
    FILE *f = fopen(path, "rb");
    if (!f || fread(&T->n, sizeof(int64_t), 1, f) != 1 || T->n < 0)
        return 2;
    T->word = malloc(TS_CODE_POINTS / 8);
    T->docs = calloc((size_t)T->n + 1, sizeof(ts_text));
    T->chars = 0;
    if (!T->word || !T->docs || fread(T->word, 1, TS_CODE_POINTS / 8, f) != TS_CODE_POINTS / 8)
        return 2;
    for (d = 0; d < T->n; d++) {
        void *data;
        if (fread(head, sizeof(int64_t), 2, f) != 2 || (head[0] != 1 && head[0] != 2 && head[0] != 4) ||
            head[1] < 0)
            return 2;
        data = malloc((size_t)(head[0] * head[1]) + 1);
        if (!data || fread(data, (size_t)head[0], (size_t)head[1], f) != (size_t)head[1])
            return 2;
        T->docs[d].data = data;
        T->docs[d].kind = (int)head[0];
        T->docs[d].length = head[1];
        T->chars += head[1];
    }
    fclose(f);
    return 0;
}

/* One run of `what` (0: count, building `vocab`; 1: count through `vocab`, fixed; 2: hash); its
 * seconds, or a negative value on an error.  *check gains the rows' entries. */
static double run(const texts_file *T, int what, int64_t ngram_max, ts_vocab *vocab, int64_t *indptr,
                  double *check)
{
    ts_count_options opt;
    int64_t *ids = NULL, *counts = NULL, nnz = 0, k;
    double t;
    int status;
    memset(&opt, 0, sizeof(opt));
    opt.word = T->word;
    opt.ngram_min = 1;
    opt.ngram_max = ngram_max;
    opt.fixed = what == 1;
    t = now();
    if (what == 2)
        status = ts_hash_terms(T->docs, T->n, &opt, INT64_C(1) << 20, 1, indptr, &ids, &counts, &nnz);
    else
        status = ts_count_terms(T->docs, T->n, vocab, &opt, indptr, &ids, &counts, &nnz);
    t = now() - t;
    if (status != TS_OK) {
        fprintf(stderr, "status %d\n", status);
        return -1;
    }
    for (k = 0; k < nnz; k++)
        *check += (double)ids[k] * 1e-9 + (double)counts[k];
    free(ids);
    free(counts);
    return t;
}

int main(int argc, char **argv)
{
    static const char *names[] = {"words, vocabulary built", "words, vocabulary fixed", "words, hashed"};
    texts_file T;
    int64_t runs, r, *indptr, ngram_max;
    int what, only;
    double checksum = 0, total = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s texts.bin [runs] [case]\n", argv[0]);
        return 2;
    }
    if (read_texts_file(argv[1], &T)) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    runs = argc > 2 ? atoll(argv[2]) : 5;
    only = argc > 3 ? atoi(argv[3]) : -1;
    indptr = malloc(sizeof(int64_t) * (size_t)(T.n + 1));
    if (!indptr)
        return 2;
    printf("%lld documents, %.1f M code points, min of %lld runs\n", (long long)T.n, T.chars * 1e-6,
           (long long)runs);
    for (ngram_max = 1; ngram_max <= 2; ngram_max++) {
        for (what = 0; what < 3; what++) {
            double best = 1e30;
            int64_t size = 0;
            if (only >= 0 && only != 3 * (int)(ngram_max - 1) + what)
                continue;
            for (r = 0; r < runs; r++) {
                ts_vocab *vocab = ts_vocab_new();
                double t;
                if (!vocab)
                    return 2;
                /* a fixed vocabulary is shared by threads: its n-grams findable by code points first */
                if (what == 1 &&
                    (run(&T, 0, ngram_max, vocab, indptr, &checksum) < 0 || ts_vocab_flatten(vocab) != TS_OK))
                    return 1;
                t = run(&T, what, ngram_max, vocab, indptr, &checksum);
                if (t < 0)
                    return 1;
                best = t < best ? t : best;
                size = ts_vocab_size(vocab);
                ts_vocab_free(vocab);
            }
            total += best;
            printf("ngram (1, %lld) %-24s %8.1f ms %7.1f MB/s  vocabulary %lld\n", (long long)ngram_max,
                   names[what], best * 1e3, T.chars * 1e-6 / best, (long long)size);
        }
    }
    printf("total: %.1f ms, checksum %.6g\n", total * 1e3, checksum);
    for (r = 0; r < T.n; r++)
        free((void *)T.docs[r].data);
    free(T.docs);
    free(T.word);
    free(indptr);
    return 0;
}
