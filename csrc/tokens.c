/* Words counted straight from text as Python's str holds it (1, 2 or 4 bytes a code point):
 * scikit-learn's default word analyzer (token_pattern r"(?u)\b\w\w+\b", stop words, word
 * n-grams joined by a space) and CountVectorizer's counts, without a Python object per token.
 *
 * A token is a maximal run of word characters two or more code points long: that is what
 * re.findall(r"\b\w\w+\b") returns, \b being a change between word and non-word characters as
 * Python's re tells them (str.isalnum() or '_'; the caller's bitmap).  Terms are kept as code
 * points in a hash table that numbers them in the order first seen, as scikit-learn's
 * vocabulary dict does before it sorts them. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise */
#endif
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* ---- growable buffers ------------------------------------------------------------------ */

/* Make room for `need` elements of `size` bytes in *p (capacity *cap, in elements), doubling. */
static int grow(void **p, int64_t *cap, int64_t need, size_t size)
{
    int64_t wanted;
    void *fresh;
    if (need <= *cap)
        return TS_OK;
    wanted = *cap > 0 ? *cap : 16;
    while (wanted < need) {
        if (wanted > INT64_MAX / 2)
            return TS_ERR_NOMEM;
        wanted *= 2;
    }
    if ((uint64_t)wanted > SIZE_MAX / size)
        return TS_ERR_NOMEM;
    fresh = ts_calloc((size_t)wanted, size);
    if (fresh == NULL)
        return TS_ERR_NOMEM;
    if (*p != NULL && *cap > 0)
        memcpy(fresh, *p, (size_t)*cap * size);
    free(*p);
    *p = fresh;
    *cap = wanted;
    return TS_OK;
}

/* ---- the vocabulary --------------------------------------------------------------------- */

/* A term: where its code points are, how many, its hash. */
typedef struct {
    int64_t start;
    int64_t len;
    uint64_t hash;
} term;

/* A slot of the hash table, half a cache line.  `key`: 0 where empty, else the term's id + 1 in
 * the low ID_BITS bits and the top bits of its hash above them, so that most mismatches are told
 * without reading the term.  `lo`, `hi`: a term of 1 to 15 code points each below 256 (nearly
 * every word and many bigrams of most texts) written out (see pack()), so that a lookup that
 * finds it reads this slot alone; 0 for other terms, which are compared with their code points.
 * `seen`: while ts_count_terms runs, 1 + the position of the term's entry in the rows it is
 * writing (the entry is in the current document's row when at least the row's start + 1), so
 * that counting a word again touches no other memory. */
#define ID_BITS 40
#define ID_MASK ((UINT64_C(1) << ID_BITS) - 1)
#define TAG(h) ((h) & ~ID_MASK)
#define PACK_MAX 15

typedef struct {
    uint64_t key;
    uint64_t lo;
    uint64_t hi;
    int64_t seen;
} slot;

/* The term written into two words (code points 0-7 in lo, 8-14 in hi, its length in hi's top
 * byte); 0 where it does not fit (code point 0 is no word character, so a packed term has
 * hi != 0 and never equals another). */
static int pack(const uint32_t *cps, int64_t len, uint64_t *lo, uint64_t *hi)
{
    uint64_t a = 0, b = (uint64_t)len << 56;
    int64_t k;
    *lo = *hi = 0;
    if (len < 1 || len > PACK_MAX)
        return 0;
    for (k = 0; k < len; k++) {
        uint64_t c = cps[k];
        if (c == 0 || c > 255)
            return 0;
        if (k < 8)
            a |= c << (8 * k);
        else
            b |= c << (8 * (k - 8));
    }
    *lo = a;
    *hi = b;
    return 1;
}

struct ts_vocab {
    int64_t n;          /* terms */
    term *terms;
    int64_t terms_cap;
    uint32_t *cps;      /* the terms' code points, one after another */
    int64_t cps_cap;
    int64_t cps_len;
    slot *slots;
    int64_t n_slots;    /* a power of two, at least twice n */
};

static uint64_t mix(uint64_t h)
{
    /* splitmix64's finalizer: every input bit reaches every output bit */
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h;
}

#define HASH_SEED(len) (0x9e3779b97f4a7c15ULL ^ (uint64_t)(len))
#define HASH_STEP(h, c) (((h) ^ (c)) * 0x100000001b3ULL)

/* A packed term's hash: both words through the mixer, no loop over code points. */
static uint64_t packed_hash(uint64_t lo, uint64_t hi) { return mix(mix(lo ^ 0x9e3779b97f4a7c15ULL) ^ hi); }

/* The hash of a term that does not pack: code point by code point. */
static uint64_t chain_hash(const uint32_t *cps, int64_t len)
{
    uint64_t h = HASH_SEED(len);
    int64_t i;
    for (i = 0; i < len; i++)
        h = HASH_STEP(h, cps[i]);
    return mix(h);
}

uint64_t ts_term_hash(const uint32_t *cps, int64_t len)
{
    uint64_t lo, hi;
    return pack(cps, len, &lo, &hi) ? packed_hash(lo, hi) : chain_hash(cps, len);
}

ts_vocab *ts_vocab_new(void)
{
    ts_vocab *v = ts_calloc(1, sizeof(ts_vocab));
    if (v == NULL)
        return NULL;
    v->n_slots = 64;
    v->slots = ts_calloc((size_t)v->n_slots, sizeof(slot));
    v->terms_cap = 16;
    v->terms = ts_calloc((size_t)v->terms_cap, sizeof(term));
    if (v->slots == NULL || v->terms == NULL) {
        ts_vocab_free(v);
        return NULL;
    }
    return v;
}

void ts_vocab_free(ts_vocab *v)
{
    if (v == NULL)
        return;
    free(v->terms);
    free(v->cps);
    free(v->slots);
    free(v);
}

