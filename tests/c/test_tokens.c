/* C unit tests of csrc/tokens.c; built and run under ASan and UBSan by tests/test_c_core.py.
 *
 * The word bitmap here marks ASCII letters, digits and '_', and the code points 0xC9 (É), 0xE9 (é), 0x3B1
 * (α) and 0x1F600 (an emoji, standing in for a 4-byte word character); the Python tests check
 * the kernel against Python's own re with the real bitmap. */
#include "../../csrc/textsel.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t word[TS_CODE_POINTS / 8];

static void mark(uint32_t c) { word[c >> 3] |= (uint8_t)(1u << (c & 7)); }

static void make_bitmap(void)
{
    uint32_t c;
    memset(word, 0, sizeof word);
    for (c = '0'; c <= '9'; c++)
        mark(c);
    for (c = 'a'; c <= 'z'; c++)
        mark(c);
    for (c = 'A'; c <= 'Z'; c++)
        mark(c);
    mark('_');
    mark(0xC9); /* É */
    mark(0xE9);
    mark(0x3B1);
    mark(0x1F600);
}

/* A document of kind 1, 2 or 4 holding the code points of an ASCII string, with '@' standing
 * for the widest code point the kind holds that is a word character here (é, α, the emoji). */
typedef struct {
    uint8_t b1[64];
    uint16_t b2[64];
    uint32_t b4[64];
    ts_text text;
} doc;

static void make_doc(doc *d, const char *s, int kind)
{
    int64_t n = (int64_t)strlen(s), i;
    uint32_t wide = kind == 1 ? 0xE9 : kind == 2 ? 0x3B1 : 0x1F600;
    for (i = 0; i < n; i++) {
        uint32_t c = s[i] == '@' ? wide : (uint32_t)(unsigned char)s[i];
        d->b1[i] = (uint8_t)c;
        d->b2[i] = (uint16_t)c;
        d->b4[i] = c;
    }
    d->text.length = n;
    d->text.kind = kind;
    d->text.data = kind == 1 ? (const void *)d->b1 : kind == 2 ? (const void *)d->b2 : (const void *)d->b4;
}

static int64_t add_ascii(ts_vocab *v, const char *s)
{
    uint32_t cps[64];
    int64_t n = (int64_t)strlen(s), i, id = -1;
    for (i = 0; i < n; i++)
        cps[i] = (uint32_t)(unsigned char)s[i];
    if (ts_vocab_add(v, cps, n, ts_term_hash(cps, n), &id) != TS_OK)
        return -1;
    return id;
}

static int64_t find_ascii(ts_vocab *v, const char *s)
{
    uint32_t cps[64];
    int64_t n = (int64_t)strlen(s), i, id = -2;
    for (i = 0; i < n; i++)
        cps[i] = (uint32_t)(unsigned char)s[i];
    if (ts_vocab_find(v, cps, n, ts_term_hash(cps, n), &id) != TS_OK)
        return -2;
    return id;
}

static int term_is(ts_vocab *v, int64_t id, const char *s)
{
    const uint32_t *cps;
    int64_t n, i;
    if (ts_vocab_term(v, id, &cps, &n) != TS_OK || n != (int64_t)strlen(s))
        return 0;
    for (i = 0; i < n; i++)
        if (cps[i] != (uint32_t)(unsigned char)s[i])
            return 0;
    return 1;
}

static void test_vocabulary_numbers_terms_in_order_and_grows(void)
{
    ts_vocab *v = ts_vocab_new();
    char term[32];
    int64_t k, order[5];
    CHECK(v != NULL);
    CHECK(add_ascii(v, "beta") == 0 && add_ascii(v, "alpha") == 1 && add_ascii(v, "beta") == 0);
    CHECK(find_ascii(v, "alpha") == 1 && find_ascii(v, "gamma") == -1 && find_ascii(v, "alph") == -1);
    /* thousands of terms, long and short, past every rehash: each found again under its id */
    for (k = 0; k < 5000; k++) {
        snprintf(term, sizeof term, k % 3 ? "t%lld" : "longer-term-%lld", (long long)k);
        CHECK(add_ascii(v, term) == k + 2);
    }
    for (k = 0; k < 5000; k++) {
        snprintf(term, sizeof term, k % 3 ? "t%lld" : "longer-term-%lld", (long long)k);
        CHECK(find_ascii(v, term) == k + 2 && term_is(v, k + 2, term));
    }
    CHECK(ts_vocab_size(v) == 5002);
    ts_vocab_free(v);
    /* Python's order of str: code point by code point, a prefix first; positions of a subset */
    v = ts_vocab_new();
    add_ascii(v, "b");
    add_ascii(v, "ab");
    add_ascii(v, "a");
    add_ascii(v, "B");
    add_ascii(v, "abc");
    CHECK(ts_vocab_order(v, NULL, 5, order) == TS_OK);
    CHECK(order[0] == 3 && order[1] == 2 && order[2] == 1 && order[3] == 4 && order[4] == 0);
    {
        const int64_t ids[3] = {0, 4, 2};
        CHECK(ts_vocab_order(v, ids, 3, order) == TS_OK);
        CHECK(order[0] == 2 && order[1] == 1 && order[2] == 0);
    }
    {
        const int64_t bad[1] = {7};
        CHECK(ts_vocab_order(v, bad, 1, order) == TS_ERR_INDEX);
    }
    ts_vocab_free(v);
}

