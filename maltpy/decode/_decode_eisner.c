/* Eisner's algorithm, for maltpy.decode._decode (see _decode.h).

   decode_eisner(): Eisner's (1996) O(n^3) dynamic program (McDonald et al. 2007, §3.1, Figs. 7 and 8)
   over spans s..t: Cr(s, t) the best complete span headed by s, Cl(s, t) headed by t, and
   B(s, t) = max over r of Cr(s, r) + Cl(r + 1, t), which the incomplete spans share (with s
   heading t add s(s, t), with t heading s add s(t, s)). Each table keeps span (s, t) both at
   [s][t] and at [t][s], so that every split is read along a row. The split points are not kept:
   the backtrace finds each again by the same sums in the same order. The root never heads a
   span from the right (it is no word's dependent); with one root it heads one word r, whose
   complete spans 1..r and r..n the table holds (0 takes no span of its own). */

#include "_decode.h"

/* --- Eisner ------------------------------------------------------------------------------------- */

/* The three recurrences' sums, as arguments of best_sum and best_at: B(s, t) over r = s..t-1 (B_SUMS),
   Cr(s, t) over r = s+1..t, Cl(s, t) over r = s..t-1. */
#define CR_SUMS(s, t) B + (s) * N + (s) + 1, S + (s) * N + (s) + 1, Cr + (t) * N + (s) + 1, (t) - (s)
#define CL_SUMS(s, t) Cl + (s) * N + (s), B + (t) * N + (s), S + (t) * N + (s), (t) - (s)

/* Returns -1 if the scaled copy of the scores could not be allocated. */
int decode_eisner(Work *k, const double *S, Py_ssize_t N, int shift, int one_root, int64_t *heads)
{
    double *Cr = k->cr, *Cl = k->cl, *B = k->b, *scaled = NULL;
    if (shift) {
        scaled = malloc((size_t)N * (size_t)N * sizeof(double));
        if (!scaled)
            return -1;
        for (Py_ssize_t a = 0; a < N * N; a++)
            scaled[a] = ldexp(S[a], -shift);
        S = scaled;
    }
    Py_ssize_t first = one_root ? 1 : 0, n = N - 1;
    for (Py_ssize_t s = first; s < N; s++)
        Cr[s * N + s] = Cl[s * N + s] = 0.0;
    for (Py_ssize_t t0 = first + 1; t0 <= n; t0 += BLOCK) {
        Py_ssize_t t1 = t0 + BLOCK - 1 < n ? t0 + BLOCK - 1 : n;
        for (Py_ssize_t s = t1 - 1; s >= first; s--)
            for (Py_ssize_t t = s + 1 > t0 ? s + 1 : t0; t <= t1; t++) {
                B[s * N + t] = B[t * N + s] = best_sum(B_SUMS(s, t));
                Cr[s * N + t] = Cr[t * N + s] = best_sum(CR_SUMS(s, t));
                if (s > 0)
                    Cl[s * N + t] = Cl[t * N + s] = best_sum(CL_SUMS(s, t));
            }
    }
    idx *stack = k->stack;
    Py_ssize_t top = 0;
    heads[0] = -1;
    if (n == 0) {
        free(scaled);
        return 0;
    }
    if (one_root) {
        Py_ssize_t r = 1;
        double m = (Cl[1 * N + 1] + Cr[1 * N + n]) + S[1];
        for (Py_ssize_t q = 2; q <= n; q++) {
            double v = (Cl[1 * N + q] + Cr[q * N + n]) + S[q];
            if (v > m) {
                m = v;
                r = q;
            }
        }
        heads[r] = 0;
        stack[top++] = CL, stack[top++] = 1, stack[top++] = (idx)r;
        stack[top++] = CR, stack[top++] = (idx)r, stack[top++] = (idx)n;
    } else {
        stack[top++] = CR, stack[top++] = 0, stack[top++] = (idx)n;
    }
    while (top) {
        Py_ssize_t t = stack[--top], s = stack[--top];
        idx kind = stack[--top];
        if (s == t)
            continue;
        if (kind == CR) {
            Py_ssize_t r = s + 1 + best_at(CR_SUMS(s, t));
            stack[top++] = IR, stack[top++] = (idx)s, stack[top++] = (idx)r;
            stack[top++] = CR, stack[top++] = (idx)r, stack[top++] = (idx)t;
        } else if (kind == CL) {
            Py_ssize_t r = s + best_at(CL_SUMS(s, t));
            stack[top++] = CL, stack[top++] = (idx)s, stack[top++] = (idx)r;
            stack[top++] = IL, stack[top++] = (idx)r, stack[top++] = (idx)t;
        } else {
            if (kind == IR)
                heads[t] = s;
            else
                heads[s] = t;
            Py_ssize_t r = s + best_at(B_SUMS(s, t));
            stack[top++] = CR, stack[top++] = (idx)s, stack[top++] = (idx)r;
            stack[top++] = CL, stack[top++] = (idx)(r + 1), stack[top++] = (idx)t;
        }
    }
    free(scaled);
    return 0;
}


/* --- the k best projective trees ------------------------------------------------------------------- */

/* decode_kbest(): Eisner's algorithm keeping the k best items of each span instead of the best one
   (McDonald et al. 2007, §3.1 and §2.2: MIRA's k best trees), as MSTParser's KBestParseForest
   does: each cell holds up to k items, best first, and a candidate enters only ahead of items
   that score strictly less (so earlier candidates stay ahead of equal later ones: splits from the
   left, and for each split the sub-items' ranks in order). Four kinds of cell per span s..t:
   complete headed by s (K_CR) or by t (K_CL), incomplete with the arc s -> t (K_IR) or t -> s (K_IL).
   The root heads nothing from the right and is nobody's dependent. */