int64_t ts_vocab_size(const ts_vocab *v) { return v->n; }

void ts_vocab_term(const ts_vocab *v, int64_t id, const uint32_t **cps, int64_t *len)
{
    *cps = v->cps + v->terms[id].start;
    *len = v->terms[id].len;
}

static int same(const uint32_t *a, const uint32_t *b, int64_t len)
{
    int64_t k;
    for (k = 0; k < len; k++)
        if (a[k] != b[k])
            return 0;
    return 1;
}

/* The slot holding the term (cps, len) of hash h, or the empty slot where it would go; lo and
 * hi its packed form (0 where it has none). */
static int64_t probe_packed(const ts_vocab *v, const uint32_t *cps, int64_t len, uint64_t h, uint64_t lo,
                            uint64_t hi)
{
    int64_t mask = v->n_slots - 1, i = (int64_t)(h & (uint64_t)mask);
    uint64_t tag = TAG(h);
    for (;;) {
        const slot *at = &v->slots[i];
        if (at->key == 0)
            return i;
        if (TAG(at->key) == tag) {
            if (hi != 0) {
                if (at->hi == hi && at->lo == lo)
                    return i;
            } else if (at->hi == 0) {
                const term *t = &v->terms[(at->key & ID_MASK) - 1];
                if (t->hash == h && t->len == len && same(v->cps + t->start, cps, len))
                    return i;
            }
        }
        i = (i + 1) & mask;
    }
}

static int64_t probe(const ts_vocab *v, const uint32_t *cps, int64_t len, uint64_t h)
{
    uint64_t lo, hi;
    pack(cps, len, &lo, &hi);
    return probe_packed(v, cps, len, h, lo, hi);
}

/* A zeroed table of n slots.  On Linux a large one asks for huge pages: a lookup lands anywhere in
 * it, and with 4 KiB pages most lookups in a table of megabytes also miss the TLB. */
static slot *new_slots(int64_t n)
{
    slot *slots = ts_calloc((size_t)n, sizeof(slot));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    size_t huge = (size_t)1 << 21, bytes = (size_t)n * sizeof(slot);
    if (slots != NULL && bytes >= 2 * huge) {
        uintptr_t from = ((uintptr_t)slots + huge - 1) & ~(uintptr_t)(huge - 1);
        uintptr_t to = ((uintptr_t)slots + bytes) & ~(uintptr_t)(huge - 1);
        if (to > from)
            (void)madvise((void *)from, (size_t)(to - from), MADV_HUGEPAGE); /* a hint: failure is fine */
    }
#endif
    return slots;
}

static int rehash(ts_vocab *v)
{
    int64_t n_slots = v->n_slots * 2, k, i, mask;
    slot *slots;
    if (v->n_slots > INT64_MAX / 2 / (int64_t)sizeof(slot))
        return TS_ERR_NOMEM;
    slots = new_slots(n_slots);
    if (slots == NULL)
        return TS_ERR_NOMEM;
    mask = n_slots - 1;
    for (k = 0; k < v->n_slots; k++) {
        const slot *old = &v->slots[k];
        if (old->key == 0)
            continue;
        i = (int64_t)(v->terms[(old->key & ID_MASK) - 1].hash & (uint64_t)mask);
        while (slots[i].key != 0)
            i = (i + 1) & mask;
        slots[i] = *old; /* with its packed form and what counting noted in it */
    }
    free(v->slots);
    v->slots = slots;
    v->n_slots = n_slots;
    return TS_OK;
}

int64_t ts_vocab_find(const ts_vocab *v, const uint32_t *cps, int64_t len, uint64_t h)
{
    uint64_t key = v->slots[probe(v, cps, len, h)].key;
    return key == 0 ? -1 : (int64_t)(key & ID_MASK) - 1;
}

/* The term's id, added (with the next id) if new, and the slot holding it; lo and hi its packed
 * form. */
static int add_at(ts_vocab *v, const uint32_t *cps, int64_t len, uint64_t h, uint64_t lo, uint64_t hi,
                  int64_t *id, int64_t *where)
{
    int64_t at = probe_packed(v, cps, len, h, lo, hi), end = v->cps_len;
    int status;
    if (v->slots[at].key != 0) {
        *id = (int64_t)(v->slots[at].key & ID_MASK) - 1;
        *where = at;
        return TS_OK;
    }
    if (len < 0)
        return TS_ERR_ARG;
    if ((uint64_t)v->n + 1 >= ID_MASK || len > INT64_MAX - end)
        return TS_ERR_NOMEM;
    if ((status = grow((void **)&v->terms, &v->terms_cap, v->n + 1, sizeof(term))) != TS_OK)
        return status;
    if ((status = grow((void **)&v->cps, &v->cps_cap, end + len, sizeof(uint32_t))) != TS_OK)
        return status;
    if (len > 0)
        memcpy(v->cps + end, cps, (size_t)len * sizeof(uint32_t));
    v->cps_len = end + len;
    v->terms[v->n].start = end;
    v->terms[v->n].len = len;
    v->terms[v->n].hash = h;
    v->slots[at].key = TAG(h) | (uint64_t)(v->n + 1);
    v->slots[at].lo = lo;
    v->slots[at].hi = hi;
    v->slots[at].seen = 0;
    *id = v->n++;
    *where = at;
    if (2 * v->n > v->n_slots) {
        if ((status = rehash(v)) != TS_OK)
            return status;
        *where = probe_packed(v, cps, len, h, lo, hi);
    }
    return TS_OK;
}

int ts_vocab_add(ts_vocab *v, const uint32_t *cps, int64_t len, uint64_t h, int64_t *id)
{
    uint64_t lo, hi;
    int64_t where;
    pack(cps, len, &lo, &hi);
    return add_at(v, cps, len, h, lo, hi, id, &where);
}