static void test_tokens_are_runs_of_two_or_more_word_characters_in_every_width(void)
{
    /* "a" and "x" are one code point long: no tokens; "@" is a word character of each width */
    const char *texts[3] = {"The cat_1 a x, THE cat_1!", "  @@ b@ @", "under_score 42 9"};
    int kind;
    for (kind = 1; kind <= 4; kind *= 2) {
        doc docs[3];
        ts_vocab *v = ts_vocab_new();
        ts_count_options opt = {word, NULL, 1, 1, 0, NULL, NULL, NULL};
        int64_t indptr[4], *ids, *counts, nnz, k;
        for (k = 0; k < 3; k++)
            make_doc(&docs[k], texts[k], kind);
        {
            ts_text t[3] = {docs[0].text, docs[1].text, docs[2].text};
            CHECK(ts_count_terms(t, 3, v, &opt, indptr, &ids, &counts, &nnz) == TS_OK);
        }
        /* first seen: The, cat_1, THE, @@, b@, under_score, 42 */
        CHECK(ts_vocab_size(v) == 7 && nnz == 7);
        CHECK(find_ascii(v, "The") == 0 && find_ascii(v, "cat_1") == 1 && find_ascii(v, "THE") == 2);
        CHECK(find_ascii(v, "under_score") == 5 && find_ascii(v, "42") == 6);
        CHECK(indptr[0] == 0 && indptr[1] == 3 && indptr[2] == 5 && indptr[3] == 7);
        CHECK(ids[0] == 0 && counts[0] == 1 && ids[1] == 1 && counts[1] == 2 && ids[2] == 2 && counts[2] == 1);
        CHECK(ids[3] == 3 && ids[4] == 4 && ids[5] == 5 && ids[6] == 6);
        free(ids);
        free(counts);
        ts_vocab_free(v);
    }
}

static void test_stop_words_n_grams_and_a_fixed_vocabulary(void)
{
    doc d;
    ts_vocab *v = ts_vocab_new(), *stop = ts_vocab_new();
    ts_count_options opt = {word, NULL, 1, 3, 0, NULL, NULL, NULL};
    int64_t indptr[2], *ids, *counts, nnz;
    add_ascii(stop, "of");
    opt.stop = stop;
    make_doc(&d, "top of the top of", 1);
    /* without "of": top the top -> unigrams top the; bigrams "top the" "the top"; trigram */
    CHECK(ts_count_terms(&d.text, 1, v, &opt, indptr, &ids, &counts, &nnz) == TS_OK);
    CHECK(ts_vocab_size(v) == 5 && nnz == 5);
    CHECK(term_is(v, 0, "top") && term_is(v, 1, "the") && term_is(v, 2, "top the") && term_is(v, 3, "the top"));
    CHECK(term_is(v, 4, "top the top") && counts[0] == 2 && counts[1] == 1);
    free(ids);
    free(counts);
    /* fixed: only the vocabulary's terms are counted, and it is not changed; its n-grams,
     * counted as pairs, must first be made findable by their code points */
    opt.fixed = 1;
    opt.ngram_min = 2;
    CHECK(ts_count_terms(&d.text, 1, v, &opt, indptr, &ids, &counts, &nnz) == TS_ERR_ARG);
    CHECK(ts_vocab_flatten(v) == TS_OK);
    opt.ngram_min = 2;
    opt.ngram_max = 2;
    make_doc(&d, "the top new words the top", 1);
    CHECK(ts_count_terms(&d.text, 1, v, &opt, indptr, &ids, &counts, &nnz) == TS_OK);
    CHECK(ts_vocab_size(v) == 5 && nnz == 1 && ids[0] == 3 && counts[0] == 2);
    free(ids);
    free(counts);
    ts_vocab_free(v);
    ts_vocab_free(stop);
}

