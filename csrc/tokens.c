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
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- growable buffers ------------------------------------------------------------------ */

/* On Linux, ask for the 2 MiB pages within [p, p + bytes) to be huge.  A hint: failure is fine.
 * (Only the hash tables ask: for the arrays that grow, it measured slower.) */
static void huge_pages(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    size_t huge = (size_t)1 << 21;
    if (bytes >= 2 * huge) {
        uintptr_t from = ((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1);
        uintptr_t to = ((uintptr_t)p + bytes) & ~(uintptr_t)(huge - 1);
        if (to > from)
            (void)madvise((void *)from, (size_t)(to - from), MADV_HUGEPAGE);
    }
#else
    (void)p;
    (void)bytes;
#endif
}

/* Make room for `need` elements of `size` bytes in *p (capacity *cap, in elements), doubling; the
 * new room is not cleared.  (realloc: a large block grows where it is, or by remapping its pages,
 * rather than by a copy.) */
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
    fresh = ts_realloc(*p, (size_t)wanted, size);
    if (fresh == NULL)
        return TS_ERR_NOMEM;
    *p = fresh;
    *cap = wanted;
    return TS_OK;
}

/* ---- features: terms as found, and the vocabulary ----------------------------------------- */

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
#define ID_BITS 32
#define ID_MASK ((UINT64_C(1) << ID_BITS) - 1)
#define TAG(h) ((h) & ~ID_MASK)
/* A term's home slot: the low bits of its tag (the hash's top ID_BITS bits), so that a table
 * grows by reading its slots alone, never the terms. */
#define HOME(h, mask) ((int64_t)(((h) >> ID_BITS) & (uint64_t)(mask)))
#define PACK_MAX 15

typedef struct {
    uint64_t key;
    uint64_t lo;
    uint64_t hi;
    int64_t seen;
} slot;

/* A feature as found, before it is looked up: `len` code points of `kind` bytes each (1, 2 or 4)
 * at `data` (a document's own text, or a token list's or a joined n-gram's code points), its
 * packed form (lo, hi: code points 0-7 in lo, 8-14 in hi, its length in hi's top byte; both 0
 * where it does not fit; code point 0 is no word character, so a packed term has hi != 0 and
 * never equals another) and its hash h. */
typedef struct {
    const void *data;
    int64_t len;
    int kind;
    const uint8_t *lower; /* a one-byte document's lowercase map (its bytes read through it), or NULL */
    uint64_t lo, hi, h;
} feature;

static inline uint32_t cp_at(const void *data, int kind, int64_t i)
{
    switch (kind) {
    case 1:
        return ((const uint8_t *)data)[i];
    case 2:
        return ((const uint16_t *)data)[i];
    default:
        return ((const uint32_t *)data)[i];
    }
}

/* Code point i of f, as read (lowercased where f has a map). */
static inline uint32_t feature_cp(const feature *f, int64_t i)
{
    return f->lower != NULL ? f->lower[((const uint8_t *)f->data)[i]] : cp_at(f->data, f->kind, i);
}

/* f's packed form, code point by code point. */
static void pack(feature *f)
{
    uint64_t a = 0, b = (uint64_t)f->len << 56;
    int64_t k;
    f->lo = f->hi = 0;
    if (f->len < 1 || f->len > PACK_MAX)
        return;
    for (k = 0; k < f->len; k++) {
        uint64_t c = feature_cp(f, k);
        if (c == 0 || c > 255)
            return;
        if (k < 8)
            a |= c << (8 * k);
        else
            b |= c << (8 * (k - 8));
    }
    f->lo = a;
    f->hi = b;
}

/* Eight ASCII bytes with A-Z lowercased (bytes above 127 are left as they are). */
static inline uint64_t ascii_lower(uint64_t x)
{
    const uint64_t high = UINT64_C(0x8080808080808080), seven = UINT64_C(0x7F7F7F7F7F7F7F7F);
    uint64_t at_least_a = (x & seven) + UINT64_C(0x3F3F3F3F3F3F3F3F); /* top bit: byte >= 'A' */
    uint64_t past_z = (x & seven) + UINT64_C(0x2525252525252525);     /* top bit: byte > 'Z' */
    return x | ((at_least_a & ~past_z & ~x & high) >> 2);
}

/* The packed form of a word of a one-byte document (its bytes are word characters, never 0),
 * `room` bytes readable from p: two loads where 16 bytes are, on a little-endian machine, and
 * where f has a lowercase map, an ASCII word lowercased in the two words. */
static inline void pack_word_bytes(feature *f, int64_t room)
{
    const uint8_t *p = (const uint8_t *)f->data;
    int64_t n = f->len;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n <= PACK_MAX && room >= 16) {
        uint64_t a, b;
        memcpy(&a, p, 8);
        memcpy(&b, p + 8, 8);
        if (n < 8)
            a &= (UINT64_C(1) << (8 * n)) - 1;
        b = n <= 8 ? 0 : b & ((UINT64_C(1) << (8 * (n - 8))) - 1);
        if (f->lower != NULL) {
            if (((a | b) & UINT64_C(0x8080808080808080)) != 0) { /* a Latin-1 letter: by the map */
                pack(f);
                return;
            }
            a = ascii_lower(a);
            b = ascii_lower(b);
        }
        f->lo = a;
        f->hi = b | (uint64_t)n << 56;
        return;
    }
#else
    (void)room;
    (void)p;
#endif
    pack(f);
}

/* A slot of the n-gram table, a quarter of a cache line: an n-gram of n >= 2 tokens as the pair
 * (its first n - 1 tokens' term, its last token's term), so that counting one compares two ids,
 * never code points.  `key`: 0 where empty, else pair_key().  `entry`: while ts_count_terms
 * runs, the offset of the n-gram's entry in the row of the document that last counted it, which
 * is the current row's where that row holds the n-gram's id there (a row holds an id once). */
typedef struct {
    uint64_t key;
    uint32_t id;
    uint32_t entry;
} pair_slot;

/* Terms in two tables.  Terms given as code points (every word counted, every term added) are
 * in `slots` by their code points.  N-grams counted into a vocabulary whose n-grams are all
 * pairs (`whole`) are in `pairs` alone, their code points written out only when a caller asks
 * for them (materialize()), and put in `slots` only when a lookup by code points needs them
 * (ts_vocab_flatten()): a fit of word n-grams counts millions of terms and keeps a few hundred
 * thousand.  parts[2 id], parts[2 id + 1]: an n-gram's pair, or -1 for a term of code points. */
struct ts_vocab {
    int64_t n;          /* terms */
    term *terms;        /* an n-gram's start is -1 until its code points are written out */
    int64_t terms_cap;
    int64_t *parts;
    int64_t parts_cap;  /* in pairs */
    uint32_t *cps;      /* the terms' code points, one after another */
    int64_t cps_cap;
    int64_t cps_len;
    slot *slots;
    int64_t n_slots;    /* a power of two, at least twice n_in_slots */
    int64_t n_in_slots;
    pair_slot *pairs;   /* NULL until the first n-gram */
    int64_t n_pair_slots; /* a power of two, at least 4/3 n_pairs */
    int64_t n_pairs;
    int64_t unslotted;  /* n-grams of `pairs` not (yet) in `slots` */
    int64_t flat_to;    /* every n-gram of id below it is in `slots` */
    int whole;          /* every term of two or more tokens is in `pairs` */
};

static inline uint64_t mix(uint64_t h)
{
    /* splitmix64's finalizer: every input bit reaches every output bit */
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h;
}

/* A feature's hash: a packed one's two words through the mixer (no loop over code points),
 * another's code point by code point. */
static inline uint64_t feature_hash(const feature *f)
{
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)f->len;
    int64_t i;
    if (f->hi != 0)
        return mix(mix(f->lo ^ 0x9e3779b97f4a7c15ULL) ^ f->hi);
    for (i = 0; i < f->len; i++)
        h = (h ^ feature_cp(f, i)) * 0x100000001b3ULL;
    return mix(h);
}

/* The feature of a term given as code points, packed and hashed. */
static feature of_cps(const uint32_t *cps, int64_t len)
{
    feature f;
    f.data = cps;
    f.len = len;
    f.kind = 4;
    f.lower = NULL;
    pack(&f);
    f.h = feature_hash(&f);
    return f;
}

uint64_t ts_term_hash(const uint32_t *cps, int64_t len) { return of_cps(cps, len).h; }