/* ---- tokens ----------------------------------------------------------------------------- */

static uint32_t code_point(const ts_text *doc, int64_t i)
{
    switch (doc->kind) {
    case 1:
        return ((const uint8_t *)doc->data)[i];
    case 2:
        return ((const uint16_t *)doc->data)[i];
    default:
        return ((const uint32_t *)doc->data)[i];
    }
}

#define IS_WORD(word, c) ((c) < TS_CODE_POINTS && ((word)[(c) >> 3] >> ((c)&7)) & 1)

/* The end of the run of word characters from `begin`, for each width of code point. */
#define RUN_END(TYPE)                                                                          \
    static int64_t run_end_##TYPE(const void *data, int64_t begin, int64_t len, const uint8_t *word) \
    {                                                                                          \
        const TYPE *p = (const TYPE *)data;                                                    \
        while (begin < len && IS_WORD(word, (uint32_t)p[begin]))                               \
            begin++;                                                                           \
        return begin;                                                                          \
    }                                                                                          \
    static int64_t run_start_##TYPE(const void *data, int64_t begin, int64_t len, const uint8_t *word) \
    {                                                                                          \
        const TYPE *p = (const TYPE *)data;                                                    \
        while (begin < len && !IS_WORD(word, (uint32_t)p[begin]))                              \
            begin++;                                                                           \
        return begin;                                                                          \
    }
RUN_END(uint16_t)
RUN_END(uint32_t)

typedef struct {
    int64_t doc;   /* -1 for none */
    int64_t entry; /* offset in that document's row */
} seen;

/* A feature found and hashed, its slot asked for, to be counted a few features later: the
 * table's lookups are waits on memory (a large vocabulary does not fit in cache), and AHEAD of
 * them in flight at once take little more than one. */
#define AHEAD 8
typedef struct {
    uint32_t *cps;
    int64_t cap;
    int64_t len;
    uint64_t lo, hi, h;
} pending;

/* What one thread keeps between documents: the document's tokens (code points, and where each
 * starts), the n-gram being joined, the features waiting to be counted, and for each term the
 * document that last counted it. */
typedef struct {
    uint32_t *cps;
    int64_t cps_cap;
    int64_t *tok;        /* token k is cps[tok[k] .. tok[k + 1]) */
    int64_t tok_cap;
    uint32_t *gram;
    int64_t gram_cap;
    seen *seen;          /* per term: the last document counting it, and its entry in that row */
    int64_t seen_cap;
    uint8_t narrow[256]; /* the word bitmap for code points below 256, a byte each */
    pending ring[AHEAD]; /* features found, waiting to be counted while their slots are fetched */
    int64_t pushed, counted;
    const ts_vocab *stop; /* the stop words the pending features are checked against, or NULL */
} scratch;

/* The rows being written: each document's terms (in the order first seen, then sorted) and counts. */
typedef struct {
    int64_t *ids;
    int64_t ids_cap;
    int64_t *counts;
    int64_t counts_cap;
    int64_t nnz;
} rows;

static void scratch_free(scratch *s)
{
    int k;
    free(s->cps);
    free(s->tok);
    free(s->gram);
    free(s->seen);
    for (k = 0; k < AHEAD; k++)
        free(s->ring[k].cps);
}

/* The end of the run of word characters (or, with want 0, of other characters) from i, in a
 * document of one byte a code point. */
static int64_t narrow_run(const uint8_t *p, int64_t i, int64_t len, const uint8_t *narrow, uint8_t want)
{
    while (i < len && narrow[p[i]] == want)
        i++;
    return i;
}

/* The document's tokens that are not stop words, into s->cps / s->tok; their number. */
static int split(const ts_text *doc, const ts_count_options *opt, scratch *s, int64_t *n_tokens)
{
    int64_t i = 0, n = 0, begin, len = doc->length, at, k;
    int status;
    if ((status = grow((void **)&s->tok, &s->tok_cap, 1, sizeof(int64_t))) != TS_OK)
        return status;
    s->tok[0] = 0;
    for (;;) {
        if (doc->kind == 1) {
            begin = narrow_run((const uint8_t *)doc->data, i, len, s->narrow, 0);
            i = begin < len ? narrow_run((const uint8_t *)doc->data, begin, len, s->narrow, 1) : len;
        } else if (doc->kind == 2) {
            begin = run_start_uint16_t(doc->data, i, len, opt->word);
            i = begin < len ? run_end_uint16_t(doc->data, begin, len, opt->word) : len;
        } else {
            begin = run_start_uint32_t(doc->data, i, len, opt->word);
            i = begin < len ? run_end_uint32_t(doc->data, begin, len, opt->word) : len;
        }
        if (begin >= len)
            break;
        if (i - begin < 2)
            continue;
        at = s->tok[n];
        if ((status = grow((void **)&s->cps, &s->cps_cap, at + (i - begin), sizeof(uint32_t))) != TS_OK)
            return status;
        if (doc->kind == 1) {
            const uint8_t *p = (const uint8_t *)doc->data;
            for (k = begin; k < i; k++)
                s->cps[at + (k - begin)] = p[k];
        } else {
            for (k = begin; k < i; k++)
                s->cps[at + (k - begin)] = code_point(doc, k);
        }
        if (opt->stop != NULL &&
            ts_vocab_find(opt->stop, s->cps + at, i - begin, ts_term_hash(s->cps + at, i - begin)) >= 0)
            continue; /* a stop word: not kept, not in any n-gram */
        if ((status = grow((void **)&s->tok, &s->tok_cap, n + 2, sizeof(int64_t))) != TS_OK)
            return status;
        s->tok[++n] = at + (i - begin);
    }
    *n_tokens = n;
    return TS_OK;
}

