/* MSTParser 0.5's feature templates, in C for speed: maltpy/graph/features.py says what they are,
   with the paper's sections; this file (a unit of maltpy.graph._mst) enumerates them.

   A sentence comes as arrays over its N = n + 1 tokens (token 0 the root): each token's FORM,
   LEMMA, CPOSTAG and POSTAG as 64-bit hashes of their strings ("atoms", features.atom), its FEATS
   as a ragged array of atoms (fptr[i]..fptr[i + 1] in fval), and the atoms of MSTParser's fixed
   strings (STR, END, MID, STPOS, STWRD). A feature is MSTParser's feature string, which this file
   never builds: its key is a 64-bit hash of the string's template (a number of this file) and its
   parts (atoms, and small numbers for direction, distance and the like), so that two features
   have the same key exactly when MSTParser's strings are the same (up to a hash collision, about
   one in 2^64 / (features^2)). Keys equal to 0 are taken as 1 (0 marks an empty slot).

   The alphabet is an open-addressing hash table (key and number side by side) from key to feature number, built
   here from the gold trees' keys; a key it does not hold is dropped, as MSTParser drops the strings
   its frozen alphabet does not hold. A feature emitted twice for one part counts twice. */

#include "_mst.h"

/* --- keys ------------------------------------------------------------------------------------------ */

static inline u64 mix(u64 h, u64 x)
{
    h ^= x;
    h *= 0x9E3779B97F4A7C15ULL;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 32;
    return h;
}

static inline u64 start(u64 code) { return mix(0x632BE59BD9B4E019ULL, code); }
static inline u64 fin(u64 h) { return h ? h : 1; }

/* The templates' numbers (any distinct numbers would do; they are part of every key, so a model
   archive records TEMPLATES_VERSION and is refused by another). */
enum {
    T_PC = 1,           /* in-between tag, + type (0 POSTAG, 1 CPOSTAG) */
    T_PT = 10,          /* the surrounding-tag rows, 10 + 2 * row + type */
    T_TWO = 100,        /* word/tag pairs: HC, HCA, HCC, HCD = 100..103 */
    T_FF = 110,         /* morphology: FF, LF = 110, 111 (with the FEATS positions i, j) */
    T_NTS1 = 200, T_ANTS1, T_NTH, T_NTI, T_NTIA, T_NTIB, T_NTIC, T_NTJ,
    T_TRIP = 300, T_ATRIP,
    T_CH_PAIR = 310, T_CH_WPAIR, T_CH_WPAIRA, T_CH_WPAIRB, T_ACH_PAIR, T_ACH_WPAIR, T_ACH_WPAIRA,
    T_ACH_WPAIRB, T_SIB_DIST, T_ASIB_DIST, T_CH_PAIR_DIST, T_ACH_PAIR_DIST,
};

static inline u64 slot(const Sink *k, u64 key) { return (key * 0xD6E8FEB86659FD93ULL) >> 7 & k->mask; }

static inline int32_t lookup(const Sink *k, u64 key)
{
    u64 i = slot(k, key);
    for (;;) {
        u64 t = k->table[2 * i];
        if (t == key)
            return (int32_t)k->table[2 * i + 1];
        if (t == 0)
            return -1;
        i = (i + 1) & k->mask;
    }
}

static int grow(Sink *k)
{
    Py_ssize_t cap = k->cap ? 2 * k->cap : 4096;
    if (k->mode == KEYS) {
        u64 *p = realloc(k->keys, cap * sizeof(u64));
        if (!p)
            return -1;
        k->keys = p;
    } else {
        int32_t *p = realloc(k->nums, cap * sizeof(int32_t));
        if (!p)
            return -1;
        k->nums = p;
    }
    k->cap = cap;
    return 0;
}

/* Look up the keys waiting: their slots are fetched from memory together first (the table is far
   bigger than any cache, so each lookup would otherwise wait for memory on its own). */
void mst_flush(Sink *k)
{
    for (int i = 0; i < k->waiting; i++)
        __builtin_prefetch(&k->table[2 * slot(k, k->wait[i])]);
    for (int i = 0; i < k->waiting; i++) {
        int32_t f = lookup(k, k->wait[i]);
        if (f < 0)
            continue;
        if (k->mode == SCORE) {
            k->acc += k->w[f];
            continue;
        }
        if (k->len == k->cap && grow(k) < 0) {
            k->oom = 1;
            break;
        }
        k->nums[k->len++] = f;
    }
    k->waiting = 0;
}

static inline void emit(Sink *k, u64 key)
{
    key = fin(key);
    if (k->mode == KEYS) {
        if (k->len == k->cap && grow(k) < 0) {
            k->oom = 1;
            return;
        }
        k->keys[k->len++] = key;
        return;
    }
    k->wait[k->waiting++] = key;
    if (k->waiting == WAITING)
        mst_flush(k);
}