ts_vocab *ts_vocab_new(void)
{
    ts_vocab *v = ts_calloc(1, sizeof(ts_vocab));
    if (v == NULL)
        return NULL;
    v->n_slots = 64;
    v->slots = ts_calloc((size_t)v->n_slots, sizeof(slot));
    v->terms_cap = 16;
    v->terms = ts_calloc((size_t)v->terms_cap, sizeof(term));
    v->parts_cap = 16;
    v->parts = ts_calloc((size_t)v->parts_cap, 2 * sizeof(int64_t));
    v->whole = 1;
    if (v->slots == NULL || v->terms == NULL || v->parts == NULL) {
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
    free(v->parts);
    free(v->cps);
    free(v->slots);
    free(v->pairs);
    free(v);
}

int64_t ts_vocab_size(const ts_vocab *v) { return v->n; }

/* A new term numbered v->n (not yet in a table): `start` its code points' (-1 for an n-gram's,
 * not written out), its pair (prefix, last) or -1, -1. */
static int new_term(ts_vocab *v, int64_t start, int64_t len, uint64_t h, int64_t prefix, int64_t last)
{
    int status;
    if ((uint64_t)v->n + 1 >= ID_MASK)
        return TS_ERR_NOMEM;
    if ((status = grow((void **)&v->terms, &v->terms_cap, v->n + 1, sizeof(term))) != TS_OK ||
        (status = grow((void **)&v->parts, &v->parts_cap, v->n + 1, 2 * sizeof(int64_t))) != TS_OK)
        return status;
    v->terms[v->n].start = start;
    v->terms[v->n].len = len;
    v->terms[v->n].hash = h;
    v->parts[2 * v->n] = prefix;
    v->parts[2 * v->n + 1] = last;
    return TS_OK;
}

/* Term id's code points written out (an n-gram's: its prefix's, a space, its last token's). */
static int materialize(ts_vocab *v, int64_t id)
{
    int64_t prefix = v->parts[2 * id], last = v->parts[2 * id + 1], end, n;
    int status;
    if (v->terms[id].start >= 0)
        return TS_OK;
    if ((status = materialize(v, prefix)) != TS_OK) /* depth: at most the largest n */
        return status;
    end = v->cps_len;
    if (v->terms[id].len > INT64_MAX - end)
        return TS_ERR_NOMEM;
    if ((status = grow((void **)&v->cps, &v->cps_cap, end + v->terms[id].len, sizeof(uint32_t))) != TS_OK)
        return status;
    n = v->terms[prefix].len;
    memcpy(v->cps + end, v->cps + v->terms[prefix].start, (size_t)n * sizeof(uint32_t));
    v->cps[end + n] = ' ';
    memcpy(v->cps + end + n + 1, v->cps + v->terms[last].start, (size_t)v->terms[last].len * sizeof(uint32_t));
    v->cps_len = end + v->terms[id].len;
    v->terms[id].start = end;
    return TS_OK;
}

int ts_vocab_term(ts_vocab *v, int64_t id, const uint32_t **cps, int64_t *len)
{
    int status;
    if (id < 0 || id >= v->n)
        return TS_ERR_INDEX;
    if ((status = materialize(v, id)) != TS_OK)
        return status;
    *cps = v->cps + v->terms[id].start;
    *len = v->terms[id].len;
    return TS_OK;
}

/* Whether the stored code points a are f's (of the same length). */
static int same(const uint32_t *a, const feature *f)
{
    int64_t k;
    if (f->lower != NULL) {
        for (k = 0; k < f->len; k++)
            if (a[k] != f->lower[((const uint8_t *)f->data)[k]])
                return 0;
        return 1;
    }
    switch (f->kind) {
    case 1:
        for (k = 0; k < f->len; k++)
            if (a[k] != ((const uint8_t *)f->data)[k])
                return 0;
        return 1;
    case 2:
        for (k = 0; k < f->len; k++)
            if (a[k] != ((const uint16_t *)f->data)[k])
                return 0;
        return 1;
    default:
        return f->len == 0 || memcmp(a, f->data, (size_t)f->len * sizeof(uint32_t)) == 0;
    }
}

/* The slot holding the feature's term, or the empty slot where it would go. */
static inline int64_t probe(const ts_vocab *v, const feature *f)
{
    int64_t mask = v->n_slots - 1, i = HOME(f->h, mask);
    uint64_t tag = TAG(f->h);
    for (;;) {
        const slot *at = &v->slots[i];
        if (at->key == 0)
            return i;
        if (TAG(at->key) == tag) {
            if (f->hi != 0) {
                if (at->hi == f->hi && at->lo == f->lo)
                    return i;
            } else if (at->hi == 0) {
                const term *t = &v->terms[(at->key & ID_MASK) - 1];
                if (t->hash == f->h && t->len == f->len && same(v->cps + t->start, f))
                    return i;
            }
        }
        i = (i + 1) & mask;
    }
}

/* A zeroed table of n slots, in huge pages where large (a lookup lands anywhere in it, and with
 * 4 KiB pages most lookups in a table of megabytes also miss the TLB). */
static void *new_table(int64_t n, size_t size)
{
    void *slots = ts_calloc((size_t)n, size);
    if (slots != NULL)
        huge_pages(slots, (size_t)n * size);
    return slots;
}

static int rehash(ts_vocab *v)
{
    int64_t n_slots = v->n_slots * 2, k, i, mask;
    slot *slots;
    if (v->n_slots > INT64_MAX / 2 / (int64_t)sizeof(slot) || n_slots > (INT64_C(1) << ID_BITS))
        return TS_ERR_NOMEM;
    slots = new_table(n_slots, sizeof(slot));
    if (slots == NULL)
        return TS_ERR_NOMEM;
    mask = n_slots - 1;
    for (k = 0; k < v->n_slots; k++) {
        const slot *old = &v->slots[k];
        if (old->key == 0)
            continue;
        i = HOME(old->key, mask);
        while (slots[i].key != 0)
            i = (i + 1) & mask;
        slots[i] = *old; /* with its packed form and what counting noted in it */
    }
    free(v->slots);
    v->slots = slots;
    v->n_slots = n_slots;
    return TS_OK;
}

/* The feature of a term given as code points and its hash, packed. */
static feature hashed_cps(const uint32_t *cps, int64_t len, uint64_t h)
{
    feature f;
    f.data = cps;
    f.len = len;
    f.kind = 4;
    f.lower = NULL;
    pack(&f);
    f.h = h;
    return f;
}

/* Write the feature's term into empty slot `at` of `slots` as term id. */
static int put_slot(ts_vocab *v, int64_t at, const feature *f, int64_t id)
{
    v->slots[at].key = TAG(f->h) | (uint64_t)(id + 1);
    v->slots[at].lo = f->lo;
    v->slots[at].hi = f->hi;
    v->slots[at].seen = 0;
    v->n_in_slots++;
    return 2 * v->n_in_slots > v->n_slots ? rehash(v) : TS_OK;
}

/* The feature's term id, added (with the next id) if new, and the slot holding it. */
static inline int add(ts_vocab *v, const feature *f, int64_t *id, int64_t *where)
{
    int64_t at = probe(v, f), end = v->cps_len, k, n_slots = v->n_slots;
    int status;
    if (v->slots[at].key != 0) {
        *id = (int64_t)(v->slots[at].key & ID_MASK) - 1;
        *where = at;
        return TS_OK;
    }
    if (f->len < 0)
        return TS_ERR_ARG;
    if (f->len > INT64_MAX - end)
        return TS_ERR_NOMEM;
    if ((status = new_term(v, end, f->len, f->h, -1, -1)) != TS_OK ||
        (status = grow((void **)&v->cps, &v->cps_cap, end + f->len, sizeof(uint32_t))) != TS_OK)
        return status;
    for (k = 0; k < f->len; k++)
        v->cps[end + k] = feature_cp(f, k);
    v->cps_len = end + f->len;
    *id = v->n++;
    if ((status = put_slot(v, at, f, *id)) != TS_OK)
        return status;
    *where = v->n_slots == n_slots ? at : probe(v, f);
    return TS_OK;
}

/* ---- n-grams as pairs ---------------------------------------------------------------------- */

static inline uint64_t pair_key(int64_t prefix, int64_t last)
{
    return ((uint64_t)(prefix + 1) << ID_BITS) | (uint64_t)last; /* ids < 2^32 - 1: never 0 */
}

#define PAIR_HOME(h, mask) ((int64_t)((h) & (uint64_t)(mask)))
/* How far ahead of the n-gram being counted its table slot is asked for (see AHEAD). */
#define PAIRS_AHEAD 16

/* The slot holding the pair `key` (of hash h = mix(key)), or the empty slot where it would go. */
static inline int64_t pair_probe(const ts_vocab *v, uint64_t key, uint64_t h)
{
    int64_t mask = v->n_pair_slots - 1, i = PAIR_HOME(h, mask);
    while (v->pairs[i].key != 0 && v->pairs[i].key != key)
        i = (i + 1) & mask;
    return i;
}

/* The n-gram table made, or made twice as large. */
static int pair_rehash(ts_vocab *v)
{
    int64_t n_slots = v->pairs == NULL ? 1024 : 2 * v->n_pair_slots, k, i, mask = n_slots - 1;
    pair_slot *pairs;
    if (v->n_pair_slots > INT64_MAX / 2 / (int64_t)sizeof(pair_slot))
        return TS_ERR_NOMEM;
    pairs = new_table(n_slots, sizeof(pair_slot));
    if (pairs == NULL)
        return TS_ERR_NOMEM;
    for (k = 0; k < v->n_pair_slots; k++) {
        const pair_slot *old = &v->pairs[k];
        if (old->key == 0)
            continue;
        i = PAIR_HOME(mix(old->key), mask);
        while (pairs[i].key != 0)
            i = (i + 1) & mask;
        pairs[i] = *old;
    }
    free(v->pairs);
    v->pairs = pairs;
    v->n_pair_slots = n_slots;
    return TS_OK;
}

/* The id of the n-gram (prefix, last) of `len` code points, key `key` and hash h, added (with
 * the next id) if new, and the slot holding it. */
static inline int pair_add(ts_vocab *v, uint64_t key, uint64_t h, int64_t len, int64_t *id, int64_t *where)
{
    int64_t at;
    int status;
    if (v->pairs == NULL && (status = pair_rehash(v)) != TS_OK)
        return status;
    at = pair_probe(v, key, h);
    if (v->pairs[at].key != 0) {
        *id = v->pairs[at].id;
        *where = at;
        return TS_OK;
    }
    if ((status = new_term(v, -1, len, 0, (int64_t)(key >> ID_BITS) - 1, (int64_t)(key & ID_MASK))) != TS_OK)
        return status;
    v->pairs[at].key = key;
    v->pairs[at].id = (uint32_t)v->n; /* below ID_MASK */
    v->pairs[at].entry = UINT32_MAX;
    *id = v->n++;
    v->n_pairs++;
    v->unslotted++;
    *where = at;
    if (4 * v->n_pairs > 3 * v->n_pair_slots) { /* integer keys: a fuller table probes cheaply */
        if ((status = pair_rehash(v)) != TS_OK)
            return status;
        *where = pair_probe(v, key, h);
    }
    return TS_OK;
}

int ts_vocab_flatten(ts_vocab *v)
{
    int status;
    for (; v->unslotted > 0 && v->flat_to < v->n; v->flat_to++) {
        int64_t id = v->flat_to;
        feature f;
        if (v->parts[2 * id] < 0)
            continue;
        if ((status = materialize(v, id)) != TS_OK)
            return status;
        f = of_cps(v->cps + v->terms[id].start, v->terms[id].len);
        v->terms[id].hash = f.h;
        v->unslotted--;
        if ((status = put_slot(v, probe(v, &f), &f, id)) != TS_OK) {
            v->flat_to++;
            return status;
        }
    }
    return TS_OK;
}

/* Whether code points cps[0 .. len) hold a space: only such a term can be an n-gram. */
static int has_space(const uint32_t *cps, int64_t len)
{
    int64_t k;
    for (k = 0; k < len; k++)
        if (cps[k] == ' ')
            return 1;
    return 0;
}

int ts_vocab_find(ts_vocab *v, const uint32_t *cps, int64_t len, uint64_t h, int64_t *id)
{
    feature f = hashed_cps(cps, len, h);
    uint64_t key;
    int status;
    *id = -1;
    if (v->unslotted > 0 && has_space(cps, len) && (status = ts_vocab_flatten(v)) != TS_OK)
        return status;
    key = v->slots[probe(v, &f)].key;
    *id = key == 0 ? -1 : (int64_t)(key & ID_MASK) - 1;
    return TS_OK;
}

int ts_vocab_add(ts_vocab *v, const uint32_t *cps, int64_t len, uint64_t h, int64_t *id)
{
    feature f = hashed_cps(cps, len, h);
    int64_t where, n = v->n;
    int status, space = has_space(cps, len);
    if (space && v->unslotted > 0 && (status = ts_vocab_flatten(v)) != TS_OK)
        return status;
    status = add(v, &f, id, &where);
    if (space && v->n > n)
        v->whole = 0; /* an n-gram only in `slots`: counting by pairs would not find it */
    return status;
}

/* ---- words ------------------------------------------------------------------------------ */

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

/* Where a document's words (runs of two word characters or more) are, one after another.  A
 * one-byte document is read 64 bytes at a time: a bit per byte says whether it is a word
 * character, and the changes between the bits are where words start and end; only those are
 * visited (no branch per byte).  Wider documents are read code point by code point. */
typedef struct {
    const ts_text *doc;
    const uint8_t *narrow; /* the word bitmap for code points below 256, a byte each */
    int ascii;             /* 1 where its ASCII word characters are letters, digits and '_' */
    const uint8_t *word;   /* the whole bitmap */
    int64_t at;            /* wider documents: where to read on */
    int64_t base;          /* one-byte documents: the block's first byte */
    int64_t next;          /* the next block's */
    uint64_t bits;         /* the block's word bits */
    uint64_t edges;        /* its starts and ends not visited yet */
    uint64_t carry;        /* 1 when the byte before the next block is a word character */
    int64_t begin;         /* the open word's first byte, or -1 */
} words;

/* Whether the ASCII word characters of `narrow` are letters, digits and '_' (Python's), which the
 * 64-byte blocks can then tell with a few vector comparisons. */
static int ascii_words(const uint8_t *narrow)
{
    int c;
    for (c = 0; c < 128; c++)
        if (narrow[c] != ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'))
            return 0;
    return 1;
}

/* A bit per byte of the 64 bytes at p: whether it is a word character. */
static inline uint64_t block_bits(const uint8_t *p, const uint8_t *narrow, int ascii)
{
    uint64_t m = 0;
    int k;
#if defined(__SSE2__)
    if (ascii) { /* 16 bytes at a time; a block with a byte above 127 is read by the table */
        int high = 0;
        for (k = 0; k < 4; k++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
            __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20)); /* A-Z onto a-z */
            __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(folded, _mm_set1_epi8('a' - 1)),
                                           _mm_cmplt_epi8(folded, _mm_set1_epi8('z' + 1)));
            __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
                                          _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
            __m128i under = _mm_cmpeq_epi8(v, _mm_set1_epi8('_'));
            high |= _mm_movemask_epi8(v);
            m |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letter, digit), under)) << (16 * k);
        }
        if (!high)
            return m;
        m = 0;
    }