static void test_merge_and_remap_number_a_second_part_after_the_first(void)
{
    doc a, b;
    ts_vocab *first = ts_vocab_new(), *second = ts_vocab_new();
    ts_count_options opt = {word, NULL, 1, 1, 0, NULL, NULL, NULL};
    int64_t pa[2], pb[2], *ia, *ca, *ib, *cb, na, nb, map[4];
    make_doc(&a, "zz yy", 1);
    make_doc(&b, "ww yy xx zz", 1);
    CHECK(ts_count_terms(&a.text, 1, first, &opt, pa, &ia, &ca, &na) == TS_OK);
    CHECK(ts_count_terms(&b.text, 1, second, &opt, pb, &ib, &cb, &nb) == TS_OK);
    CHECK(ts_vocab_merge(first, second, map) == TS_OK);
    /* second's ww yy xx zz become 2 1 3 0 */
    CHECK(map[0] == 2 && map[1] == 1 && map[2] == 3 && map[3] == 0);
    ts_remap_rows(pb, 1, ib, cb, map);
    CHECK(ib[0] == 0 && ib[1] == 1 && ib[2] == 2 && ib[3] == 3);
    free(ia);
    free(ca);
    free(ib);
    free(cb);
    ts_vocab_free(first);
    ts_vocab_free(second);
}

/* Whether vocabularies a and b hold the same terms, a's term k being b's term k + shift. */
static int same_terms(ts_vocab *a, ts_vocab *b, int64_t shift)
{
    int64_t k, i, na, nb;
    const uint32_t *x, *y;
    if (ts_vocab_size(a) + shift != ts_vocab_size(b))
        return 0;
    for (k = 0; k < ts_vocab_size(a); k++) {
        if (ts_vocab_term(a, k, &x, &na) != TS_OK || ts_vocab_term(b, k + shift, &y, &nb) != TS_OK || na != nb)
            return 0;
        for (i = 0; i < na; i++)
            if (x[i] != y[i])
                return 0;
    }
    return 1;
}

static void test_n_grams_counted_as_pairs_are_those_counted_by_code_points(void)
{
    /* a fresh vocabulary counts n-grams (ngram_min 1) as pairs of ids; one holding an n-gram
     * added as code points counts them by their code points: the same terms in the same order,
     * the same rows, in every width, with tokens past the 15 code points a slot packs */
    static const char *texts[3] = {"the cat sat on the mat the cat", "a@ longwordbeyondfifteen the cat x@@ mat",
                                   "mat on the cat sat on the mat"};
    doc d[3];
    ts_text t[3];
    ts_count_options opt = {word, NULL, 1, 3, 0, NULL, NULL, NULL};
    ts_vocab *pairs = ts_vocab_new(), *cps = ts_vocab_new(), *part = ts_vocab_new(), *whole = ts_vocab_new();
    int64_t pa[4], pb[4], pc[4], *ia, *ca, *ib, *cb, *ic, *cc, na, nb, nc, k, map[64], n_first;
    for (k = 0; k < 3; k++) {
        make_doc(&d[k], texts[k], (int)k + 2 > 3 ? 4 : (int)k + 1);
        t[k] = d[k].text;
    }
    CHECK(add_ascii(cps, "x y") == 0); /* an n-gram by code points: this one counts by them */
    CHECK(ts_count_terms(t, 3, pairs, &opt, pa, &ia, &ca, &na) == TS_OK);
    CHECK(ts_count_terms(t, 3, cps, &opt, pb, &ib, &cb, &nb) == TS_OK);
    CHECK(na == nb && same_terms(pairs, cps, 1));
    for (k = 0; k < 4; k++)
        CHECK(pa[k] == pb[k]);
    for (k = 0; k < na; k++)
        CHECK(ia[k] + 1 == ib[k] && ca[k] == cb[k]);
    CHECK(term_is(pairs, 3, "on") && find_ascii(pairs, "the cat sat") >= 0 && find_ascii(pairs, "cat the") == -1);
    /* an n-gram added by its code points is found, not added again; a new one is added */
    k = ts_vocab_size(pairs);
    CHECK(add_ascii(pairs, "the cat") == find_ascii(pairs, "the cat") && ts_vocab_size(pairs) == k);
    CHECK(add_ascii(pairs, "cat the") == k && ts_vocab_size(pairs) == k + 1);
    /* counted after it (by code points now), the terms so far keep their ids */
    CHECK(ts_count_terms(t, 1, pairs, &opt, pc, &ic, &cc, &nc) == TS_OK);
    CHECK(ts_vocab_size(pairs) == k + 1 && nc == pa[1]);
    for (k = 0; k < nc; k++)
        CHECK(ic[k] == ia[k] && cc[k] == ca[k]);
    free(ia), free(ca), free(ib), free(cb), free(ic), free(cc);
    /* two parts merged by pairs: the terms of counting both in one */
    CHECK(ts_count_terms(t, 1, whole, &opt, pa, &ia, &ca, &na) == TS_OK);
    n_first = ts_vocab_size(whole);
    CHECK(ts_count_terms(t + 1, 2, part, &opt, pb, &ib, &cb, &nb) == TS_OK);
    CHECK(ts_vocab_size(part) <= 64 && ts_vocab_merge(whole, part, map) == TS_OK);
    ts_vocab_free(pairs);
    pairs = ts_vocab_new();
    CHECK(ts_count_terms(t, 3, pairs, &opt, pc, &ic, &cc, &nc) == TS_OK);
    CHECK(same_terms(pairs, whole, 0) && n_first < ts_vocab_size(whole));
    for (k = 0; k < ts_vocab_size(part); k++) {
        const uint32_t *x, *y;
        int64_t nx, ny;
        CHECK(ts_vocab_term(part, k, &x, &nx) == TS_OK && ts_vocab_term(whole, map[k], &y, &ny) == TS_OK);
        CHECK(nx == ny && memcmp(x, y, (size_t)nx * sizeof *x) == 0);
    }
    /* and into a vocabulary that counts by code points */
    ts_vocab_free(cps);
    cps = ts_vocab_new();
    add_ascii(cps, "x y");
    CHECK(ts_vocab_merge(cps, whole, map) == TS_OK && same_terms(whole, cps, 1));
    free(ia), free(ca), free(ib), free(cb), free(ic), free(cc);
    ts_vocab_free(pairs);
    ts_vocab_free(cps);
    ts_vocab_free(part);
    ts_vocab_free(whole);
}