/* Document d checked, and the interrupt check asked every 1024 documents. */
static int check_doc(const ts_text *docs, int64_t d, const ts_count_options *opt)
{
    const ts_text *doc = &docs[d];
    if (doc->length < 0 || (doc->kind != 1 && doc->kind != 2 && doc->kind != 4) ||
        (doc->length > 0 && doc->data == NULL))
        return TS_ERR_ARG;
    if (opt->interrupted != NULL && (d & 1023) == 0 && opt->interrupted(opt->interrupt_ctx))
        return TS_ERR_INTERRUPTED;
    return TS_OK;
}

/* Document d checked and its tokens split. */
static int next_doc(const ts_text *docs, int64_t d, const ts_count_options *opt, scratch *s, int64_t *n_tokens)
{
    int status = check_doc(docs, d, opt);
    return status != TS_OK ? status : split(&docs[d], opt, s, n_tokens);
}

/* The feature of the n tokens from token i: the token itself, or the tokens joined by single
 * spaces (in s->gram). */
static int feature_at(scratch *s, int64_t i, int64_t n, const uint32_t **feature, int64_t *len)
{
    int64_t at = 0, k;
    int status;
    *feature = s->cps + s->tok[i];
    *len = s->tok[i + n] - s->tok[i];
    if (n == 1)
        return TS_OK;
    if ((status = grow((void **)&s->gram, &s->gram_cap, *len + n - 1, sizeof(uint32_t))) != TS_OK)
        return status;
    for (k = i; k < i + n; k++) {
        int64_t m = s->tok[k + 1] - s->tok[k];
        if (k > i)
            s->gram[at++] = ' ';
        memcpy(s->gram + at, s->cps + s->tok[k], (size_t)m * sizeof(uint32_t));
        at += m;
    }
    *feature = s->gram;
    *len = at;
    return TS_OK;
}

/* A new entry of term id in the rows, counted once. */
static int new_entry(rows *out, int64_t id)
{
    int status;
    if ((status = grow((void **)&out->ids, &out->ids_cap, out->nnz + 1, sizeof(int64_t))) != TS_OK)
        return status;
    if ((status = grow((void **)&out->counts, &out->counts_cap, out->nnz + 1, sizeof(int64_t))) != TS_OK)
        return status;
    out->ids[out->nnz] = id;
    out->counts[out->nnz] = 1;
    out->nnz++;
    return TS_OK;
}

/* Count one feature (cps, len) of document d into its row, which starts at row_start.  A
 * vocabulary being built notes each term's entry in its own slot; a fixed one, shared by the
 * threads, is only read, and the entries are noted per term in the thread's scratch. */
static int count_packed(ts_vocab *vocab, const ts_count_options *opt, scratch *s, int64_t d,
                        const uint32_t *cps, int64_t len, uint64_t lo, uint64_t hi, uint64_t h, int64_t row_start,
                        rows *out)
{
    int64_t id, at;
    int status;
    if (!opt->fixed) {
        slot *noted;
        if ((status = add_at(vocab, cps, len, h, lo, hi, &id, &at)) != TS_OK)
            return status;
        noted = &vocab->slots[at];
        if (noted->seen > row_start) {
            out->counts[noted->seen - 1]++;
            return TS_OK;
        }
        noted->seen = out->nnz + 1;
        return new_entry(out, id);
    }
    id = ts_vocab_find(vocab, cps, len, h);
    if (id < 0)
        return TS_OK;
    if (id >= s->seen_cap) {
        int64_t old = s->seen_cap, k;
        if ((status = grow((void **)&s->seen, &s->seen_cap, id + 1, sizeof(seen))) != TS_OK)
            return status;
        for (k = old; k < s->seen_cap; k++)
            s->seen[k].doc = -1;
    }
    if (s->seen[id].doc == d) {
        out->counts[row_start + s->seen[id].entry]++;
        return TS_OK;
    }
    s->seen[id].doc = d;
    s->seen[id].entry = out->nnz - row_start;
    return new_entry(out, id);
}

/* Ask for the cache line of the slot where a probe for hash h starts, while other work goes on. */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH_SLOT(v, h) __builtin_prefetch(&(v)->slots[(h) & (uint64_t)((v)->n_slots - 1)])
#else
#define PREFETCH_SLOT(v, h) ((void)0)
#endif

/* A word found in a document: its length and packed form (its code points are in the buffer
 * next_word was given). */
typedef struct {
    int64_t len;
    uint64_t lo, hi;
} word_found;

/* The word of n code points at `begin` of a document: its code points into *buf, its length and
 * packed form into w (a word of a one-byte document is packed from its bytes). */
static int take_word(const ts_text *doc, int64_t begin, int64_t n, uint32_t **buf, int64_t *cap, word_found *w)
{
    int64_t k;
    int status;
    w->len = n;
    w->lo = w->hi = 0;
    if ((status = grow((void **)buf, cap, n, sizeof(uint32_t))) != TS_OK)
        return status;
    if (doc->kind == 1) {
        const uint8_t *p = (const uint8_t *)doc->data + begin;
        for (k = 0; k < n; k++)
            (*buf)[k] = p[k];
        if (n <= PACK_MAX) { /* a word character is never 0: the bytes are the packed form */
            w->hi = (uint64_t)n << 56;
            for (k = 0; k < n && k < 8; k++)
                w->lo |= (uint64_t)p[k] << (8 * k);
            for (k = 8; k < n; k++)
                w->hi |= (uint64_t)p[k] << (8 * (k - 8));
        }
    } else {
        for (k = 0; k < n; k++)
            (*buf)[k] = code_point(doc, begin + k);
        pack(*buf, n, &w->lo, &w->hi);
    }
    return TS_OK;
}

/* Where the words of a one-byte document are, found 64 bytes at a time: a bit per byte says
 * whether it is a word character, and the changes between the bits are where words start and
 * end; only those are visited (no branch per byte). */