#else
    (void)ascii;
#endif
    for (k = 0; k < 64; k++)
        m |= (uint64_t)narrow[p[k]] << k;
    return m;
}

static void words_start(words *w, const ts_text *doc, const uint8_t *narrow, int ascii, const uint8_t *word)
{
    memset(w, 0, sizeof(*w));
    w->doc = doc;
    w->narrow = narrow;
    w->ascii = ascii;
    w->word = word;
    w->begin = -1;
}

/* The next word, [*begin, *end); 0 at the document's end. */
static inline int next_word(words *w, int64_t *begin, int64_t *end)
{
    const ts_text *doc = w->doc;
    int64_t len = doc->length;
    if (doc->kind != 1) {
        int64_t i = w->at, b;
        for (;;) {
            if (doc->kind == 2) {
                b = run_start_uint16_t(doc->data, i, len, w->word);
                i = b < len ? run_end_uint16_t(doc->data, b, len, w->word) : len;
            } else {
                b = run_start_uint32_t(doc->data, i, len, w->word);
                i = b < len ? run_end_uint32_t(doc->data, b, len, w->word) : len;
            }
            w->at = i;
            if (b >= len)
                return 0;
            if (i - b >= 2) {
                *begin = b;
                *end = i;
                return 1;
            }
        }
    }
    for (;;) {
        const uint8_t *p = (const uint8_t *)doc->data;
        int pos;
        while (w->edges == 0) {
            int64_t n, k;
            uint64_t m = 0;
            if (w->next >= len) { /* a word open at the end runs to it */
                *begin = w->begin;
                *end = len;
                w->begin = -1;
                return *begin >= 0 && *end - *begin >= 2;
            }
            n = len - w->next < 64 ? len - w->next : 64;
            if (n == 64)
                m = block_bits(p + w->next, w->narrow, w->ascii);
            else
                for (k = 0; k < n; k++)
                    m |= (uint64_t)w->narrow[p[w->next + k]] << k;
            w->edges = (m ^ ((m << 1) | w->carry)) & (n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1);
            w->bits = m;
            w->carry = m >> 63;
            w->base = w->next;
            w->next += n;
        }
        pos = lowest_bit(w->edges);
        w->edges &= w->edges - 1;
        if ((w->bits >> pos) & 1) {
            w->begin = w->base + pos;
        } else {
            *begin = w->begin;
            *end = w->base + pos;
            w->begin = -1;
            if (*end - *begin >= 2)
                return 1;
        }
    }
}