typedef struct {
    double score;
    int32_t r, i, j; /* split point and the two sub-items' ranks; r = -1: a one-word span */
} Item;

enum { K_CR, K_CL, K_IR, K_IL };

typedef struct {
    Item *items;  /* 4 * N * N * K */
    int32_t *len; /* 4 * N * N: items in each cell */
    Py_ssize_t N, K;
} Chart;

static inline Py_ssize_t cell(const Chart *c, int kind, Py_ssize_t s, Py_ssize_t t)
{
    return ((Py_ssize_t)kind * c->N + s) * c->N + t;
}

/* add a candidate to a cell (sorted, best first, at most K); 0 when it did not enter */
static int insert(Chart *c, Py_ssize_t at, double score, int32_t r, int32_t i, int32_t j)
{
    Item *items = c->items + at * c->K;
    int32_t n = c->len[at];
    if (n == c->K && !(score > items[n - 1].score))
        return 0;
    int32_t p = n < c->K ? n : n - 1;
    while (p > 0 && score > items[p - 1].score) {
        items[p] = items[p - 1];
        p--;
    }
    items[p] = (Item){score, r, i, j};
    if (n < c->K)
        c->len[at] = n + 1;
    return 1;
}

/* every pair of items of cells a and b (ranks in order), plus extra, into cell at; a pair that
   does not enter ends its row (the rest of the row scores no more) */
static void combine(Chart *c, Py_ssize_t at, Py_ssize_t a, Py_ssize_t b, double extra, int32_t r)
{
    const Item *A = c->items + a * c->K, *B = c->items + b * c->K;
    for (int32_t i = 0; i < c->len[a]; i++)
        for (int32_t j = 0; j < c->len[b]; j++)
            if (!insert(c, at, A[i].score + B[j].score + extra, r, i, j))
                break;
}

/* the k best projective trees of S (N x N) into heads (K x N, -1 for node 0); their number */
Py_ssize_t decode_kbest(const double *S, Py_ssize_t N, Py_ssize_t K, int64_t *heads)
{
    Chart c = {malloc(sizeof(Item) * 4 * N * N * K), calloc(4 * N * N, sizeof(int32_t)), N, K};
    int64_t *stack = malloc(sizeof(int64_t) * 4 * (4 * N + 4));
    if (!c.items || !c.len || !stack) {
        free(c.items);
        free(c.len);
        free(stack);
        return -1;
    }
    for (Py_ssize_t s = 0; s < N; s++) {
        insert(&c, cell(&c, K_CR, s, s), 0, -1, 0, 0);
        insert(&c, cell(&c, K_CL, s, s), 0, -1, 0, 0);
    }
    for (Py_ssize_t w = 1; w < N; w++)
        for (Py_ssize_t s = 0; s + w < N; s++) {
            Py_ssize_t t = s + w;
            for (Py_ssize_t r = s; r < t; r++) {
                combine(&c, cell(&c, K_IR, s, t), cell(&c, K_CR, s, r), cell(&c, K_CL, r + 1, t), S[s * N + t], (int32_t)r);
                if (s > 0)
                    combine(&c, cell(&c, K_IL, s, t), cell(&c, K_CR, s, r), cell(&c, K_CL, r + 1, t), S[t * N + s],
                            (int32_t)r);
            }
            for (Py_ssize_t r = s + 1; r <= t; r++)
                combine(&c, cell(&c, K_CR, s, t), cell(&c, K_IR, s, r), cell(&c, K_CR, r, t), 0, (int32_t)r);
            if (s > 0)
                for (Py_ssize_t r = s; r < t; r++)
                    combine(&c, cell(&c, K_CL, s, t), cell(&c, K_CL, s, r), cell(&c, K_IL, r, t), 0, (int32_t)r);
        }
    Py_ssize_t top = cell(&c, K_CR, 0, N - 1), found = N > 1 ? c.len[top] : 1;
    for (Py_ssize_t k = 0; k < found; k++) {
        int64_t *h = heads + k * N;
        h[0] = -1;
        Py_ssize_t sp = 0;
        stack[sp++] = K_CR, stack[sp++] = 0, stack[sp++] = N - 1, stack[sp++] = k;
        while (sp && N > 1) {
            int64_t rank = stack[--sp], t = stack[--sp], s = stack[--sp], kind = stack[--sp];
            const Item *it = c.items + cell(&c, (int)kind, s, t) * K + rank;
            if (it->r < 0)
                continue;
            int64_t r = it->r;
            int64_t parts[2][4];
            if (kind == K_CR) {
                int64_t a[4] = {K_IR, s, r, it->i}, b[4] = {K_CR, r, t, it->j};
                memcpy(parts[0], a, sizeof a), memcpy(parts[1], b, sizeof b);
            } else if (kind == K_CL) {
                int64_t a[4] = {K_CL, s, r, it->i}, b[4] = {K_IL, r, t, it->j};
                memcpy(parts[0], a, sizeof a), memcpy(parts[1], b, sizeof b);
            } else {
                if (kind == K_IR)
                    h[t] = s;
                else
                    h[s] = t;
                int64_t a[4] = {K_CR, s, r, it->i}, b[4] = {K_CL, r + 1, t, it->j};
                memcpy(parts[0], a, sizeof a), memcpy(parts[1], b, sizeof b);
            }
            for (int p = 0; p < 2; p++)
                for (int q = 0; q < 4; q++)
                    stack[sp++] = parts[p][q];
        }
    }
    free(c.items);
    free(c.len);
    free(stack);
    return found;
}