static void test_every_allocation_failure_while_n_grams_are_written_out(void)
{
    /* merging, sorting, writing out and flattening a vocabulary of n-grams counted as pairs,
     * the k-th allocation failing for each k: TS_ERR_NOMEM, nothing leaked */
    doc d;
    ts_count_options opt = {word, NULL, 1, 3, 0, NULL, NULL, NULL};
    int64_t indptr[2], *ids, *counts, nnz, k, map[64], order[64];
    int step, status;
    const uint32_t *cps;
    make_doc(&d, "one two three four one two three five six seven", 2);
    for (step = 0; step < 4; step++) {
        for (k = 1;; k++) {
            ts_vocab *a = ts_vocab_new(), *b = ts_vocab_new();
            CHECK(a != NULL && b != NULL);
            if (step == 3)
                add_ascii(a, "x y");
            CHECK(ts_count_terms(&d.text, 1, b, &opt, indptr, &ids, &counts, &nnz) == TS_OK);
            free(ids);
            free(counts);
            ts_debug_fail_alloc_at(k);
            if (step == 0)
                status = ts_vocab_order(b, NULL, ts_vocab_size(b), order);
            else if (step == 1)
                status = ts_vocab_flatten(b);
            else if (step == 2)
                status = ts_vocab_term(b, ts_vocab_size(b) - 1, &cps, &nnz);
            else
                status = ts_vocab_merge(a, b, map);
            ts_debug_fail_alloc_at(0);
            ts_vocab_free(a);
            ts_vocab_free(b);
            if (status == TS_OK)
                break;
            CHECK(status == TS_ERR_NOMEM);
        }
        printf("  step %d: %d allocations failed in turn\n", step, (int)k - 1);
        CHECK(k > 1);
    }
}

static int stop_at_second(void *ctx)
{
    int *calls = ctx;
    return ++*calls >= 2;
}