/* The word [begin, end) of a document as a feature read in place (a one-byte document's
 * lowercased through `lower` where it is not NULL): packed, not yet hashed. */
static inline void word_feature(const ts_text *doc, int64_t begin, int64_t end, const uint8_t *lower, feature *f)
{
    f->data = (const char *)doc->data + begin * doc->kind;
    f->len = end - begin;
    f->kind = doc->kind;
    f->lower = doc->kind == 1 ? lower : NULL;
    if (doc->kind == 1)
        pack_word_bytes(f, doc->length - begin);
    else
        pack(f);
}

/* ---- counting --------------------------------------------------------------------------- */

typedef struct {
    int64_t doc;   /* -1 for none */
    int64_t entry; /* offset in that document's row */
} seen;

/* A feature found and hashed, its slot asked for, to be counted a few features later: the
 * table's lookups are waits on memory (a large vocabulary does not fit in cache), and AHEAD of
 * them in flight at once take little more than one.  `own`: a joined n-gram, in its tokens'
 * width (a word is read in place). */
#define AHEAD 8
typedef struct {
    feature f;
    void *own;
    int64_t cap; /* bytes */
} pending;

/* What one thread keeps between documents: the document's tokens (code points, and where each
 * starts) for n-grams, the features waiting to be counted, for each term the document that last
 * counted it (a fixed vocabulary) and the counts of a row's new terms while it is sorted. */
typedef struct {
    void *cps;           /* the tokens, a byte each for a one-byte document (lowercased), else 4 */
    int64_t cps_cap;     /* bytes */
    int width;           /* 1 or 4 */
    int64_t *tok;        /* token k is code points tok[k] .. tok[k + 1] of cps */
    int64_t tok_cap;
    uint64_t *packed;    /* token k's packed form (lo, hi) and, where split() told stop words, its hash */
    int64_t packed_cap;
    seen *seen;          /* per term: the last document counting it, and its entry in that row */
    int64_t seen_cap;
    int64_t *fresh;      /* a row's new terms' counts, by id from the first new one */
    int64_t fresh_cap;
    uint8_t narrow[256]; /* the word bitmap for code points below 256, a byte each */
    int ascii;           /* whether its ASCII word characters are Python's (see ascii_words) */
    pending ring[AHEAD]; /* features found, waiting to be counted while their slots are fetched */
    int64_t pushed, counted;
    int64_t *gram[3];    /* n-grams by pairs: the tokens' ids, then each n's n-grams' by position */
    int64_t gram_cap[3];
    int64_t *record;     /* NULL, or where the ids of the features counted from record_base go */
    int64_t record_base;
    const ts_vocab *stop; /* the stop words the pending features are checked against, or NULL */
} scratch;

/* The rows being written: each document's terms (in the order first seen, then sorted) and
 * counts, both with room for `cap` entries. */
typedef struct {
    int64_t *ids;
    int64_t *counts;
    int64_t cap;
    int64_t nnz;
} rows;

static void scratch_start(scratch *s, const ts_count_options *opt)
{
    int k;
    memset(s, 0, sizeof(*s));
    for (k = 0; k < 256; k++)
        s->narrow[k] = (uint8_t)IS_WORD(opt->word, (uint32_t)k);
    s->ascii = ascii_words(s->narrow);
}

static void scratch_free(scratch *s)
{
    int k;
    free(s->cps);
    free(s->tok);
    free(s->packed);
    free(s->seen);
    free(s->fresh);
    for (k = 0; k < 3; k++)
        free(s->gram[k]);
    for (k = 0; k < AHEAD; k++)
        free(s->ring[k].own);
}

/* Room for `need` entries in both of the rows' arrays. */
static int reserve(rows *out, int64_t need)
{
    int64_t ids_cap = out->cap, counts_cap = out->cap;
    int status;
    if (need <= out->cap)
        return TS_OK;
    if ((status = grow((void **)&out->ids, &ids_cap, need, sizeof(int64_t))) != TS_OK ||
        (status = grow((void **)&out->counts, &counts_cap, need, sizeof(int64_t))) != TS_OK)
        return status;
    out->cap = ids_cap < counts_cap ? ids_cap : counts_cap;
    return TS_OK;
}

/* A new entry of term id in the rows, counted `count`. */
static inline int new_entry(rows *out, int64_t id, int64_t count)
{
    int status;
    if (out->nnz == out->cap && (status = reserve(out, out->nnz + 1)) != TS_OK)
        return status;
    out->ids[out->nnz] = id;
    out->counts[out->nnz] = count;
    out->nnz++;
    return TS_OK;
}

/* Bytes readable past a one-byte token's end: pack_word_bytes() reads 16 bytes at a time. */
#define SLACK 16

/* The document's tokens that are not stop words, into s->cps / s->tok (a one-byte document's as
 * bytes, lowercased as they are copied; another's as code points); their number. */