#define K1(c, a) mix(start(c), a)
#define K2(c, a, b) mix(K1(c, a), b)
#define K3(c, a, b, d) mix(K2(c, a, b), d)
#define K4(c, a, b, d, e) mix(K3(c, a, b, d), e)
#define K5(c, a, b, d, e, f) mix(K4(c, a, b, d, e), f)

/* MSTParser's distance bucket: 1..5 -> 0..4, 6..10 -> 5, more -> 10 */
static inline u64 bucket(Py_ssize_t dist) { return dist <= 5 ? (u64)(dist - 1) : dist <= 10 ? 5 : 10; }

/* The direction-and-distance suffix "&RA&3" as a number (never 0) */
static inline u64 suffix(int attR, Py_ssize_t dist) { return 0x100 + 0x20 * (u64)attR + bucket(dist); }

/* a key plain, and again with the suffix d */
static inline void both(Sink *k, u64 key, u64 d)
{
    emit(k, key);
    emit(k, mix(key, d));
}

/* --- first order: an arc's features (features.py, "arc features") ------------------------------------ */

static void linear(Sink *k, const Sent *s, const u64 *tags, int type, Py_ssize_t first, Py_ssize_t second, u64 d)
{
    u64 A = tags[first], B = tags[second];
    u64 L1 = first > 0 ? tags[first - 1] : s->STR;
    u64 R1 = second < s->N - 1 ? tags[second + 1] : s->END;
    u64 A1 = first < second - 1 ? tags[first + 1] : s->MID;
    u64 B1 = second > first + 1 ? tags[second - 1] : s->MID;
    u64 pc = start(T_PC + type);
    for (Py_ssize_t i = first + 1; i < second; i++)
        both(k, mix(mix(mix(pc, A), B), tags[i]), d);
#define ROW(r) (T_PT + 2 * (r) + type)
    emit(k, mix(K3(ROW(1), L1, A, B), d));
    emit(k, K3(ROW(2), L1, A, B));
    both(k, K4(ROW(3), L1, A, B, R1), d);
    both(k, K3(ROW(4), L1, B, R1), d);
    both(k, K3(ROW(5), L1, A, R1), d);
    both(k, K3(ROW(6), A, B, R1), d);
    emit(k, mix(K3(ROW(7), A, A1, B1), d));
    emit(k, K3(ROW(7), A, A1, B1));
    both(k, K4(ROW(9), A, A1, B1, B), d);
    both(k, K3(ROW(10), A, A1, B), d);
    both(k, K3(ROW(11), A, B1, B), d);
    both(k, K3(ROW(12), A1, B1, B), d);
    both(k, K4(ROW(13), L1, A, B1, B), d);
    both(k, K4(ROW(14), A, A1, B, R1), d);
#undef ROW
}

/* MSTParser's addTwoObsFeatures: 13 conjunctions of a head's two observations and a child's */
static void two_obs(Sink *k, u64 prefix, u64 h1, u64 h2, u64 c1, u64 c2, u64 d)
{
    both(k, mix(mix(prefix, 1), h1), d);
    both(k, mix(mix(mix(prefix, 2), h1), h2), d);
    both(k, mix(mix(mix(mix(prefix, 3), h1), h2), c2), d);
    both(k, mix(mix(mix(mix(mix(prefix, 4), h1), h2), c2), c1), d);
    both(k, mix(mix(mix(prefix, 5), h1), c1), d);
    both(k, mix(mix(mix(prefix, 6), h1), c2), d);
    both(k, mix(mix(mix(prefix, 7), h2), c1), d);
    both(k, mix(mix(mix(mix(prefix, 8), h2), c1), c2), d);
    both(k, mix(mix(mix(prefix, 9), h2), c2), d);
    both(k, mix(mix(mix(prefix, 10), c1), c2), d);
    both(k, mix(mix(prefix, 11), h2), d);
    both(k, mix(mix(prefix, 12), c1), d);
    both(k, mix(mix(prefix, 13), c2), d);
}

void mst_arc(Sink *k, const Sent *s, Py_ssize_t h, Py_ssize_t c)
{
    int attR = h < c;
    Py_ssize_t small = attR ? h : c, large = attR ? c : h;
    u64 d = suffix(attR, large - small);
    linear(k, s, s->pos, 0, small, large, d);
    linear(k, s, s->cpos, 1, small, large, d);
    two_obs(k, start(T_TWO + 0), s->form[h], s->pos[h], s->form[c], s->pos[c], d);
    two_obs(k, start(T_TWO + 1), s->form[h], s->cpos[h], s->form[c], s->cpos[c], d);
    two_obs(k, start(T_TWO + 2), s->lemma[h], s->pos[h], s->lemma[c], s->pos[c], d);
    two_obs(k, start(T_TWO + 3), s->lemma[h], s->cpos[h], s->lemma[c], s->cpos[c], d);
    for (int64_t i = s->fptr[h]; i < s->fptr[h + 1]; i++) {
        for (int64_t j = s->fptr[c]; j < s->fptr[c + 1]; j++) {
            u64 fi = (u64)(i - s->fptr[h]), fj = (u64)(j - s->fptr[c]);
            two_obs(k, mix(mix(start(T_FF), fi), fj), s->form[h], s->fval[i], s->form[c], s->fval[j], d);
            two_obs(k, mix(mix(start(T_FF + 1), fi), fj), s->lemma[h], s->fval[i], s->lemma[c], s->fval[j], d);
        }
    }
}