static void test_bad_arguments_interrupts_and_every_allocation_failure(void)
{
    doc d[1];
    ts_text many[2000];
    ts_vocab *v = ts_vocab_new();
    ts_count_options opt = {word, NULL, 1, 2, 0, NULL, NULL, NULL};
    int64_t indptr[2001], *ids, *counts, nnz, k;
    int calls = 0, status;
    make_doc(&d[0], "some words here and some more words", 2);
    opt.ngram_min = 0;
    CHECK(ts_count_terms(&d[0].text, 1, v, &opt, indptr, &ids, &counts, &nnz) == TS_ERR_ARG);
    opt.ngram_min = 2;
    opt.ngram_max = 1;
    CHECK(ts_count_terms(&d[0].text, 1, v, &opt, indptr, &ids, &counts, &nnz) == TS_ERR_ARG);
    opt.ngram_min = 1;
    opt.ngram_max = 2;
    d[0].text.kind = 3;
    CHECK(ts_count_terms(&d[0].text, 1, v, &opt, indptr, &ids, &counts, &nnz) == TS_ERR_ARG && ids == NULL);
    d[0].text.kind = 2;
    for (k = 0; k < 2000; k++)
        many[k] = d[0].text;
    opt.interrupted = stop_at_second;
    opt.interrupt_ctx = &calls;
    CHECK(ts_count_terms(many, 2000, v, &opt, indptr, &ids, &counts, &nnz) == TS_ERR_INTERRUPTED && ids == NULL);
    opt.interrupted = NULL;
    ts_vocab_free(v);
    /* the k-th allocation fails, for every k the call makes: TS_ERR_NOMEM, nothing leaked; words
     * counted as found (ngram_max 1), n-grams as pairs (1, 2) and by code points (2, 3) */
    for (opt.ngram_max = 1; opt.ngram_max <= 3; opt.ngram_max++) {
        opt.ngram_min = opt.ngram_max == 3 ? 2 : 1;
        for (k = 1;; k++) {
            v = ts_vocab_new();
            if (v == NULL) {
                ts_debug_fail_alloc_at(0);
                continue;
            }
            ts_debug_fail_alloc_at(k);
            status = ts_count_terms(many, 300, v, &opt, indptr, &ids, &counts, &nnz);
            ts_debug_fail_alloc_at(0);
            ts_vocab_free(v);
            if (status == TS_OK) {
                free(ids);
                free(counts);
                break;
            }
            CHECK(status == TS_ERR_NOMEM && ids == NULL && counts == NULL);
        }
        printf("  ngram_max %d: %d allocations failed in turn\n", (int)opt.ngram_max, (int)k - 1);
        CHECK(k > 10);
        for (k = 1;; k++) { /* and hashed */
            ts_debug_fail_alloc_at(k);
            status = ts_hash_terms(many, 300, &opt, 1 << 20, 1, indptr, &ids, &counts, &nnz);
            ts_debug_fail_alloc_at(0);
            if (status == TS_OK) {
                free(ids);
                free(counts);
                break;
            }
            CHECK(status == TS_ERR_NOMEM && ids == NULL && counts == NULL);
        }
        printf("  ngram_max %d hashed: %d allocations failed in turn\n", (int)opt.ngram_max, (int)k - 1);
        CHECK(k > 3);
    }
}

static void test_hashed_columns_are_murmurhash3_of_the_utf8_bytes(void)
{
    /* scikit-learn's murmurhash3_32(word, seed=0): "the" -1132748958, "cat_1" 289224444, "ab"
     * -1681926305; their columns mod 1000 are 958, 444 and 305 */
    doc d;
    ts_count_options opt = {word, NULL, 1, 1, 0, NULL, NULL, NULL};
    int64_t indptr[2], *cols, *vals, nnz;
    make_doc(&d, "the cat_1 the ab", 1);
    CHECK(ts_hash_terms(&d.text, 1, &opt, 1000, 1, indptr, &cols, &vals, &nnz) == TS_OK);
    /* columns 305 (ab, -1), 444 (cat_1, +1), 958 (the twice, -2) */
    CHECK(nnz == 3 && cols[0] == 305 && vals[0] == -1 && cols[1] == 444 && vals[1] == 1);
    CHECK(cols[2] == 958 && vals[2] == -2);
    free(cols);
    free(vals);
    /* one column: opposite signs cancel, and the zero sum stays an entry */
    make_doc(&d, "the cat_1", 1);
    CHECK(ts_hash_terms(&d.text, 1, &opt, 1, 1, indptr, &cols, &vals, &nnz) == TS_OK);
    CHECK(nnz == 1 && cols[0] == 0 && vals[0] == 0);
    free(cols);
    free(vals);
    /* unsigned; the 4-byte code points of kind 4 hashed as their UTF-8 bytes */
    make_doc(&d, "ab @@", 4);
    CHECK(ts_hash_terms(&d.text, 1, &opt, 1000, 0, indptr, &cols, &vals, &nnz) == TS_OK);
    CHECK(nnz == 2 && vals[0] == 1 && vals[1] == 1 && (cols[0] == 305 || cols[1] == 305));
    free(cols);
    free(vals);
    CHECK(ts_hash_terms(&d.text, 1, &opt, 0, 1, indptr, &cols, &vals, &nnz) == TS_ERR_ARG);
}