static int split(const ts_text *doc, const ts_count_options *opt, scratch *s, int64_t *n_tokens)
{
    int64_t n = 0, begin, end, at, k, len;
    words w;
    int status;
    s->width = doc->kind == 1 ? 1 : 4;
    if ((status = grow((void **)&s->tok, &s->tok_cap, 1, sizeof(int64_t))) != TS_OK)
        return status;
    s->tok[0] = 0;
    words_start(&w, doc, s->narrow, s->ascii, opt->word);
    while (next_word(&w, &begin, &end)) {
        feature f;
        at = s->tok[n];
        len = end - begin;
        if ((status = grow(&s->cps, &s->cps_cap, (at + len) * s->width + SLACK, 1)) != TS_OK)
            return status;
        if (s->width == 1) {
            uint8_t *to = (uint8_t *)s->cps + at;
            const uint8_t *from = (const uint8_t *)doc->data + begin;
            if (opt->lower != NULL)
                for (k = 0; k < len; k++)
                    to[k] = opt->lower[from[k]];
            else
                memcpy(to, from, (size_t)len);
            f.data = to;
            f.len = len;
            f.kind = 1;
            f.lower = NULL;
            pack_word_bytes(&f, s->cps_cap - at);
        } else {
            uint32_t *to = (uint32_t *)s->cps + at;
            for (k = 0; k < len; k++)
                to[k] = cp_at(doc->data, doc->kind, begin + k);
            f.data = to;
            f.len = len;
            f.kind = 4;
            f.lower = NULL;
            pack(&f);
        }
        if (opt->stop != NULL) {
            f.h = feature_hash(&f);
            if (opt->stop->slots[probe(opt->stop, &f)].key != 0)
                continue; /* a stop word: not kept, not in any n-gram */
        }
        if ((status = grow((void **)&s->tok, &s->tok_cap, n + 2, sizeof(int64_t))) != TS_OK ||
            (status = grow((void **)&s->packed, &s->packed_cap, 3 * (n + 1), sizeof(uint64_t))) != TS_OK)
            return status;
        s->packed[3 * n] = f.lo;
        s->packed[3 * n + 1] = f.hi;
        s->packed[3 * n + 2] = opt->stop != NULL ? f.h : 0;
        s->tok[++n] = at + len;
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

/* The n-gram of the n tokens from token i into `e` (a token is read in place; tokens are joined
 * by single spaces in e's own buffer, in their width), packed, not yet hashed. */
static int ngram_feature(scratch *s, int64_t i, int64_t n, pending *e)
{
    int64_t at = 0, k, len = s->tok[i + n] - s->tok[i] + n - 1, w = s->width;
    int status;
    e->f.kind = (int)w;
    e->f.lower = NULL;
    e->f.len = len;
    if (n == 1) {
        e->f.data = (const uint8_t *)s->cps + s->tok[i] * w;
    } else {
        if ((status = grow(&e->own, &e->cap, len * w + SLACK, 1)) != TS_OK)
            return status;
        for (k = i; k < i + n; k++) {
            int64_t m = s->tok[k + 1] - s->tok[k];
            if (k > i) {
                if (w == 1)
                    ((uint8_t *)e->own)[at++] = ' ';
                else
                    ((uint32_t *)e->own)[at++] = ' ';
            }
            memcpy((uint8_t *)e->own + at * w, (const uint8_t *)s->cps + s->tok[k] * w, (size_t)(m * w));
            at += m;
        }
        e->f.data = e->own;
    }
    if (w == 1) /* a token's bytes are followed by SLACK readable ones, or by the next token's */
        pack_word_bytes(&e->f, n == 1 ? s->cps_cap - s->tok[i] : e->cap);
    else
        pack(&e->f);
    return TS_OK;
}

/* Count feature f of document d into its row, which starts at row_start.  A vocabulary being
 * built notes each term's entry in its own slot; a fixed one, shared by the threads, is only
 * read, and the entries are noted per term in the thread's scratch. */
static inline int count_feature(ts_vocab *vocab, const ts_count_options *opt, scratch *s, int64_t d, const feature *f,
                         int64_t row_start, rows *out, int64_t *found)
{
    int64_t id, at;
    int status;
    if (!opt->fixed) {
        slot *noted;
        if ((status = add(vocab, f, &id, &at)) != TS_OK)
            return status;
        *found = id;
        noted = &vocab->slots[at];
        if (noted->seen > row_start) {
            out->counts[noted->seen - 1]++;
            return TS_OK;
        }
        noted->seen = out->nnz + 1;
        return new_entry(out, id, 1);
    }
    at = probe(vocab, f);
    *found = -1;
    if (vocab->slots[at].key == 0)
        return TS_OK;
    id = *found = (int64_t)(vocab->slots[at].key & ID_MASK) - 1;
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
    return new_entry(out, id, 1);
}

/* Ask for the cache line of the slot where a probe for hash h starts, while other work goes on. */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH_SLOT(v, h) __builtin_prefetch(&(v)->slots[HOME(h, (v)->n_slots - 1)])
#else
#define PREFETCH_SLOT(v, h) ((void)0)
#endif

/* Count the oldest pending feature of document d (unless it is a stop word). */
static inline int count_oldest(ts_vocab *vocab, const ts_count_options *opt, scratch *s, int64_t d, int64_t row_start,
                        rows *out)
{
    int64_t seq = s->counted++, id = -1;
    const feature *f = &s->ring[seq % AHEAD].f;
    int status;
    if (s->stop != NULL && s->stop->slots[probe(s->stop, f)].key != 0)
        return TS_OK;
    status = count_feature(vocab, opt, s, d, f, row_start, out, &id);
    if (s->record != NULL)
        s->record[seq - s->record_base] = id;
    return status;
}

/* The feature just written (and hashed) into the newest pending entry: its slot asked for, and
 * the oldest entry counted once AHEAD are waiting. */
static inline int push_hashed(ts_vocab *vocab, const ts_count_options *opt, scratch *s, int64_t d, int64_t row_start,
                              rows *out)
{
    PREFETCH_SLOT(vocab, s->ring[s->pushed % AHEAD].f.h);
    s->pushed++;
    return s->pushed - s->counted == AHEAD ? count_oldest(vocab, opt, s, d, row_start, out) : TS_OK;
}

/* push_hashed() of a feature not yet hashed. */
static inline int push(ts_vocab *vocab, const ts_count_options *opt, scratch *s, int64_t d, int64_t row_start, rows *out)
{
    feature *f = &s->ring[s->pushed % AHEAD].f;
    f->h = feature_hash(f);
    return push_hashed(vocab, opt, s, d, row_start, out);
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
 * into its row, which starts at row_start, AHEAD of them in flight; stop words are told as they
 * are counted. */
static int count_words(const ts_text *doc, ts_vocab *vocab, const ts_count_options *opt, scratch *s, int64_t d,
                       int64_t row_start, rows *out)
{
    int64_t begin, end;
    words w;
    int status;
    words_start(&w, doc, s->narrow, s->ascii, opt->word);
    s->stop = opt->stop;
    while (next_word(&w, &begin, &end)) {
        word_feature(doc, begin, end, opt->lower, &s->ring[s->pushed % AHEAD].f);
        if ((status = push(vocab, opt, s, d, row_start, out)) != TS_OK)
            return status;
    }
    return drain(vocab, opt, s, d, row_start, out);
}

/* Count the n-grams of document d's tokens in scikit-learn's order: the tokens (stop words
 * dropped as they are split, before they are joined), then each n from the smallest, by
 * position; AHEAD of them in flight. */
static int count_ngrams(const ts_text *doc, ts_vocab *vocab, const ts_count_options *opt, scratch *s, int64_t d,
                        int64_t row_start, rows *out)
{
    int64_t n, i, n_tokens;
    int status;
    if ((status = split(doc, opt, s, &n_tokens)) != TS_OK)
        return status;
    s->stop = NULL;
    for (n = opt->ngram_min; n <= opt->ngram_max && n <= n_tokens; n++) {
        for (i = 0; i + n <= n_tokens; i++) {
            if ((status = ngram_feature(s, i, n, &s->ring[s->pushed % AHEAD])) != TS_OK ||
                (status = push(vocab, opt, s, d, row_start, out)) != TS_OK)
                return status;
        }
    }
    return drain(vocab, opt, s, d, row_start, out);
}

/* Count the n-grams of document d as count_ngrams() does, into a vocabulary whose n-grams are
 * pairs (ngram_min 1): each token by its code points, then each n-gram of n >= 2 tokens as the
 * pair of its first n - 1 tokens' id and its last token's, AHEAD of them in flight. */
static int count_by_pairs(const ts_text *doc, ts_vocab *vocab, const ts_count_options *opt, scratch *s, int64_t d,
                          int64_t row_start, rows *out)
{
    int64_t n, i, m, n_tokens, id, at, k;
    const int64_t *tokens, *prefix;
    int64_t *grams;
    int status;
    if ((status = split(doc, opt, s, &n_tokens)) != TS_OK)
        return status;
    for (k = 0; k < 3; k++)
        if ((status = grow((void **)&s->gram[k], &s->gram_cap[k], n_tokens + 1, sizeof(int64_t))) != TS_OK)
            return status;
    s->stop = NULL;
    s->record = s->gram[0];
    s->record_base = s->pushed;
    for (i = 0; i < n_tokens; i++) { /* each token as split() packed (and hashed) it */
        feature *f = &s->ring[s->pushed % AHEAD].f;
        f->data = (const uint8_t *)s->cps + s->tok[i] * s->width;
        f->len = s->tok[i + 1] - s->tok[i];
        f->kind = s->width;
        f->lower = NULL;
        f->lo = s->packed[3 * i];
        f->hi = s->packed[3 * i + 1];
        f->h = opt->stop != NULL ? s->packed[3 * i + 2] : feature_hash(f);
        if ((status = push_hashed(vocab, opt, s, d, row_start, out)) != TS_OK)
            break;
    }
    if (status == TS_OK)
        status = drain(vocab, opt, s, d, row_start, out);
    s->record = NULL;
    if (status != TS_OK)
        return status;
    tokens = prefix = s->gram[0];
    for (n = 2; n <= opt->ngram_max && n <= n_tokens; n++) {
        m = n_tokens - n + 1;
        grams = s->gram[n % 2 == 0 ? 1 : 2];
        for (i = 0; i < m; i++) {
            uint64_t key = pair_key(prefix[i], tokens[i + n - 1]), h = mix(key);
            pair_slot *noted;
#if defined(__GNUC__) || defined(__clang__)
            if (i + PAIRS_AHEAD < m && vocab->pairs != NULL) {
                uint64_t ahead = mix(pair_key(prefix[i + PAIRS_AHEAD], tokens[i + PAIRS_AHEAD + n - 1]));
                __builtin_prefetch(&vocab->pairs[PAIR_HOME(ahead, vocab->n_pair_slots - 1)]);
            }
#endif
            if ((status = pair_add(vocab, key, h, s->tok[i + n] - s->tok[i] + n - 1, &id, &at)) != TS_OK)
                return status;
            grams[i] = id;
            noted = &vocab->pairs[at];
            if (noted->entry < out->nnz - row_start && out->ids[row_start + noted->entry] == id) {
                out->counts[row_start + noted->entry]++;
                continue;
            }
            noted->entry = (uint32_t)(out->nnz - row_start); /* a row's entries: distinct ids */
            if ((status = new_entry(out, id, 1)) != TS_OK)
                return status;
        }
        prefix = grams;
    }
    return TS_OK;
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

/* Sort keys ascending: a quicksort on the median of three whose partition has no branch on the
 * keys (a row's ids are in no order a branch predictor could learn), the smaller side
 * recursively; insertion below 24 keys. */
static void sort_keys(int64_t *a, int64_t n)
{
    int64_t i, j, key;
    while (n > 24) {
        int64_t mid = n / 2, x = a[0], y = a[mid], z = a[n - 1], pivot, below = 0, t;
        pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        if (pivot == a[0]) { /* the pivot to the end */
            a[0] = a[n - 1];
            a[n - 1] = pivot;
        } else if (pivot == a[mid]) {
            a[mid] = a[n - 1];
            a[n - 1] = pivot;
        }
        for (i = 0; i < n - 1; i++) {
            int64_t v = a[i];
            a[i] = a[below];
            a[below] = v;
            below += v < pivot;
        }
        t = a[below];
        a[below] = a[n - 1];
        a[n - 1] = t;
        if (below < n - 1 - below) {
            sort_keys(a, below);
            a += below + 1;
            n -= below + 1;
        } else {
            sort_keys(a + below + 1, n - below - 1);
            n = below;
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
/* Rows of at least this many entries are sorted by radix, fewer by comparisons. */
#define RADIX_MIN 48
#define RADIX_MAX_WIDTH 11

/* Sort n keys by their bits from lo up to lo + bits (distinct there: the bits above are 0), least
 * significant digit first, through tmp (n keys); returns the array the sorted keys lie in (a or
 * tmp).  Each digit about as wide as n, so that a pass costs about twice n. */
static int64_t *radix_keys(int64_t *a, int64_t *tmp, int64_t n, int lo, int bits)
{
    uint32_t count[1u << RADIX_MAX_WIDTH];
    int width = 4, passes, p;
    int64_t k;
    while (width < RADIX_MAX_WIDTH && (INT64_C(1) << (width + 1)) <= n)
        width++;
    passes = (bits + width - 1) / width;
    width = (bits + passes - 1) / passes; /* the same passes, narrower digits */
    for (p = 0; p < passes; p++) {
        int shift = lo + p * width;
        uint32_t mask = (1u << width) - 1, total = 0, c;
        int64_t *t;
        memset(count, 0, ((size_t)1 << width) * sizeof(uint32_t));
        for (k = 0; k < n; k++)
            count[(a[k] >> shift) & mask]++;
        for (c = 0; c <= mask; c++) {
            uint32_t here = count[c];
            count[c] = total;
            total += here;
        }
        for (k = 0; k < n; k++)
            tmp[count[(a[k] >> shift) & mask]++] = a[k];
        t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

/* The number of bits below x's highest set bit, plus one (0 for 0). */
static int bit_length(uint64_t x)
{
    int b = 0;
    while (x) {
        b++;
        x >>= 1;
    }
    return b;
}

/* Sort a row's entries (distinct ids) by id; counts follow.  Where every id and count fits, each
 * entry is sorted as one key (id above the count's COUNT_BITS bits, offset by half their range
 * where a count is negative), written over its id: half the data moved. */
static void sort_row(int64_t *ids, int64_t *counts, int64_t n)
{
    int64_t k, top_id = 0, top_count = 0, low_id = 0, low_count = 0, offset;
    for (k = 0; k < n; k++) {
        top_id = ids[k] > top_id ? ids[k] : top_id;
        low_id = ids[k] < low_id ? ids[k] : low_id;
        top_count = counts[k] > top_count ? counts[k] : top_count;
        low_count = counts[k] < low_count ? counts[k] : low_count;
    }
    offset = low_count < 0 ? INT64_C(1) << (COUNT_BITS - 1) : 0; /* hashed columns' values may be negative */
    if (low_id < 0 || top_id >= (INT64_C(1) << (62 - COUNT_BITS)) || low_count < -offset ||
        top_count >= (INT64_C(1) << COUNT_BITS) - offset) {
        sort_pairs(ids, counts, n);
        return;
    }
    for (k = 0; k < n; k++)
        ids[k] = (ids[k] << COUNT_BITS) | (counts[k] + offset);
    if (n >= RADIX_MIN) { /* counts, now in the keys, are the radix sort's room */
        const int64_t *keys = radix_keys(ids, counts, n, COUNT_BITS, bit_length((uint64_t)top_id));
        for (k = 0; k < n; k++) { /* keys may be counts: each read before it is written */
            int64_t key = keys[k];
            counts[k] = (key & ((INT64_C(1) << COUNT_BITS) - 1)) - offset;
            ids[k] = key >> COUNT_BITS;
        }
        return;
    }
    sort_keys(ids, n);
    for (k = 0; k < n; k++) {
        counts[k] = (ids[k] & ((INT64_C(1) << COUNT_BITS) - 1)) - offset;
        ids[k] = ids[k] >> COUNT_BITS;
    }
}

/* Sort a row counted while the vocabulary was built, whose new terms are first_new, first_new + 1,
 * ... in the order first seen (and so above every other id of the row): only the others are
 * sorted, and the new ones follow them. */
static int sort_new_row(int64_t *ids, int64_t *counts, int64_t n, int64_t first_new, scratch *s)
{
    int64_t k, m = 0, fresh = 0;
    int status;
    for (k = 0; k < n; k++)
        fresh += ids[k] >= first_new;
    if (fresh == 0) {
        sort_row(ids, counts, n);
        return TS_OK;
    }
    if ((status = grow((void **)&s->fresh, &s->fresh_cap, fresh, sizeof(int64_t))) != TS_OK)
        return status;
    for (k = 0; k < n; k++) {
        if (ids[k] >= first_new) {
            s->fresh[ids[k] - first_new] = counts[k];
        } else {
            ids[m] = ids[k];
            counts[m++] = counts[k];
        }
    }
    sort_row(ids, counts, m);
    for (k = 0; k < fresh; k++) {
        ids[m + k] = first_new + k;
        counts[m + k] = s->fresh[k];
    }
    return TS_OK;
}

int ts_count_terms(const ts_text *docs, int64_t n_docs, ts_vocab *vocab, const ts_count_options *opt,
                   int64_t *indptr, int64_t **ids, int64_t **counts, int64_t *nnz)
{
    scratch s;
    rows out;
    int64_t d, k;
    int status = TS_OK, by_pairs;
    *ids = NULL;
    *counts = NULL;
    *nnz = 0;
    if (docs == NULL || vocab == NULL || opt == NULL || opt->word == NULL || indptr == NULL || n_docs < 0 ||
        opt->ngram_min < 1 || opt->ngram_max < opt->ngram_min)
        return TS_ERR_ARG;
    if (opt->stop != NULL && opt->stop->unslotted > 0)
        return TS_ERR_ARG;
    by_pairs = !opt->fixed && opt->ngram_min == 1 && opt->ngram_max >= 2 && vocab->whole;
    if (!by_pairs && vocab->unslotted > 0) { /* counted by code points: every term in `slots` */
        if (opt->fixed)
            return TS_ERR_ARG; /* shared by threads: the caller flattens it first */
        if ((status = ts_vocab_flatten(vocab)) != TS_OK)
            return status;
    }
    if (!by_pairs && !opt->fixed && opt->ngram_max >= 2)
        vocab->whole = 0;
    scratch_start(&s, opt);
    memset(&out, 0, sizeof(out));
    if (!opt->fixed) { /* entries noted by an earlier call are of other rows */
        for (k = 0; k < vocab->n_slots; k++)
            vocab->slots[k].seen = 0;
    }
    indptr[0] = 0;
    for (d = 0; d < n_docs; d++) {
        int64_t row_start = out.nnz, first_new = vocab->n;
        if ((status = check_doc(docs, d, opt)) != TS_OK)
            goto done;
        if (opt->ngram_max == 1)
            status = count_words(&docs[d], vocab, opt, &s, d, row_start, &out);
        else if (by_pairs)
            status = count_by_pairs(&docs[d], vocab, opt, &s, d, row_start, &out);
        else
            status = count_ngrams(&docs[d], vocab, opt, &s, d, row_start, &out);
        if (status != TS_OK)
            goto done;
        if (!opt->fixed)
            status = sort_new_row(out.ids + row_start, out.counts + row_start, out.nnz - row_start, first_new, &s);
        else
            sort_row(out.ids + row_start, out.counts + row_start, out.nnz - row_start);
        if (status != TS_OK)
            goto done;
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

int ts_vocab_merge(ts_vocab *into, ts_vocab *part, int64_t *map)
{
    int64_t t, where;
    int status;
    int by_pairs = into->whole && part->whole;
    if (!by_pairs && (status = ts_vocab_flatten(into)) != TS_OK)
        return status;
    for (t = 0; t < part->n; t++) {
        const term *p = &part->terms[t];
        int64_t prefix = part->parts[2 * t], last = part->parts[2 * t + 1];
#if defined(__GNUC__) || defined(__clang__)
        if (t + PAIRS_AHEAD < part->n) { /* the slot a later term probes first, asked for now */
            const int64_t a = t + PAIRS_AHEAD, ap = part->parts[2 * a], al = part->parts[2 * a + 1];
            if (by_pairs && ap >= 0) {
                if (ap < t && al < t && into->pairs != NULL)
                    __builtin_prefetch(&into->pairs[PAIR_HOME(mix(pair_key(map[ap], map[al])), into->n_pair_slots - 1)]);
            } else if (ap < 0 && into->slots != NULL) {
                PREFETCH_SLOT(into, of_cps(part->cps + part->terms[a].start, part->terms[a].len).h);
            }
        }
#endif
        if (by_pairs && prefix >= 0) { /* its pair's terms were merged before it */
            uint64_t key = pair_key(map[prefix], map[last]);
            status = pair_add(into, key, mix(key), p->len, &map[t], &where);
        } else if ((status = materialize(part, t)) == TS_OK) {
            status = ts_vocab_add(into, part->cps + p->start, p->len, of_cps(part->cps + p->start, p->len).h,
                                  &map[t]);
        }
        if (status != TS_OK)
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

/* A position to sort, with its term's first code points packed into two keys so that most
 * comparisons are told by the keys alone, without reading the terms: where every term sorted is
 * Latin-1, eight code points a key (a byte each, the first highest), else three (21 bits each);
 * 0 past the term's end.  A term then sorts before any other whose keys are larger, and terms
 * with equal keys are told by their code points, then by position (a stable order). */
typedef struct {
    uint64_t key[2];
    int64_t pos;
} sort_item;

static uint64_t sort_key(const ts_vocab *v, int64_t id, int64_t from, int narrow)
{
    const term *t = &v->terms[id];
    int64_t per = narrow ? 8 : 3, k;
    int shift = narrow ? 8 : 21;
    uint64_t key = 0;
    for (k = from; k < from + per; k++)
        key = (key << shift) | (k < t->len ? (uint64_t)(v->cps[t->start + k] & 0x1FFFFF) : 0);
    return key;
}

static int item_less(const ts_vocab *v, const int64_t *ids, const sort_item *x, const sort_item *y)
{
    if (x->key[0] != y->key[0])
        return x->key[0] < y->key[0];
    if (x->key[1] != y->key[1])
        return x->key[1] < y->key[1];
    if (ids != NULL ? ids[x->pos] != ids[y->pos] : x->pos != y->pos) {
        int64_t a = ids != NULL ? ids[x->pos] : x->pos, b = ids != NULL ? ids[y->pos] : y->pos;
        if (term_less(v, a, b))
            return 1;
        if (term_less(v, b, a))
            return 0;
    }
    return x->pos < y->pos;
}

/* Sort items[0 .. n) by item_less: insertion for a few, else a bottom-up merge through tmp. */
static void merge_sort(const ts_vocab *v, const int64_t *ids, sort_item *items, sort_item *tmp, int64_t n)
{
    int64_t width, i, j;
    sort_item *from = items, *to = tmp;
    if (n <= 16) {
        for (i = 1; i < n; i++) {
            sort_item x = items[i];
            for (j = i; j > 0 && item_less(v, ids, &x, &items[j - 1]); j--)
                items[j] = items[j - 1];
            items[j] = x;
        }
        return;
    }
    for (width = 1; width < n; width *= 2) {
        for (i = 0; i < n; i += 2 * width) {
            int64_t mid = i + width < n ? i + width : n, end = i + 2 * width < n ? i + 2 * width : n;
            int64_t a = i, b = mid, k = i;
            while (a < mid && b < end)
                to[k++] = item_less(v, ids, &from[b], &from[a]) ? from[b++] : from[a++];
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
    if (from != items)
        memcpy(items, from, (size_t)n * sizeof(sort_item));
}

/* Sort items by their first key, a byte at a time from the lowest (stable: positions stay in
 * order within a key), skipping the bytes every key shares; the result in *items. */
static void radix_sort(sort_item **items, sort_item **tmp, int64_t n)
{
    int64_t counts[8][256], i;
    int byte, b;
    memset(counts, 0, sizeof(counts));
    for (i = 0; i < n; i++)
        for (byte = 0; byte < 8; byte++)
            counts[byte][((*items)[i].key[0] >> (8 * byte)) & 0xFF]++;
    for (byte = 0; byte < 8; byte++) {
        int64_t at = 0, start[256];
        sort_item *from = *items, *to = *tmp;
        if (counts[byte][(from[0].key[0] >> (8 * byte)) & 0xFF] == n)
            continue;
        for (b = 0; b < 256; b++) {
            start[b] = at;
            at += counts[byte][b];
        }
        for (i = 0; i < n; i++)
            to[start[(from[i].key[0] >> (8 * byte)) & 0xFF]++] = from[i];
        *items = to;
        *tmp = from;
    }
}

int ts_vocab_order(ts_vocab *v, const int64_t *ids, int64_t n, int64_t *order)
{
    int64_t i, j, k;
    int narrow = 1, status;
    sort_item *items, *tmp, *alloc_items, *alloc_tmp;
    if (ids == NULL && n > v->n)
        return TS_ERR_INDEX;
    for (i = 0; ids != NULL && i < n; i++)
        if (ids[i] < 0 || ids[i] >= v->n)
            return TS_ERR_INDEX;
    for (i = 0; i < n; i++) /* the terms' code points, read while sorting */
        if ((status = materialize(v, ids != NULL ? ids[i] : i)) != TS_OK)
            return status;
    alloc_items = items = ts_calloc((size_t)(n > 0 ? n : 1), sizeof(sort_item));
    alloc_tmp = tmp = ts_calloc((size_t)(n > 0 ? n : 1), sizeof(sort_item));
    if (items == NULL || tmp == NULL) {
        free(items);
        free(tmp);
        return TS_ERR_NOMEM;
    }
    for (i = 0; i < n && narrow; i++) {
        const term *t = &v->terms[ids != NULL ? ids[i] : i];
        for (k = 0; k < t->len && k < 16; k++)
            if (v->cps[t->start + k] > 255)
                narrow = 0;
    }
    for (i = 0; i < n; i++) {
        int64_t id = ids != NULL ? ids[i] : i;
        items[i].pos = i;
        items[i].key[0] = sort_key(v, id, 0, narrow);
        items[i].key[1] = sort_key(v, id, narrow ? 8 : 3, narrow);
    }
    if (n > 0)
        radix_sort(&items, &tmp, n);
    for (i = 0; i < n; i = j) { /* each run of one first key, by the rest */
        for (j = i + 1; j < n && items[j].key[0] == items[i].key[0]; j++)
            ;
        if (j - i > 1)
            merge_sort(v, ids, items + i, tmp + i, j - i);
    }
    for (i = 0; i < n; i++)
        order[i] = items[i].pos;
    free(alloc_items);
    free(alloc_tmp);
    return TS_OK;
}

/* ---- hashed features (scikit-learn's HashingVectorizer) ------------------------------------ */

static inline uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

/* MurmurHash3_x86_32 (Austin Appleby's, public domain), as scikit-learn's murmurhash3_bytes_s32
 * computes it (read as a signed 32-bit value by the caller): a step per block of four bytes (k
 * the block read little-endian), the last one to three bytes, and the finish. */
static inline uint32_t murmur_block(uint32_t h, uint32_t k)
{
    k *= 0xcc9e2d51u;
    k = rotl32(k, 15);
    k *= 0x1b873593u;
    h ^= k;
    h = rotl32(h, 13);
    return h * 5 + 0xe6546b64u;
}

static inline uint32_t murmur_tail(uint32_t h, uint32_t k)
{
    k *= 0xcc9e2d51u;
    k = rotl32(k, 15);
    k *= 0x1b873593u;
    return h ^ k;
}

static inline uint32_t murmur_finish(uint32_t h, int64_t n)
{
    h ^= (uint32_t)n;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/* Of n bytes, seed 0. */
static uint32_t murmur3_32(const uint8_t *data, int64_t n)
{
    uint32_t h = 0;
    int64_t i, blocks = n / 4;
    for (i = 0; i < blocks; i++) {
        const uint8_t *b = data + 4 * i;
        h = murmur_block(h, (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
    }
    switch (n & 3) {
    case 3:
        h = murmur_tail(h, (uint32_t)data[4 * blocks] | (uint32_t)data[4 * blocks + 1] << 8 |
                               (uint32_t)data[4 * blocks + 2] << 16);
        break;
    case 2:
        h = murmur_tail(h, (uint32_t)data[4 * blocks] | (uint32_t)data[4 * blocks + 1] << 8);
        break;
    case 1:
        h = murmur_tail(h, (uint32_t)data[4 * blocks]);
        break;
    }
    return murmur_finish(h, n);
}

/* Of a packed ASCII feature's n bytes (byte k of the feature is byte k % 8 of lo, or of hi from
 * the eighth), read from the two words rather than from memory. */
static inline uint32_t murmur_packed(uint64_t lo, uint64_t hi, int64_t n)
{
    uint32_t h = 0;
    int64_t i, rest = n & 3, at = n - rest;
    for (i = 0; i < n / 4; i++)
        h = murmur_block(h, (uint32_t)(i < 2 ? lo >> (32 * i) : hi >> (32 * (i - 2))));
    if (rest) /* bytes at .. at + rest - 1, all in one word (at is a multiple of 4) */
        h = murmur_tail(h, (uint32_t)((at < 8 ? lo >> (8 * at) : hi >> (8 * (at - 8))) &
                                      ((UINT64_C(1) << (8 * rest)) - 1)));
    return murmur_finish(h, n);
}

/* The feature's UTF-8 bytes: in place where it is a one-byte document's ASCII word, else
 * written into *buf; TS_ERR_ARG for a lone surrogate (which Python's str.encode("utf-8")
 * refuses). */
static int utf8(const feature *f, uint8_t **buf, int64_t *cap, const uint8_t **bytes, int64_t *n)
{
    int64_t i, at = 0;
    if (f->kind == 1 && f->lower == NULL) {
        const uint8_t *p = (const uint8_t *)f->data;
        uint8_t high = 0;
        for (i = 0; i < f->len; i++)
            high |= p[i];
        if (high < 0x80) {
            *bytes = p;
            *n = f->len;
            return TS_OK;
        }
    }
    if (f->len > (INT64_MAX - 1) / 4 || grow((void **)buf, cap, 4 * f->len + 1, 1) != TS_OK)
        return TS_ERR_NOMEM;
    for (i = 0; i < f->len; i++) {
        uint32_t c = feature_cp(f, i);
        uint8_t *p = *buf + at;
        if (c < 0x80) {
            p[0] = (uint8_t)c;
            at += 1;
        } else if (c < 0x800) {
            p[0] = (uint8_t)(0xC0 | (c >> 6));
            p[1] = (uint8_t)(0x80 | (c & 0x3F));
            at += 2;
        } else if (c >= 0xD800 && c <= 0xDFFF) {
            return TS_ERR_ARG;
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
    *bytes = *buf;
    *n = at;
    return TS_OK;
}

/* The columns of the row being hashed: an open-addressed table from a column to its entry in
 * the row, at most half full.  A slot is valid where its stamp is the current one, so that no
 * table is cleared: each document (and each widening) takes a new stamp.  Each document starts
 * on the first 256 slots of the buffer, which stay in cache whatever an earlier long document
 * widened it to. */
typedef struct {
    int64_t stamp;
    int64_t entry;
} column_slot;

typedef struct {
    column_slot *slots;
    int64_t allocated; /* slots in the buffer */
    int shift;         /* 64 - log2(the slots in use) */
    int64_t used;
    int64_t stamp;
    uint8_t *bytes;    /* a feature's UTF-8 bytes */
    int64_t bytes_cap;
} hashed_row;

#define FIRST_SHIFT (64 - 8)

static inline int64_t column_home(const hashed_row *r, int64_t col)
{
    return (int64_t)(((uint64_t)col * 0x9e3779b97f4a7c15ULL) >> r->shift);
}

/* The table in use twice the size, holding the row's entries from row_start. */
static int widen(hashed_row *r, const rows *out, int64_t row_start)
{
    int64_t n_slots, mask, k;
    if (r->shift <= 8)
        return TS_ERR_NOMEM;
    n_slots = (int64_t)1 << (64 - r->shift + 1);
    if (n_slots > r->allocated) {
        column_slot *slots = ts_calloc((size_t)n_slots, sizeof(column_slot));
        if (slots == NULL)
            return TS_ERR_NOMEM;
        free(r->slots);
        r->slots = slots;
        r->allocated = n_slots;
    }
    r->shift--;
    r->stamp++;
    mask = n_slots - 1;
    for (k = row_start; k < out->nnz; k++) {
        int64_t i = column_home(r, out->ids[k]);
        while (r->slots[i].stamp == r->stamp)
            i = (i + 1) & mask;
        r->slots[i].stamp = r->stamp;
        r->slots[i].entry = k;
    }
    return TS_OK;
}

/* Add `value` to column col's entry of the row that starts at row_start, a new entry where the
 * row has none. */
static inline int add_hashed(hashed_row *r, rows *out, int64_t row_start, int64_t col, int64_t value)
{
    int64_t mask = ((int64_t)1 << (64 - r->shift)) - 1, i = column_home(r, col);
    int status;
    for (;; i = (i + 1) & mask) {
        column_slot *at = &r->slots[i];
        if (at->stamp != r->stamp) {
            at->stamp = r->stamp;
            at->entry = out->nnz;
            if ((status = new_entry(out, col, value)) != TS_OK)
                return status;
            return 2 * ++r->used > mask + 1 ? widen(r, out, row_start) : TS_OK;
        }
        if (out->ids[at->entry] == col) {
            out->counts[at->entry] += value;
            return TS_OK;
        }
    }
}

/* Hash feature f into its column of the row (scikit-learn's column: abs(h) mod n_features,
 * abs(-2^31) read as 2^31 - 1 - (n_features - 1); -1 where alternate_sign and h < 0). */
static inline int hash_feature(hashed_row *r, rows *out, int64_t row_start, const feature *f, int64_t n_features,
                        int alternate_sign)
{
    const uint8_t *bytes;
    int64_t n_bytes, col;
    int32_t h;
    int status;
    if (f->hi != 0 && ((f->lo | f->hi) & UINT64_C(0x8080808080808080)) == 0) { /* packed ASCII */
        h = (int32_t)murmur_packed(f->lo, f->hi, f->len);
    } else {
        if ((status = utf8(f, &r->bytes, &r->bytes_cap, &bytes, &n_bytes)) != TS_OK)
            return status;
        h = (int32_t)murmur3_32(bytes, n_bytes);
    }
    if (h == INT32_MIN)
        col = (INT32_MAX - (n_features - 1)) % n_features;
    else if ((n_features & (n_features - 1)) == 0) /* a power of two (the default): no division */
        col = (int64_t)(h < 0 ? -h : h) & (n_features - 1);
    else
        col = (int64_t)(h < 0 ? -h : h) % n_features;
    return add_hashed(r, out, row_start, col, alternate_sign && h < 0 ? -1 : 1);
}

/* Hash a document's features into its row: words as they are found (stop words told as they
 * are hashed) where ngram_range is (1, 1), else its tokens split and joined into n-grams. */
static int hash_doc(const ts_text *doc, const ts_count_options *opt, scratch *s, hashed_row *r, rows *out,
                    int64_t n_features, int alternate_sign)
{
    int64_t row_start = out->nnz, n, i, n_tokens, begin, end;
    int status;
    r->shift = FIRST_SHIFT;
    r->used = 0;
    r->stamp++;
    if (opt->ngram_max == 1) {
        words w;
        feature f;
        words_start(&w, doc, s->narrow, s->ascii, opt->word);
        while (next_word(&w, &begin, &end)) {
            word_feature(doc, begin, end, opt->lower, &f);
            if (opt->stop != NULL) {
                f.h = feature_hash(&f);
                if (opt->stop->slots[probe(opt->stop, &f)].key != 0)
                    continue;
            }
            if ((status = hash_feature(r, out, row_start, &f, n_features, alternate_sign)) != TS_OK)
                return status;
        }
        return TS_OK;
    }
    if ((status = split(doc, opt, s, &n_tokens)) != TS_OK)
        return status;
    for (n = opt->ngram_min; n <= opt->ngram_max && n <= n_tokens; n++)
        for (i = 0; i + n <= n_tokens; i++)
            if ((status = ngram_feature(s, i, n, &s->ring[0])) != TS_OK ||
                (status = hash_feature(r, out, row_start, &s->ring[0].f, n_features, alternate_sign)) != TS_OK)
                return status;
    return TS_OK;
}

int ts_hash_terms(const ts_text *docs, int64_t n_docs, const ts_count_options *opt, int64_t n_features,
                  int alternate_sign, int64_t *indptr, int64_t **indices, int64_t **values, int64_t *nnz)
{
    scratch s;
    rows out;
    hashed_row r;
    int64_t d;
    int status = TS_OK;
    *indices = NULL;
    *values = NULL;
    *nnz = 0;
    if (docs == NULL || opt == NULL || opt->word == NULL || indptr == NULL || n_docs < 0 || n_features < 1 ||
        n_features > INT32_MAX || opt->ngram_min < 1 || opt->ngram_max < opt->ngram_min)
        return TS_ERR_ARG;
    scratch_start(&s, opt);
    memset(&out, 0, sizeof(out));
    memset(&r, 0, sizeof(r));
    r.allocated = (int64_t)1 << (64 - FIRST_SHIFT);
    r.slots = ts_calloc((size_t)r.allocated, sizeof(column_slot));
    if (r.slots == NULL) {
        status = TS_ERR_NOMEM;
        goto done;
    }
    indptr[0] = 0;
    for (d = 0; d < n_docs; d++) {
        int64_t row_start = out.nnz;
        if ((status = check_doc(docs, d, opt)) != TS_OK ||
            (status = hash_doc(&docs[d], opt, &s, &r, &out, n_features, alternate_sign)) != TS_OK)
            goto done;
        /* sorted by column; a column whose values summed to 0 stays an entry, as scipy's
         * sum_duplicates leaves it */
        sort_row(out.ids + row_start, out.counts + row_start, out.nnz - row_start);
        indptr[d + 1] = out.nnz;
    }
done:
    scratch_free(&s);
    free(r.slots);
    free(r.bytes);
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