/* --- labels: one word's side of a labelled arc (features.py, "label features") ---------------------- */

void mst_label_side(Sink *k, const Sent *s, Py_ssize_t word, u64 type, int attR, int child)
{
    u64 att = 0x200 + 2 * (u64)attR + (u64)child;
    u64 w = s->form[word], p = s->pos[word];
    u64 pm1 = word > 0 ? s->pos[word - 1] : s->STR;
    u64 pp1 = word < s->N - 1 ? s->pos[word + 1] : s->END;
    emit(k, K2(T_NTS1, type, att));
    emit(k, K1(T_ANTS1, type));
    for (int with_att = 1; with_att >= 0; with_att--) {
        u64 keys[6] = {K2(T_NTH, w, p), K1(T_NTI, p), K2(T_NTIA, pm1, p), K2(T_NTIB, p, pp1),
                       K3(T_NTIC, pm1, p, pp1), K1(T_NTJ, w)};
        for (int i = 0; i < 6; i++) {
            u64 key = mix(keys[i], type);
            emit(k, with_att ? mix(key, att) : key);
        }
    }
}

/* --- second order: a head's next child after a sibling (features.py, "sibling features") ------------ */

void mst_trip(Sink *k, const Sent *s, Py_ssize_t par, Py_ssize_t ch1, Py_ssize_t ch2)
{
    u64 dir = par > ch2 ? 1 : 2;
    u64 p1 = ch1 == par ? s->STPOS : s->pos[ch1];
    u64 key = K3(T_TRIP, s->pos[par], p1, s->pos[ch2]);
    emit(k, mix(key, dir));
    emit(k, K3(T_ATRIP, s->pos[par], p1, s->pos[ch2]));
}

void mst_sib(Sink *k, const Sent *s, Py_ssize_t ch1, Py_ssize_t ch2, int first)
{
    u64 dir = ch1 > ch2 ? 1 : 2;
    u64 p1 = first ? s->STPOS : s->pos[ch1], w1 = first ? s->STWRD : s->form[ch1];
    u64 p2 = s->pos[ch2], w2 = s->form[ch2];
    u64 d = bucket(ch1 > ch2 ? ch1 - ch2 : ch2 - ch1);
    emit(k, K3(T_CH_PAIR, p1, p2, dir));
    emit(k, K3(T_CH_WPAIR, w1, w2, dir));
    emit(k, K3(T_CH_WPAIRA, w1, p2, dir));
    emit(k, K3(T_CH_WPAIRB, p1, w2, dir));
    emit(k, K2(T_ACH_PAIR, p1, p2));
    emit(k, K2(T_ACH_WPAIR, w1, w2));
    emit(k, K2(T_ACH_WPAIRA, w1, p2));
    emit(k, K2(T_ACH_WPAIRB, p1, w2));
    emit(k, K2(T_SIB_DIST, d, dir));
    emit(k, K1(T_ASIB_DIST, d));
    emit(k, K4(T_CH_PAIR_DIST, p1, p2, d, dir));
    emit(k, K3(T_ACH_PAIR_DIST, p1, p2, d));
}

/* the second-order parts of h's child c after s (s == h: c is h's first child on its side) */
void mst_sibling_part(Sink *k, const Sent *s, Py_ssize_t h, Py_ssize_t prev, Py_ssize_t c)
{
    mst_trip(k, s, h, prev, c);
    mst_sib(k, s, prev, c, prev == h);
}

/* --- a tree's parts ----------------------------------------------------------------------------------- */

/* The parts of the tree heads[1..N-1] (labels: each word's label atom): with FIRST its arcs and
   each arc's two label sides, with SIBLINGS each head's children on each side from the closest
   outward. */

void mst_tree(Sink *k, const Sent *s, const int64_t *heads, const u64 *labels, int parts)
{
    Py_ssize_t N = s->N;
    for (Py_ssize_t c = 1; c < N && (parts & FIRST); c++) {
        Py_ssize_t h = heads[c];
        mst_arc(k, s, h, c);
        mst_label_side(k, s, c, labels[c], h < c, 1);
        mst_label_side(k, s, h, labels[c], h < c, 0);
    }
    if (!(parts & SIBLINGS))
        return;
    for (Py_ssize_t h = 0; h < N; h++) {
        Py_ssize_t prev = h;
        for (Py_ssize_t c = h + 1; c < N; c++)
            if (heads[c] == h) {
                mst_sibling_part(k, s, h, prev, c);
                prev = c;
            }
        prev = h;
        for (Py_ssize_t c = h - 1; c >= 1; c--)
            if (heads[c] == h) {
                mst_sibling_part(k, s, h, prev, c);
                prev = c;
            }
    }
}