static void test_hashed_rows_with_many_columns_and_latin1_words(void)
{
    /* a document of 600 distinct words, each twice (the row's table of columns widened while it
     * is written), hashed with 600 documents of one word each: its row is the sum of theirs.  A
     * Latin-1 word of a one-byte document is hashed as its UTF-8 bytes, as the same word in a
     * four-byte document. */
    static char text[600 * 8 * 2 + 1];
    ts_text docs[601];
    uint8_t *bytes = malloc(sizeof text);
    int64_t *expected = calloc((size_t)1 << 20, sizeof(int64_t)), *indptr = malloc(602 * sizeof(int64_t));
    ts_count_options opt = {word, NULL, 1, 1, 0, NULL, NULL, NULL};
    int64_t *cols, *vals, nnz, k, at = 0, rep, entries = 0;
    CHECK(bytes != NULL && expected != NULL && indptr != NULL);
    for (rep = 0; rep < 2; rep++)
        for (k = 0; k < 600; k++)
            at += sprintf(text + at, "w%04d ", (int)k);
    memcpy(bytes, text, (size_t)at);
    docs[0].data = bytes;
    docs[0].length = at;
    docs[0].kind = 1;
    for (k = 0; k < 600; k++) {
        docs[k + 1].data = bytes + 6 * k;
        docs[k + 1].length = 5;
        docs[k + 1].kind = 1;
    }
    CHECK(ts_hash_terms(docs, 601, &opt, INT64_C(1) << 20, 1, indptr, &cols, &vals, &nnz) == TS_OK);
    for (k = indptr[1]; k < nnz; k++)
        expected[cols[k]] += 2 * vals[k];
    for (k = 0; k < indptr[1]; k++) {
        CHECK(k == 0 || cols[k] > cols[k - 1]);
        CHECK(vals[k] == expected[cols[k]] && vals[k] != 0);
        expected[cols[k]] = 0;
        entries++;
    }
    for (k = 0; k < (INT64_C(1) << 20); k++)
        CHECK(expected[k] == 0);
    CHECK(entries >= 590);
    free(cols);
    free(vals);
    {
        static const uint8_t narrow[] = {'a', 0xE9, ' ', 0xE9, 'b'};
        static const uint32_t wide[] = {'a', 0xE9, ' ', 0xE9, 'b'};
        int64_t *cols4, *vals4, nnz4;
        ts_text one = {narrow, 5, 1}, four = {wide, 5, 4};
        CHECK(ts_hash_terms(&one, 1, &opt, 1000, 1, indptr, &cols, &vals, &nnz) == TS_OK);
        CHECK(ts_hash_terms(&four, 1, &opt, 1000, 1, indptr, &cols4, &vals4, &nnz4) == TS_OK);
        CHECK(nnz == 2 && nnz4 == 2);
        for (k = 0; k < nnz && k < nnz4; k++)
            CHECK(cols[k] == cols4[k] && vals[k] == vals4[k]);
        free(cols);
        free(vals);
        free(cols4);
        free(vals4);
    }
    free(bytes);
    free(expected);
    free(indptr);
}

static void test_one_byte_documents_lowercased_through_the_map(void)
{
    /* with a lowercase map (A-Z and É onto a-z and é), a one-byte document's words are counted,
     * stored and hashed lowercased: packed ASCII words, a Latin-1 word, a long word, n-grams,
     * and a document long enough to be read in 64-byte blocks */
    static char text[2048];
    uint8_t lower[256];
    ts_text t;
    ts_vocab *v = ts_vocab_new();
    ts_count_options opt = {word, NULL, 1, 1, 0, NULL, NULL, NULL};
    int64_t indptr[2], *ids, *counts, nnz, k, at = 0;
    for (k = 0; k < 256; k++)
        lower[k] = (uint8_t)(k >= 'A' && k <= 'Z' ? k + 32 : k);
    lower[0xC9] = 0xE9;
    opt.lower = lower;
    for (k = 0; k < 20; k++)
        at += sprintf(text + at, "Hello HELLO hello \xC9t\xC9 \xE9t\xE9 ABCDEFGHIJKLMNOPQ abcdefghijklmnopq; ");
    t.data = text;
    t.length = at;
    t.kind = 1;
    CHECK(ts_count_terms(&t, 1, v, &opt, indptr, &ids, &counts, &nnz) == TS_OK);
    CHECK(ts_vocab_size(v) == 3 && term_is(v, 0, "hello") && term_is(v, 2, "abcdefghijklmnopq"));
    CHECK(nnz == 3 && counts[0] == 60 && counts[1] == 40 && counts[2] == 40);
    {
        const uint32_t *cps;
        int64_t len;
        CHECK(ts_vocab_term(v, 1, &cps, &len) == TS_OK && ts_vocab_term(v, 3, &cps, &len) == TS_ERR_INDEX);
        CHECK(ts_vocab_term(v, 1, &cps, &len) == TS_OK);
        CHECK(len == 3 && cps[0] == 0xE9 && cps[1] == 't' && cps[2] == 0xE9);
    }
    free(ids);
    free(counts);
    /* the map applies to the tokens n-grams are joined from */
    ts_vocab_free(v);
    v = ts_vocab_new();
    opt.ngram_max = 2;
    t.data = "Big Cat big CAT";
    t.length = 15;
    CHECK(ts_count_terms(&t, 1, v, &opt, indptr, &ids, &counts, &nnz) == TS_OK);
    CHECK(ts_vocab_size(v) == 4 && term_is(v, 2, "big cat") && term_is(v, 3, "cat big"));
    CHECK(nnz == 4 && counts[0] == 2 && counts[1] == 2 && counts[2] == 2 && counts[3] == 1);
    free(ids);
    free(counts);
    /* hashed: "the" three times in one column (-1 each, as in the test of hashed columns) */
    opt.ngram_max = 1;
    t.data = "The THE the";
    t.length = 11;
    CHECK(ts_hash_terms(&t, 1, &opt, 1000, 1, indptr, &ids, &counts, &nnz) == TS_OK);
    CHECK(nnz == 1 && ids[0] == 958 && counts[0] == -3);
    free(ids);
    free(counts);
    ts_vocab_free(v);
}