typedef struct {
    int64_t base;   /* the block's first byte */
    int64_t next;   /* the next block's */
    uint64_t word;  /* the block's word bits */
    uint64_t edges; /* its starts and ends not visited yet */
    uint64_t carry; /* 1 when the byte before the next block is a word character */
    int64_t begin;  /* the open word's first byte, or -1 */
} narrow_scan;

static int lowest_bit(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

/* The next word of two bytes or more, [*begin, *end); 0 at the document's end. */
static int narrow_next(const uint8_t *p, int64_t len, const uint8_t *narrow, narrow_scan *sc, int64_t *begin,
                       int64_t *end)
{
    for (;;) {
        int pos;
        while (sc->edges == 0) {
            int64_t n, k;
            uint64_t m = 0;
            if (sc->next >= len) { /* a word open at the end runs to it */
                *begin = sc->begin;
                *end = len;
                sc->begin = -1;
                return *begin >= 0 && *end - *begin >= 2;
            }
            n = len - sc->next < 64 ? len - sc->next : 64;
            for (k = 0; k < n; k++)
                m |= (uint64_t)narrow[p[sc->next + k]] << k;
            sc->edges = (m ^ ((m << 1) | sc->carry)) & (n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1);
            sc->word = m;
            sc->carry = m >> 63;
            sc->base = sc->next;
            sc->next += n;
        }
        pos = lowest_bit(sc->edges);
        sc->edges &= sc->edges - 1;
        if ((sc->word >> pos) & 1) {
            sc->begin = sc->base + pos;
        } else {
            *begin = sc->begin;
            *end = sc->base + pos;
            sc->begin = -1;
            if (*end - *begin >= 2)
                return 1;
        }
    }
}

/* The next word of two code points or more from *at: its code points into *buf, 0 at the end. */
static int next_word(const ts_text *doc, const ts_count_options *opt, const uint8_t *narrow, int64_t *at,
                     uint32_t **buf, int64_t *cap, word_found *w)
{
    int64_t i = *at, begin, len = doc->length;
    for (;;) {
        if (doc->kind == 1) {
            begin = narrow_run((const uint8_t *)doc->data, i, len, narrow, 0);
            i = begin < len ? narrow_run((const uint8_t *)doc->data, begin, len, narrow, 1) : len;
        } else if (doc->kind == 2) {
            begin = run_start_uint16_t(doc->data, i, len, opt->word);
            i = begin < len ? run_end_uint16_t(doc->data, begin, len, opt->word) : len;
        } else {
            begin = run_start_uint32_t(doc->data, i, len, opt->word);
            i = begin < len ? run_end_uint32_t(doc->data, begin, len, opt->word) : len;
        }
        if (begin >= len) {
            *at = len;
            w->len = 0;
            return TS_OK;
        }
        if (i - begin >= 2)
            break;
    }
    *at = i;
    return take_word(doc, begin, i - begin, buf, cap, w);
}

/* Count the oldest pending feature of document d (unless it is a stop word). */
static int count_oldest(ts_vocab *vocab, const ts_count_options *opt, scratch *s, int64_t d, int64_t row_start,
                        rows *out)
{
    const pending *e = &s->ring[s->counted++ % AHEAD];
    if (s->stop != NULL && s->stop->slots[probe_packed(s->stop, e->cps, e->len, e->h, e->lo, e->hi)].key != 0)
        return TS_OK;
    return count_packed(vocab, opt, s, d, e->cps, e->len, e->lo, e->hi, e->h, row_start, out);
}

/* The feature just written into the newest pending entry: hashed, its slot asked for, and the
 * oldest entry counted once AHEAD are waiting. */
static int push(ts_vocab *vocab, const ts_count_options *opt, scratch *s, int64_t d, int64_t row_start, rows *out)
{
    pending *e = &s->ring[s->pushed % AHEAD];
    e->h = e->hi != 0 ? packed_hash(e->lo, e->hi) : chain_hash(e->cps, e->len);
    PREFETCH_SLOT(vocab, e->h);
    s->pushed++;
    return s->pushed - s->counted == AHEAD ? count_oldest(vocab, opt, s, d, row_start, out) : TS_OK;
}

/* Count every feature still pending, in order. */
static int drain(ts_vocab *vocab, const ts_count_options *opt, scratch *s, int64_t d, int64_t row_start,
                 rows *out)
{
    int status;
    while (s->counted < s->pushed)
        if ((status = count_oldest(vocab, opt, s, d, row_start, out)) != TS_OK)
            return status;
    return TS_OK;
}

/* Count the words of document d as they are found (ngram_range (1, 1): no token list is kept)
 * into its row, which starts at row_start, AHEAD of them in flight. */
static int count_words(const ts_text *doc, ts_vocab *vocab, const ts_count_options *opt, scratch *s, int64_t d,
                       int64_t row_start, rows *out)
{
    int64_t at = 0;
    int status;
    if (doc->kind == 1) {
        narrow_scan sc = {0, 0, 0, 0, 0, -1};
        int64_t begin, end;
        while (narrow_next((const uint8_t *)doc->data, doc->length, s->narrow, &sc, &begin, &end)) {
            pending *e = &s->ring[s->pushed % AHEAD];
            word_found w;
            if ((status = take_word(doc, begin, end - begin, &e->cps, &e->cap, &w)) != TS_OK)
                return status;
            e->len = w.len;
            e->lo = w.lo;
            e->hi = w.hi;
            if ((status = push(vocab, opt, s, d, row_start, out)) != TS_OK)
                return status;
        }
        return drain(vocab, opt, s, d, row_start, out);
    }
    for (;;) {
        pending *e = &s->ring[s->pushed % AHEAD];
        word_found w;
        if ((status = next_word(doc, opt, s->narrow, &at, &e->cps, &e->cap, &w)) != TS_OK)
            return status;
        if (w.len == 0)
            return drain(vocab, opt, s, d, row_start, out);
        e->len = w.len;
        e->lo = w.lo;
        e->hi = w.hi;
        if ((status = push(vocab, opt, s, d, row_start, out)) != TS_OK)
            return status;
    }
}

/* Count the n-grams of document d's tokens (split already), in scikit-learn's order: the
 * tokens, then each n from the smallest, by position; AHEAD of them in flight. */
static int count_ngrams(ts_vocab *vocab, const ts_count_options *opt, scratch *s, int64_t d, int64_t n_tokens,
                        int64_t row_start, rows *out)
{
    int64_t n, i;
    int status;
    for (n = opt->ngram_min; n <= opt->ngram_max && n <= n_tokens; n++) {
        for (i = 0; i + n <= n_tokens; i++) {
            pending *e = &s->ring[s->pushed % AHEAD];
            const uint32_t *feature;
            int64_t len;
            if ((status = feature_at(s, i, n, &feature, &len)) != TS_OK)
                return status;
            if ((status = grow((void **)&e->cps, &e->cap, len, sizeof(uint32_t))) != TS_OK)
                return status;
            memcpy(e->cps, feature, (size_t)len * sizeof(uint32_t));
            e->len = len;
            pack(e->cps, len, &e->lo, &e->hi);
            if ((status = push(vocab, opt, s, d, row_start, out)) != TS_OK)
                return status;
        }
    }
    return drain(vocab, opt, s, d, row_start, out);
}

/* Sort a row's entries by id; counts follow (the general case, for any id and count). */
static void sort_pairs(int64_t *ids, int64_t *counts, int64_t n)
{
    int64_t i, j, id, count;
    if (n < 2)
        return;
    if (n <= 32) {
        for (i = 1; i < n; i++) {
            id = ids[i];
            count = counts[i];
            for (j = i; j > 0 && ids[j - 1] > id; j--) {
                ids[j] = ids[j - 1];
                counts[j] = counts[j - 1];
            }
            ids[j] = id;
            counts[j] = count;
        }
        return;
    }
    /* quicksort on the middle element's id, then each side */
    {
        int64_t pivot = ids[n / 2], lo = 0, hi = n - 1, t;
        while (lo <= hi) {
            while (ids[lo] < pivot)
                lo++;
            while (ids[hi] > pivot)
                hi--;
            if (lo <= hi) {
                t = ids[lo], ids[lo] = ids[hi], ids[hi] = t;
                t = counts[lo], counts[lo] = counts[hi], counts[hi] = t;
                lo++;
                hi--;
            }
        }
        sort_pairs(ids, counts, hi + 1);
        sort_pairs(ids + lo, counts + lo, n - lo);
    }
}

/* Sort distinct keys ascending. */
static void sort_keys(int64_t *a, int64_t n)
{
    int64_t i, j, key;
    while (n > 32) { /* quicksort on the middle key; the smaller side recursively */
        int64_t pivot = a[n / 2], lo = 0, hi = n - 1, t;
        while (lo <= hi) {
            while (a[lo] < pivot)
                lo++;
            while (a[hi] > pivot)
                hi--;
            if (lo <= hi) {
                t = a[lo], a[lo] = a[hi], a[hi] = t;
                lo++;
                hi--;
            }
        }
        if (hi + 1 < n - lo) {
            sort_keys(a, hi + 1);
            a += lo;
            n -= lo;
        } else {
            sort_keys(a + lo, n - lo);
            n = hi + 1;
        }
    }
    for (i = 1; i < n; i++) {
        key = a[i];
        for (j = i; j > 0 && a[j - 1] > key; j--)
            a[j] = a[j - 1];
        a[j] = key;
    }
}

#define COUNT_BITS 24

/* Sort a row's entries by id; counts follow.  Where every id and count fits, each entry is sorted
 * as one key (id above the count's COUNT_BITS bits), written over its id: half the data moved. */
static void sort_row(int64_t *ids, int64_t *counts, int64_t n)
{
    int64_t k, top_id = 0, top_count = 0, low = 0;
    for (k = 0; k < n; k++) {
        top_id = ids[k] > top_id ? ids[k] : top_id;
        top_count = counts[k] > top_count ? counts[k] : top_count;
        low = ids[k] < low ? ids[k] : low;
        low = counts[k] < low ? counts[k] : low;
    }
    /* (hashed columns' values may be negative) */
    if (low < 0 || top_id >= (INT64_C(1) << (62 - COUNT_BITS)) || top_count >= (INT64_C(1) << COUNT_BITS)) {
        sort_pairs(ids, counts, n);
        return;
    }
    for (k = 0; k < n; k++)
        ids[k] = (ids[k] << COUNT_BITS) | counts[k];
    sort_keys(ids, n);
    for (k = 0; k < n; k++) {
        counts[k] = ids[k] & ((INT64_C(1) << COUNT_BITS) - 1);
        ids[k] >>= COUNT_BITS;
    }
}

int ts_count_terms(const ts_text *docs, int64_t n_docs, ts_vocab *vocab, const ts_count_options *opt,
                   int64_t *indptr, int64_t **ids, int64_t **counts, int64_t *nnz)
{
    scratch s;
    rows out;
    int64_t d, n_tokens, k;
    int status = TS_OK;
    *ids = NULL;
    *counts = NULL;
    *nnz = 0;
    if (docs == NULL || vocab == NULL || opt == NULL || opt->word == NULL || indptr == NULL || n_docs < 0 ||
        opt->ngram_min < 1 || opt->ngram_max < opt->ngram_min)
        return TS_ERR_ARG;
    memset(&s, 0, sizeof(s));
    memset(&out, 0, sizeof(out));
    for (k = 0; k < 256; k++)
        s.narrow[k] = (uint8_t)IS_WORD(opt->word, (uint32_t)k);
    if (!opt->fixed) /* entries noted by an earlier call are of other rows */
        for (k = 0; k < vocab->n_slots; k++)
            vocab->slots[k].seen = 0;
    indptr[0] = 0;
    for (d = 0; d < n_docs; d++) {
        int64_t row_start = out.nnz;
        if (opt->ngram_max == 1) { /* stop words are told as the words are counted */
            s.stop = opt->stop;
            if ((status = check_doc(docs, d, opt)) != TS_OK ||
                (status = count_words(&docs[d], vocab, opt, &s, d, row_start, &out)) != TS_OK)
                goto done;
        } else { /* stop words are dropped as the tokens are split, before they are joined */
            s.stop = NULL;
            if ((status = next_doc(docs, d, opt, &s, &n_tokens)) != TS_OK ||
                (status = count_ngrams(vocab, opt, &s, d, n_tokens, row_start, &out)) != TS_OK)
                goto done;
        }
        if (out.nnz > row_start)
            sort_row(out.ids + row_start, out.counts + row_start, out.nnz - row_start);
        indptr[d + 1] = out.nnz;
    }
done:
    scratch_free(&s);
    if (status != TS_OK) {
        free(out.ids);
        free(out.counts);
        return status;
    }
    *ids = out.ids;
    *counts = out.counts;
    *nnz = out.nnz;
    return TS_OK;
}

/* ---- merging the threads' vocabularies, and the terms' order ---------------------------------- */

int ts_vocab_merge(ts_vocab *into, const ts_vocab *part, int64_t *map)
{
    int64_t t;
    int status;
    for (t = 0; t < part->n; t++) {
        const term *p = &part->terms[t];
        if ((status = ts_vocab_add(into, part->cps + p->start, p->len, p->hash, &map[t])) != TS_OK)
            return status;
    }
    return TS_OK;
}

void ts_remap_rows(const int64_t *indptr, int64_t n_rows, int64_t *ids, int64_t *counts, const int64_t *map)
{
    int64_t i, k;
    for (i = 0; i < n_rows; i++) {
        for (k = indptr[i]; k < indptr[i + 1]; k++)
            ids[k] = map[ids[k]];
        sort_row(ids + indptr[i], counts + indptr[i], indptr[i + 1] - indptr[i]);
    }
}

/* Python's order of str: code point by code point, a prefix first. */
static int term_less(const ts_vocab *v, int64_t a, int64_t b)
{
    const uint32_t *x = v->cps + v->terms[a].start, *y = v->cps + v->terms[b].start;
    int64_t nx = v->terms[a].len, ny = v->terms[b].len, i;
    int64_t n = nx < ny ? nx : ny;
    for (i = 0; i < n; i++)
        if (x[i] != y[i])
            return x[i] < y[i];
    return nx < ny;
}

/* A position to sort with the first six code points of its term packed into two keys of 63
 * bits (21 bits a code point, 0 past the term's end): most comparisons are told by the keys
 * alone, without reading the terms.  Equal keys are told by the terms themselves. */
typedef struct {
    uint64_t key[2];
    int64_t pos;
} sort_item;

static uint64_t sort_key(const ts_vocab *v, int64_t id, int64_t from)
{
    const term *t = &v->terms[id];
    uint64_t key = 0;
    int64_t k;
    for (k = from; k < from + 3; k++)
        key = (key << 21) | (k < t->len ? (uint64_t)(v->cps[t->start + k] & 0x1FFFFF) : 0);
    return key;
}

int ts_vocab_order(const ts_vocab *v, const int64_t *ids, int64_t n, int64_t *order)
{
    /* a bottom-up merge sort of the positions 0 .. n-1 by their terms: stable */
    int64_t width, i;
    sort_item *items, *tmp, *from, *to;
    if (ids == NULL && n > v->n)
        return TS_ERR_INDEX;
    for (i = 0; ids != NULL && i < n; i++)
        if (ids[i] < 0 || ids[i] >= v->n)
            return TS_ERR_INDEX;
    items = ts_calloc((size_t)(n > 0 ? n : 1), sizeof(sort_item));
    tmp = ts_calloc((size_t)(n > 0 ? n : 1), sizeof(sort_item));
    if (items == NULL || tmp == NULL) {
        free(items);
        free(tmp);
        return TS_ERR_NOMEM;
    }
#define TERM_OF(item) (ids != NULL ? ids[(item).pos] : (item).pos)
    for (i = 0; i < n; i++) {
        items[i].pos = i;
        items[i].key[0] = sort_key(v, TERM_OF(items[i]), 0);
        items[i].key[1] = sort_key(v, TERM_OF(items[i]), 3);
    }
    from = items;
    to = tmp;
    for (width = 1; width < n; width *= 2) {
        for (i = 0; i < n; i += 2 * width) {
            int64_t mid = i + width < n ? i + width : n, end = i + 2 * width < n ? i + 2 * width : n;
            int64_t a = i, b = mid, k = i;
            while (a < mid && b < end) {
                const sort_item *x = &from[a], *y = &from[b];
                int y_first = y->key[0] != x->key[0]   ? y->key[0] < x->key[0]
                              : y->key[1] != x->key[1] ? y->key[1] < x->key[1]
                                                       : term_less(v, TERM_OF(*y), TERM_OF(*x));
                to[k++] = y_first ? from[b++] : from[a++];
            }
            while (a < mid)
                to[k++] = from[a++];
            while (b < end)
                to[k++] = from[b++];
        }
        {
            sort_item *swap = from;
            from = to;
            to = swap;
        }
    }
#undef TERM_OF
    for (i = 0; i < n; i++)
        order[i] = from[i].pos;
    free(items);
    free(tmp);
    return TS_OK;
}

/* ---- hashed features (scikit-learn's HashingVectorizer) ------------------------------------ */

static uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

/* MurmurHash3_x86_32 (Austin Appleby's, public domain) of n bytes, as scikit-learn's
 * murmurhash3_bytes_s32 computes it (read as a signed 32-bit value by the caller). */
static uint32_t murmur3_32(const uint8_t *data, int64_t n, uint32_t seed)
{
    const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
    uint32_t h = seed, k;
    int64_t i, blocks = n / 4;
    for (i = 0; i < blocks; i++) {
        const uint8_t *b = data + 4 * i;
        k = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
        h = rotl32(h, 13);
        h = h * 5 + 0xe6546b64u;
    }
    k = 0;
    switch (n & 3) {
    case 3:
        k ^= (uint32_t)data[4 * blocks + 2] << 16; /* fall through */
    case 2:
        k ^= (uint32_t)data[4 * blocks + 1] << 8; /* fall through */
    case 1:
        k ^= (uint32_t)data[4 * blocks];
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
    }
    h ^= (uint32_t)n;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/* The feature's UTF-8 bytes into *buf; 0, or -1 for a lone surrogate (which Python's
 * str.encode("utf-8") refuses). */
static int utf8(const uint32_t *cps, int64_t len, uint8_t **buf, int64_t *cap, int64_t *n)
{
    int64_t i, at = 0;
    if (grow((void **)buf, cap, 4 * len + 1, 1) != TS_OK)
        return TS_ERR_NOMEM;
    for (i = 0; i < len; i++) {
        uint32_t c = cps[i];
        uint8_t *p = *buf + at;
        if (c < 0x80) {
            p[0] = (uint8_t)c;
            at += 1;
        } else if (c < 0x800) {
            p[0] = (uint8_t)(0xC0 | (c >> 6));
            p[1] = (uint8_t)(0x80 | (c & 0x3F));
            at += 2;
        } else if (c >= 0xD800 && c <= 0xDFFF) {
            return -1;
        } else if (c < 0x10000) {
            p[0] = (uint8_t)(0xE0 | (c >> 12));
            p[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            p[2] = (uint8_t)(0x80 | (c & 0x3F));
            at += 3;
        } else {
            p[0] = (uint8_t)(0xF0 | (c >> 18));
            p[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
            p[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            p[3] = (uint8_t)(0x80 | (c & 0x3F));
            at += 4;
        }
    }
    *n = at;
    return 0;
}

int ts_hash_terms(const ts_text *docs, int64_t n_docs, const ts_count_options *opt, int64_t n_features,
                  int alternate_sign, int64_t *indptr, int64_t **indices, int64_t **values, int64_t *nnz)
{
    scratch s;
    rows out;
    uint8_t *bytes = NULL;
    int64_t bytes_cap = 0, d, n_tokens, n, i, k, m;
    int status = TS_OK;
    *indices = NULL;
    *values = NULL;
    *nnz = 0;
    if (docs == NULL || opt == NULL || opt->word == NULL || indptr == NULL || n_docs < 0 || n_features < 1 ||
        n_features > INT32_MAX || opt->ngram_min < 1 || opt->ngram_max < opt->ngram_min)
        return TS_ERR_ARG;
    memset(&s, 0, sizeof(s));
    memset(&out, 0, sizeof(out));
    for (k = 0; k < 256; k++)
        s.narrow[k] = (uint8_t)IS_WORD(opt->word, (uint32_t)k);
    indptr[0] = 0;
    for (d = 0; d < n_docs; d++) {
        int64_t row_start = out.nnz;
        if ((status = next_doc(docs, d, opt, &s, &n_tokens)) != TS_OK)
            goto done;
        for (n = opt->ngram_min; n <= opt->ngram_max && n <= n_tokens; n++) {
            for (i = 0; i + n <= n_tokens; i++) {
                const uint32_t *feature;
                int64_t len, n_bytes;
                int32_t h;
                if ((status = feature_at(&s, i, n, &feature, &len)) != TS_OK)
                    goto done;
                if ((status = utf8(feature, len, &bytes, &bytes_cap, &n_bytes)) != 0) {
                    status = status == -1 ? TS_ERR_ARG : status;
                    goto done;
                }
                h = (int32_t)murmur3_32(bytes, n_bytes, 0);
                if ((status = grow((void **)&out.ids, &out.ids_cap, out.nnz + 1, sizeof(int64_t))) != TS_OK ||
                    (status = grow((void **)&out.counts, &out.counts_cap, out.nnz + 1, sizeof(int64_t))) != TS_OK)
                    goto done;
                /* scikit-learn's column: abs(h) mod n, abs(-2^31) read as 2^31 - 1 - (n - 1) */
                out.ids[out.nnz] = h == INT32_MIN ? (INT32_MAX - (n_features - 1)) % n_features
                                                  : (int64_t)(h < 0 ? -h : h) % n_features;
                out.counts[out.nnz] = alternate_sign && h < 0 ? -1 : 1;
                out.nnz++;
            }
        }
        /* sorted by column, equal columns summed (scipy's sum_duplicates keeps the zeros it makes) */
        sort_row(out.ids + row_start, out.counts + row_start, out.nnz - row_start);
        for (k = row_start, m = row_start; k < out.nnz; m++) {
            int64_t col = out.ids[k], sum = 0;
            while (k < out.nnz && out.ids[k] == col)
                sum += out.counts[k++];
            out.ids[m] = col;
            out.counts[m] = sum;
        }
        out.nnz = m;
        indptr[d + 1] = out.nnz;
    }
done:
    scratch_free(&s);
    free(bytes);
    if (status != TS_OK) {
        free(out.ids);
        free(out.counts);
        return status;
    }
    *indices = out.ids;
    *values = out.counts;
    *nnz = out.nnz;
    return TS_OK;
}