static void test_words_counted_as_found_stop_long_words_and_a_vocabulary_used_again(void)
{
    /* ngram_range (1, 1) counts each word as it is found: stop words dropped, words longer than
     * the 15 code points kept in a slot counted by their code points, and entries noted in the
     * vocabulary's slots by one call not taken for the next call's */
    doc d;
    ts_vocab *v = ts_vocab_new(), *stop = ts_vocab_new();
    ts_count_options opt = {word, NULL, 1, 1, 0, NULL, NULL, NULL};
    int64_t indptr[3], *ids, *counts, nnz;
    add_ascii(stop, "of");
    opt.stop = stop;
    make_doc(&d, "abcdefghijklmnopq of top abcdefghijklmnopq top of", 1);
    {
        ts_text t[2] = {d.text, d.text};
        CHECK(ts_count_terms(t, 2, v, &opt, indptr, &ids, &counts, &nnz) == TS_OK);
    }
    CHECK(ts_vocab_size(v) == 2 && term_is(v, 0, "abcdefghijklmnopq") && term_is(v, 1, "top"));
    CHECK(nnz == 4 && indptr[1] == 2 && indptr[2] == 4);
    CHECK(ids[0] == 0 && counts[0] == 2 && ids[1] == 1 && counts[1] == 2 && ids[2] == 0 && counts[2] == 2);
    free(ids);
    free(counts);
    CHECK(ts_count_terms(&d.text, 1, v, &opt, indptr, &ids, &counts, &nnz) == TS_OK);
    CHECK(nnz == 2 && ids[0] == 0 && counts[0] == 2 && ids[1] == 1 && counts[1] == 2);
    free(ids);
    free(counts);
    /* the same word with a wide code point: kinds 2 and 4 name the same term */
    make_doc(&d, "t@p t@p", 2);
    CHECK(ts_count_terms(&d.text, 1, v, &opt, indptr, &ids, &counts, &nnz) == TS_OK);
    CHECK(ts_vocab_size(v) == 3 && nnz == 1 && ids[0] == 2 && counts[0] == 2);
    free(ids);
    free(counts);
    ts_vocab_free(v);
    ts_vocab_free(stop);
}

static void test_counts_stay_right_while_the_table_grows_within_a_document(void)
{
    /* 600 distinct words, each twice in one document, so that the table is doubled while the
     * row is being written: every word counted 2 */
    static char text[600 * 8 * 2 + 1];
    doc big;
    uint8_t *bytes = malloc(sizeof text);
    ts_vocab *v = ts_vocab_new();
    ts_count_options opt = {word, NULL, 1, 1, 0, NULL, NULL, NULL};
    int64_t indptr[2], *ids, *counts, nnz, k, at = 0, rep;
    CHECK(bytes != NULL);
    for (rep = 0; rep < 2; rep++)
        for (k = 0; k < 600; k++)
            at += sprintf(text + at, "w%04d ", (int)k);
    memcpy(bytes, text, (size_t)at);
    big.text.data = bytes;
    big.text.length = at;
    big.text.kind = 1;
    CHECK(ts_count_terms(&big.text, 1, v, &opt, indptr, &ids, &counts, &nnz) == TS_OK);
    CHECK(ts_vocab_size(v) == 600 && nnz == 600);
    for (k = 0; k < nnz; k++)
        CHECK(ids[k] == k && counts[k] == 2);
    free(ids);
    free(counts);
    free(bytes);
    ts_vocab_free(v);
}

static void test_a_count_beyond_what_a_sort_key_holds_is_sorted_exactly(void)
{
    /* rows are sorted with id and count packed in one key while counts stay below 2^24; a word
     * seen 2^24 + 1 times in a document takes the other sort, and keeps its count */
    int64_t reps = (INT64_C(1) << 24) + 1, k, at = 0;
    uint8_t *bytes = malloc((size_t)(reps * 3 + 8));
    ts_text t[2];
    ts_vocab *v = ts_vocab_new();
    ts_count_options opt = {word, NULL, 1, 1, 0, NULL, NULL, NULL};
    int64_t indptr[3], *ids, *counts, nnz;
    CHECK(bytes != NULL);
    memcpy(bytes, "ab zz", 5);
    t[0].data = bytes;
    t[0].length = 5;
    t[0].kind = 1;
    at = 5;
    memcpy(bytes + at, "zz ", 3);
    for (k = 0, at += 3; k < reps; k++, at += 3)
        memcpy(bytes + at, "ab ", 3);
    t[1].data = bytes + 5;
    t[1].length = at - 5;
    t[1].kind = 1;
    CHECK(ts_count_terms(t, 2, v, &opt, indptr, &ids, &counts, &nnz) == TS_OK);
    CHECK(nnz == 4 && indptr[1] == 2 && ids[2] == 0 && counts[2] == reps && ids[3] == 1 && counts[3] == 1);
    free(ids);
    free(counts);
    free(bytes);
    ts_vocab_free(v);
}

static void test_long_rows_of_known_words_are_sorted_by_id_with_their_counts(void)
{
    /* a first document numbers 5000 words; the next ones hold some of them scrambled, the k-th
     * (k % 3) + 1 times: 700 words (digits wider than 6 bits, an even number of radix passes)
     * and 50 (an odd number: the sorted keys end in the count array), both above the size where
     * rows are sorted by radix.  Each row comes back by increasing id, every count its own. */
    static const int64_t sizes[2] = {700, 50};
    int64_t n_words = 5000, k, r, c, at = 0, *ids, *counts, nnz, indptr[4], *seen;
    char *text = malloc((size_t)(n_words * 6 + 3 * 750 * 6 + 1));
    ts_text docs[3];
    ts_vocab *v = ts_vocab_new();
    ts_count_options opt = {word, NULL, 1, 1, 0, NULL, NULL, NULL};
    seen = calloc((size_t)n_words, sizeof(int64_t));
    CHECK(text != NULL && seen != NULL && v != NULL);
    for (k = 0; k < n_words; k++)
        at += sprintf(text + at, "w%04d ", (int)k);
    docs[0].data = text;
    docs[0].length = at;
    docs[0].kind = 1;
    for (r = 0; r < 2; r++) {
        int64_t start = at;
        for (k = 0; k < sizes[r]; k++)
            for (c = 0; c <= k % 3; c++)
                at += sprintf(text + at, "w%04d ", (int)((k * 7919 + r) % n_words));
        docs[r + 1].data = text + start;
        docs[r + 1].length = at - start;
        docs[r + 1].kind = 1;
    }
    CHECK(ts_count_terms(docs, 3, v, &opt, indptr, &ids, &counts, &nnz) == TS_OK);
    for (r = 0; r < 2; r++) {
        for (k = 0; k < sizes[r]; k++)
            seen[(k * 7919 + r) % n_words] = k % 3 + 1;
        CHECK(indptr[r + 2] - indptr[r + 1] == sizes[r]);
        for (k = indptr[r + 1]; k < indptr[r + 2]; k++) {
            CHECK(k == indptr[r + 1] || ids[k] > ids[k - 1]);
            CHECK(counts[k] == seen[ids[k]]);
            seen[ids[k]] = 0;
        }
    }
    free(ids);
    free(counts);
    free(seen);
    free(text);
    ts_vocab_free(v);
}

int main(void)
{
    int passed = 0, failed = 0;
    make_bitmap();
    RUN(test_vocabulary_numbers_terms_in_order_and_grows, passed, failed);
    RUN(test_tokens_are_runs_of_two_or_more_word_characters_in_every_width, passed, failed);
    RUN(test_stop_words_n_grams_and_a_fixed_vocabulary, passed, failed);
    RUN(test_merge_and_remap_number_a_second_part_after_the_first, passed, failed);
    RUN(test_n_grams_counted_as_pairs_are_those_counted_by_code_points, passed, failed);
    RUN(test_every_allocation_failure_while_n_grams_are_written_out, passed, failed);
    RUN(test_bad_arguments_interrupts_and_every_allocation_failure, passed, failed);
    RUN(test_hashed_columns_are_murmurhash3_of_the_utf8_bytes, passed, failed);
    RUN(test_hashed_rows_with_many_columns_and_latin1_words, passed, failed);
    RUN(test_one_byte_documents_lowercased_through_the_map, passed, failed);
    RUN(test_words_counted_as_found_stop_long_words_and_a_vocabulary_used_again, passed, failed);
    RUN(test_counts_stay_right_while_the_table_grows_within_a_document, passed, failed);
    RUN(test_a_count_beyond_what_a_sort_key_holds_is_sorted_exactly, passed, failed);
    RUN(test_long_rows_of_known_words_are_sorted_by_id_with_their_counts, passed, failed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
