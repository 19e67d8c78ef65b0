/* foreman's compiled core: the exact ending solver (sure tricks and claims), a fast path of solver.py
 * (the reference), and the replay's fast path for a deal with nothing amiss (engine.py replays it in full).
 *
 * The same values as the Python reference, from the same moves (one card per run of equivalent
 * cards) and zero-window tests "X ends the deal with at least v tricks"; the paranoid search cuts
 * more of the tree: quick tricks with length winners, entries free of the tallies where no tally
 * can decide the test, and a partition table beside the exact one (docs/performance.md). Plain
 * C99 and the CPython API; cards are 0-51 (suit * 13 + rank), hands 52-bit masks, seats 0-2.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <sys/mman.h>
#endif

typedef uint64_t u64;

#define SUIT(c) ((c) / 13)
#define SM(s) (0x1FFFULL << (13 * (s)))

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif
static int hibit(u64 m) { return 63 - __builtin_clzll(m); }
static int lobit(u64 m) { return __builtin_ctzll(m); }
static int popc(u64 m) { return __builtin_popcountll(m); }

/* The bits of `m` under `mask`, packed down in order (BMI2's pext where the build has it). */
#ifdef __BMI2__
#include <immintrin.h>
static u64 compress(u64 m, u64 mask) { return _pext_u64(m, mask); }
static u64 expand(u64 m, u64 mask) { return _pdep_u64(m, mask); }
#else
static u64 compress(u64 m, u64 mask) {
    u64 out = 0;
    for (int i = 0; mask; mask &= mask - 1, i++) out |= (m >> lobit(mask) & 1) << i;
    return out;
}
/* The low bits of `m` spread over the bits of `mask`, in order. */
static u64 expand(u64 m, u64 mask) {
    u64 out = 0;
    for (; mask && m; mask &= mask - 1, m >>= 1) out |= (m & 1) << lobit(mask);
    return out;
}
#endif

typedef struct {
    u64 h[3];
    int trick[3];
    int ntrick, leader, played, target;
    int tally[3];
} State;

typedef struct {
    u64 k0, k1, k2;
    int8_t lo, hi;
    uint16_t mlo, mhi; /* the paranoid search's: each bound's ranks, 4 bits a suit (the top m cards) */
    uint16_t stamp;    /* the table's stamp when written: an entry of an older stamp is an empty slot */
} Entry;

#define ENTRY_STAMPS 0xFFFF

typedef struct {
    Entry *e;
    u64 mask; /* slots - 1 */
    unsigned stamp;
} Table;

/* A bound of the paranoid search on the tricks X can be sure of, for every position whose hands have
 * these suit lengths and whose top m cards of each suit are held as in `pat` (partition search). */
typedef struct {
    u64 key;       /* leader, tricks left, suit lengths (0: an empty slot) */
    uint32_t tal;  /* tallies, or FREE */
    uint32_t pat[4]; /* per suit: the holders' bits of its top m live cards, packed as in PKey; m << 26 */
    int8_t lo, hi;
    uint8_t work;  /* log2 of the nodes it cost: with the cards it rests on, which entry of a full bucket goes */
    uint8_t stamp; /* as Entry's */
} PEntry;

#define PENTRY_STAMPS 0xFF

#define BUCKET 16
#define PT_MOST_BITS 19 /* a larger class table found no more (docs/solver.md, "Sized to the search") */

typedef struct {
    PEntry *e;
    u64 mask; /* buckets - 1 */
    unsigned stamp;
} PTable;

#define CLEAR_BITS 14

typedef struct {
    int x, target;
    u64 clears[1 << CLEAR_BITS]; /* can_clear's answers by holdings: one suit's three, 13 bits each */
    Table ex;  /* bounds of exact positions (relative ranks) */
    PTable tt; /* bounds of classes of positions */
    long long nodes, limit; /* limit: the node count at which the search gives up; < 0: none */
    int aborted;
} Search;

/* Tables freed by searches that ended, kept for the next ones: an analysis makes three searches a
 * deal, and mapping fresh pages for their tables cost more than clearing used ones (docs/solver.md).
 * A kept block is not cleared either: its next search writes a new stamp, and entries with an older
 * one are empty slots, until the stamps run out. */
#define POOL 6
static struct { void *p; size_t bytes; unsigned stamp; } pool[POOL];

#define HUGE_PAGE ((size_t)2 << 20)

/* A zeroed block for a table; a large one on huge pages where the system offers them (fewer TLB misses). */
static void *zeroed_block(size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= HUGE_PAGE) {
        void *p = NULL;
        if (posix_memalign(&p, HUGE_PAGE, bytes)) return NULL;
        madvise(p, bytes, MADV_HUGEPAGE); /* advice only: without it the table works on small pages */
        memset(p, 0, bytes);
        return p;
    }
#endif
    return calloc(bytes, 1);
}

/* The next stamp of a block whose entries bear `stamp` at most; cleared when the stamps run out. */
static unsigned next_stamp(void *p, size_t bytes, unsigned stamp, unsigned most) {
    if (stamp < most) return stamp + 1;
    memset(p, 0, bytes);
    return 1;
}

/* A block for a table, a kept one if there is one of the size, and in `stamp` the stamp its new
 * entries bear (zeroed memory bears 0). */
static void *table_memory(size_t bytes, unsigned most, unsigned *stamp) {
    for (int i = 0; i < POOL; i++)
        if (pool[i].p && pool[i].bytes == bytes) {
            void *p = pool[i].p;
            pool[i].p = NULL;
            *stamp = next_stamp(p, bytes, pool[i].stamp, most);
            return p;
        }
    *stamp = 1;
    return zeroed_block(bytes);
}

/* Give a table's block back: kept for the next search in an empty place of the pool, or in that of
 * a smaller block (the large ones are the costly ones to map), else freed. */
static void table_release(void *p, size_t bytes, unsigned stamp) {
    if (!p) return;
    int at = -1;
    for (int i = 0; i < POOL; i++) {
        if (!pool[i].p) { at = i; break; }
        if (pool[i].bytes < bytes && (at < 0 || pool[i].bytes < pool[at].bytes)) at = i;
    }
    if (at < 0) { free(p); return; }
    free(pool[at].p); /* free(NULL) for an empty place */
    pool[at].p = p;
    pool[at].bytes = bytes;
    pool[at].stamp = stamp;
}

static int table_init(Table *t, int bits) {
    size_t n = (size_t)1 << bits;
    t->e = (Entry *)table_memory(n * sizeof(Entry), ENTRY_STAMPS, &t->stamp);
    if (!t->e) return -1;
    t->mask = n - 1;
    return 0;
}

/* The hands by relative rank: within each suit the live cards closed up, played cards removed.
 * Only the order of the live cards matters to the play, so positions that differ in which low
 * cards are gone share one entry (the simplest form of DDS's partition search). */
static void relative(const State *s, u64 r[3]) {
    r[0] = r[1] = r[2] = 0;
    u64 all = s->h[0] | s->h[1] | s->h[2];
    for (int su = 0; su < 4; su++)
        for (int h = 0; h < 3; h++) r[h] |= compress(s->h[h], all & SM(su)) << (13 * su);
}

static void make_key(const State *s, u64 extra, u64 *k0, u64 *k1, u64 *k2) {
    u64 r[3];
    relative(s, r);
    *k0 = r[0] | ((u64)s->leader << 52) | ((u64)s->played << 54);
    *k1 = r[1] | ((u64)s->tally[0] << 52) | ((u64)s->tally[1] << 57);
    *k2 = r[2] | ((u64)s->tally[2] << 52) | (extra << 57);
}

static u64 mix(u64 a, u64 b, u64 c) {
    u64 h = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL ^ c * 0x165667B19E3779F9ULL;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 32);
}

/* The first of the four slots a key may sit in. */
static u64 slot_of(const Table *t, u64 k0, u64 k1, u64 k2) { return mix(k0, k1, k2) & t->mask; }

/* The slot holding this key, from its first slot `i`, or the one to write it to (4-way probe,
 * overwrite the first). */
static Entry *probe_at(Table *t, u64 i, u64 k0, u64 k1, u64 k2, int *found) {
    Entry *first = &t->e[i];
    for (int p = 0; p < 4; p++) {
        Entry *e = &t->e[(i + p) & t->mask];
        if (e->stamp != t->stamp) { *found = 0; return e; }
        if (e->k0 == k0 && e->k1 == k1 && e->k2 == k2) { *found = 1; return e; }
    }
    *found = 0;
    return first;
}

static Entry *probe(Table *t, u64 k0, u64 k1, u64 k2, int *found) {
    return probe_at(t, slot_of(t, k0, k1, k2), k0, k1, k2, found);
}

static int is_over(const State *s) {
    int turn = (s->leader + s->ntrick) % 3;
    return s->tally[0] >= s->target || s->tally[1] >= s->target || s->tally[2] >= s->target
        || s->played >= 16 || !s->h[turn];
}

static int tricks_left(const State *s) {
    int cards = 99;
    for (int j = s->ntrick; j < 3; j++) {
        int n = popc(s->h[(s->leader + j) % 3]);
        if (n < cards) cards = n;
    }
    return cards < 16 - s->played ? cards : 16 - s->played;
}

static u64 legal(const State *s) {
    u64 hand = s->h[(s->leader + s->ntrick) % 3];
    if (s->ntrick) {
        u64 f = hand & SM(SUIT(s->trick[0]));
        if (f) return f;
    }
    return hand;
}

static u64 live(const State *s) {
    u64 m = s->h[0] | s->h[1] | s->h[2];
    for (int j = 0; j < s->ntrick; j++) m |= 1ULL << s->trick[j];
    return m;
}

/* The card winning the trick so far (the highest of the led suit), and its seat in `seat`. */
static int winning(const State *s, int *seat) {
    int led = SUIT(s->trick[0]), best = s->trick[0];
    *seat = s->leader;
    for (int j = 1; j < s->ntrick; j++) {
        int d = s->trick[j];
        if (SUIT(d) == led && d > best) { best = d; *seat = (s->leader + j) % 3; }
    }
    return best;
}

/* Play a card; return the winner when it completes the trick, else -1. */
static int play(State *s, int c, int saved[3], int *saved_leader) {
    int seat = (s->leader + s->ntrick) % 3;
    s->h[seat] ^= 1ULL << c;
    s->trick[s->ntrick++] = c;
    if (s->ntrick < 3) return -1;
    int w;
    winning(s, &w);
    memcpy(saved, s->trick, sizeof(int) * 3);
    *saved_leader = s->leader;
    s->tally[w]++;
    s->played++;
    s->leader = w;
    s->ntrick = 0;
    return w;
}

static void unplay(State *s, int c, int w, const int saved[3], int saved_leader) {
    if (w >= 0) {
        s->tally[w]--;
        s->played--;
        s->leader = saved_leader;
        memcpy(s->trick, saved, sizeof(int) * 3);
        s->ntrick = 3;
    }
    s->ntrick--;
    s->h[(s->leader + s->ntrick) % 3] |= 1ULL << c;
}

/* The runs of `own` (cards of one suit, `suit` its mask) with no other live card between them, lowest
 * first: the stretches between the other hands' live cards (played cards do not break a run). */
static int suit_runs(u64 own, u64 lv, u64 suit, u64 *out) {
    int n = 0;
    u64 open = own ? suit & ~(lv & ~own) : 0;
    while (open) {
        u64 block = open & ~(open + (open & (~open + 1)));
        open ^= block;
        if (block & own) out[n++] = block & own;
    }
    return n;
}

/* A lead's place in the order, highest first: a run holding its suit's top card; for X then suits
 * the other two hold few cards of; for an opponent a suit X lacks, or one in which his partner holds
 * the top card, then suits X holds few cards of (measured in docs/solver.md). */
static int lead_score(const State *s, int x, u64 run, u64 lv) {
    int hi = hibit(run), ld = s->leader;
    u64 suit = SM(SUIT(hi));
    int top = !(lv & suit & ~((2ULL << hi) - 1)), xs = popc(s->h[x] & suit);
    if (ld == x) { /* a suit both must follow first: a void one's discards multiply the lines to refute */
        int oa = popc(s->h[(x + 1) % 3] & suit), ob = popc(s->h[(x + 2) % 3] & suit);
        int score = (top ? 1000 : 0) - oa - ob - (oa && ob ? 0 : 100);
        return 32 * score + (top ? 0 : 31 - xs); /* among equal losing leads, the suit X holds fewest of */
    }
    if (top) return 1000 - xs;
    if (!xs) return 20;
    return (s->h[3 - ld - x] >> hibit(lv & suit) & 1 ? 30 : 0) - xs;
}

/* X's discards: from his longest suit first (a card there is most easily spared), among suits as long
 * the one the others hold fewest cards of; runs come in ascending order and keep it among equals. */
static int discards(const State *s, int x, const u64 *runs, int n, u64 out[52]) {
    int score[52];
    for (int i = 0; i < n; i++) {
        u64 suit = SM(SUIT(lobit(runs[i])));
        int sc = 32 * popc(s->h[x] & suit) - popc((s->h[(x + 1) % 3] | s->h[(x + 2) % 3]) & suit), b = i;
        for (; b > 0 && score[b - 1] < sc; b--) { score[b] = score[b - 1]; out[b] = out[b - 1]; }
        score[b] = sc;
        out[b] = runs[i];
    }
    return n;
}

/* The runs of equivalent cards the mover may play, as masks, the likeliest best for X's side first;
 * a run is played as its lowest card. Returns the count. */
static int ordered_runs(const State *s, int x, u64 out[52]) {
    u64 lg = legal(s), lv = live(s);
    u64 runs[52]; /* one run per card at most: a broken record may deal a hand of any size */
    int n = 0, from[5] = {0}; /* runs in ascending order of their masks; suit su's from from[su] */
    for (int su = 0; su < 4; su++) {
        n += suit_runs(lg & SM(su), lv, SM(su), runs + n);
        from[su + 1] = n;
    }
    if (!s->ntrick) { /* a stable sort by score of the runs suit by suit, high runs first */
        int score[52], k = 0;
        for (int su = 0; su < 4; su++)
            for (int i = from[su + 1] - 1; i >= from[su]; i--, k++) {
                int sc = lead_score(s, x, runs[i], lv), b = k;
                for (; b > 0 && score[b - 1] < sc; b--) { score[b] = score[b - 1]; out[b] = out[b - 1]; }
                score[b] = sc;
                out[b] = runs[i];
            }
        return n;
    }
    /* Following: the runs that serve the mover's side first, each part in ascending order of its masks. */
    int w, best = winning(s, &w), led = SUIT(best), k = 0;
    int mover = (s->leader + s->ntrick) % 3;
    int ally = (w == x) == (mover == x), first = -1;
    if (mover == x && !(s->h[x] & SM(led))) return discards(s, x, runs, n, out);
    /* X second: his cheapest card sure of the trick first, so that the third hand's cards all lose alike */
    if (mover == x && s->ntrick == 1) {
        u64 third = s->h[(x + 1) % 3] & SM(led);
        int bar = third && hibit(third) > best ? hibit(third) : best;
        for (int i = 0; i < n && first < 0; i++)
            if (SUIT(lobit(runs[i])) == led && hibit(runs[i]) > bar) first = i;
        if (first >= 0) out[k++] = runs[first];
    }
    for (int part = 0; part < 2; part++)
        for (int i = 0; i < n; i++) {
            if (i == first) continue;
            int beats = SUIT(lobit(runs[i])) == led && hibit(runs[i]) > best;
            if ((beats != ally) == !part) out[k++] = runs[i];
        }
    return k;
}

/* One card per run, in the same order. */
static int ordered_moves(const State *s, int x, int out[52]) {
    u64 runs[52];
    int n = ordered_runs(s, x, runs);
    for (int i = 0; i < n; i++) out[i] = lobit(runs[i]);
    return n;
}

/* --- the paranoid search: zero-window tests over a partition table --- */

/* All cards of card c's suit ranked c or higher: the form every relevance set takes, suit by suit. */
static u64 from_card(int c) { return SM(SUIT(c)) & ~((1ULL << c) - 1); }

/* The ranks that decided a finished trick: the winning card when another card followed suit. */
static u64 decided(const int trick[3]) {
    int led = SUIT(trick[0]), best = trick[0], same = 0;
    for (int j = 0; j < 3; j++)
        if (SUIT(trick[j]) == led) { same++; if (trick[j] > best) best = trick[j]; }
    return same > 1 ? from_card(best) : 0;
}

/* Tricks the leader can cash in a row: cards no one else can beat, and the rest of a suit whose
 * top cards outnumber the others' cards in it (length winners); `cards` gets those cards, `rel` the
 * ranks that count. */
static int quick(const State *s, u64 *rel, u64 *cards) {
    int ld = s->leader;
    u64 a = s->h[(ld + 1) % 3], b = s->h[(ld + 2) % 3];
    *rel = 0;
    *cards = 0;
    for (int su = 0; su < 4; su++) {
        u64 mine = s->h[ld] & SM(su);
        if (!mine) continue;
        u64 theirs = (a | b) & SM(su);
        if (!theirs) { *cards |= mine; continue; }
        int top = hibit(theirs);
        u64 winners = mine & ~((2ULL << top) - 1);
        if (!winners) continue;
        int la = popc(a & SM(su)), lb = popc(b & SM(su));
        *cards |= popc(winners) >= (la > lb ? la : lb) ? mine : winners;
        *rel |= from_card(top);
    }
    return popc(*cards);
}

/* The position at a trick's start as the table sees it: the key, and each suit's holders top down. */
typedef struct {
    u64 key;       /* leader, tricks left, every hand's length in every suit */
    uint32_t tal;  /* the tallies when the test depends on them, else FREE */
    int base;      /* X's tricks so far when FREE (entries then bound the tricks still to come), else 0 */
    uint32_t pat[4]; /* per suit: the holders' bits of the live cards packed down, seat 1's then seat 2's at bit 13 */
    int live[4];   /* per suit: the live cards */
    u64 k0, k1, k2; /* the exact position: relative hands, leader, tricks left, tallies or FREE */
} PKey;

#define FREE 0xFFFFFFFFu

/* Whether some opponent can reach the target before the test "X ends with v" is decided: if none
 * can, the test is one on the tricks to come, whatever the tallies (docs/solver.md). */
static int tallies_matter(const State *s, int x, int v, int rem) {
    for (int o = 0; o < 3; o++)
        if (o != x && s->tally[o] + rem >= s->target && s->tally[x] + s->tally[o] + rem - s->target >= v) return 1;
    return 0;
}

static void make_pkey(const State *s, int x, int v, int rem, PKey *K) {
    u64 key = (u64)s->leader | ((u64)rem << 2);
    for (int h = 0; h < 3; h++)
        for (int su = 0; su < 4; su++) key |= (u64)popc(s->h[h] & SM(su)) << (7 + 4 * (4 * h + su));
    K->key = key;
    if (tallies_matter(s, x, v, rem)) {
        K->tal = (uint32_t)(s->tally[0] | (s->tally[1] << 5) | (s->tally[2] << 10));
        K->base = 0;
    } else {
        K->tal = FREE;
        K->base = s->tally[x];
    }
    u64 all = s->h[0] | s->h[1] | s->h[2];
    for (int su = 0; su < 4; su++) {
        K->pat[su] = (uint32_t)(compress(s->h[1], all & SM(su)) | compress(s->h[2], all & SM(su)) << 13);
        K->live[su] = popc(all & SM(su));
    }
}

/* The exact position's key, made only when the partition table has not answered. */
static void make_exact_key(const State *s, int rem, PKey *K) {
    u64 r[3];
    relative(s, r);
    uint32_t t16 = K->tal == FREE ? 0x8000u : K->tal;
    K->k0 = r[0] | ((u64)s->leader << 52) | ((u64)rem << 54);
    K->k1 = r[1] | ((u64)(t16 & 0xFF) << 52);
    K->k2 = r[2] | ((u64)(t16 >> 8) << 52);
}

/* The number of live cards of each suit in `rel`, 4 bits a suit. */
static uint16_t rel_counts(u64 rel, const State *s) {
    u64 all = s->h[0] | s->h[1] | s->h[2];
    uint16_t m = 0;
    for (int su = 0; su < 4; su++) m |= (uint16_t)(popc(all & SM(su) & rel) << (4 * su));
    return m;
}

/* Each suit's top m live cards, m from `counts`, as a relevance set. */
static u64 counts_rel(uint16_t counts, const State *s) {
    u64 all = s->h[0] | s->h[1] | s->h[2], rel = 0;
    for (int su = 0; su < 4; su++) {
        int m = (counts >> (4 * su)) & 15;
        u64 cards = all & SM(su);
        if (m) rel |= from_card(lobit(expand(1ULL << (popc(cards) - m), cards))); /* the m-th card from the top */
    }
    return rel;
}

static u64 pmix(u64 key, uint32_t tal) {
    u64 h = (key ^ ((u64)tal << 40) ^ tal) * 0x9E3779B97F4A7C15ULL;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 29);
}

/* An entry's ranks as a relevance set of this position. */
static u64 entry_rel(const PEntry *e, const State *s) {
    uint16_t counts = 0;
    for (int su = 0; su < 4; su++) counts |= (uint16_t)((e->pat[su] >> 26) << (4 * su));
    return counts_rel(counts, s);
}

/* The bits of a packed pattern that name the holders of a suit's top m of its n live cards. */
static uint32_t top_mask(int m, int n) {
    uint32_t one = (uint32_t)(((1u << m) - 1) << (n - m));
    return one | one << 13;
}

static int matches(const PEntry *e, const PKey *K) {
    if (e->key != K->key || e->tal != K->tal) return 0;
    for (int su = 0; su < 4; su++) {
        if ((e->pat[su] ^ K->pat[su]) & top_mask((int)(e->pat[su] >> 26), K->live[su])) return 0;
    }
    return 1;
}

/* 1 or 0 when an entry that covers this position decides "w tricks (to come, or in all)", else -1. */
static int pt_lookup(const PTable *T, const PKey *K, int w, const State *s, u64 *rel) {
    const PEntry *b = &T->e[(pmix(K->key, K->tal) & T->mask) * BUCKET];
    for (int i = 0; i < BUCKET; i++) {
        const PEntry *e = &b[i];
        if (e->stamp != T->stamp || !matches(e, K)) continue;
        if (e->lo >= w) { *rel = entry_rel(e, s); return 1; }
        if (e->hi < w) { *rel = entry_rel(e, s); return 0; }
    }
    return -1;
}

/* The cards an entry rests on: the fewer, the more positions it answers. */
static int rested_cards(const PEntry *e) {
    int m = 0;
    for (int su = 0; su < 4; su++) m += e->pat[su] >> 26;
    return m;
}

static void pt_store(PTable *T, const PKey *K, int w, int result, u64 rel, const State *s, long long work) {
    u64 all = s->h[0] | s->h[1] | s->h[2];
    uint32_t pat[4];
    for (int su = 0; su < 4; su++) {
        int m = popc(all & SM(su) & rel);
        pat[su] = (K->pat[su] & top_mask(m, K->live[su])) | ((uint32_t)m << 26);
    }
    PEntry *b = &T->e[(pmix(K->key, K->tal) & T->mask) * BUCKET], *e = NULL;
    for (int i = 0; i < BUCKET && !e; i++)
        if (b[i].stamp == T->stamp && b[i].key == K->key && b[i].tal == K->tal && !memcmp(b[i].pat, pat, sizeof pat))
            e = &b[i];
    if (!e) { /* an empty slot, else the entry worth least: cheap to find again, or resting on many cards */
        int least = INT_MAX;
        for (int i = 0; i < BUCKET; i++) {
            if (b[i].stamp != T->stamp) { e = &b[i]; break; }
            int worth = b[i].work - rested_cards(&b[i]);
            if (worth < least) { least = worth; e = &b[i]; }
        }
        e->key = K->key; e->tal = K->tal; memcpy(e->pat, pat, sizeof pat); e->stamp = (uint8_t)T->stamp;
        e->lo = 0; e->hi = 16; e->work = 0;
    }
    int lg = 0;
    while (work > 1 && lg < 63) { work >>= 1; lg++; }
    if (lg > e->work) e->work = (uint8_t)lg;
    if (result) { if (w > e->lo) e->lo = (int8_t)w; }
    else if (w - 1 < e->hi) e->hi = (int8_t)(w - 1);
}

static void ex_store(Table *T, const PKey *K, int w, int result, uint16_t counts) {
    int found;
    Entry *e = probe(T, K->k0, K->k1, K->k2, &found);
    if (!found) {
        e->k0 = K->k0; e->k1 = K->k1; e->k2 = K->k2; e->stamp = (uint16_t)T->stamp;
        e->lo = 0; e->hi = 16; e->mlo = e->mhi = 0;
    }
    if (result) { if (w > e->lo) { e->lo = (int8_t)w; e->mlo = counts; } }
    else if (w - 1 < e->hi) { e->hi = (int8_t)(w - 1); e->mhi = counts; }
}

/* Widen a relevance set so that no run of the mover's equivalent cards is split by it: a search
 * that tried one card of each run covers the others only while they stay equivalent. */
static u64 close_runs(u64 rel, const u64 *runs, int n) {
    for (int i = 0; i < n; i++)
        if (runs[i] & rel) rel |= from_card(lobit(runs[i]));
    return rel;
}

/* Mid-trick, when one side is sure of the trick: the leader of the next one and his quick tricks
 * may decide the test already (DDS looks so at the second hand). 1 or 0 when they do (rel set), else -1. */
static int trick_bound(const State *s, int x, int v, u64 *rel) {
    int w, best = winning(s, &w), led = SUIT(best);
    u64 over = SM(led) & ~((2ULL << best) - 1); /* the cards that would beat the trick so far */
    int yet[3], ny = 0, x_yet = 0, winner = -1, card = best;
    u64 opp_over = 0;
    for (int j = s->ntrick; j < 3; j++) {
        int p = yet[ny++] = (s->leader + j) % 3;
        if (p == x) x_yet = 1; else opp_over |= s->h[p] & over;
    }
    if (w == x) {
        if (!opp_over) winner = x; /* neither opponent can beat X's card */
    } else if (!x_yet || !(s->h[x] & over)) {
        winner = w; /* X cannot beat the coalition's card; a partner still to play goes under it, or must win */
        for (int i = 0; i < ny; i++)
            if (yet[i] != x && yet[i] != w) {
                u64 lg = s->h[yet[i]] & SM(led) ? s->h[yet[i]] & SM(led) : s->h[yet[i]];
                if (!(lg & ~over)) { winner = yet[i]; card = lobit(lg); }
            }
    }
    u64 beat_all = s->h[x] & over & ~(opp_over ? (2ULL << hibit(opp_over)) - 1 : 0);
    if (winner < 0 && x_yet && yet[0] != x && beat_all) { /* X, still to play, can beat every card */
        winner = x;
        card = lobit(beat_all);
    }
    if (winner < 0) { /* the mover wins if he can beat the trick and every card still to come */
        u64 later = 0;
        for (int i = 1; i < ny; i++) later |= s->h[yet[i]] & SM(led);
        u64 mine = s->h[yet[0]] & over & ~(later ? (2ULL << hibit(later)) - 1 : 0);
        if (!mine) return -1;
        winner = yet[0];
        card = lobit(mine);
    }
    State after = *s;
    after.h[winner] &= ~(1ULL << card); /* the card that wins, if it is still in his hand */
    after.leader = winner; /* the others keep their cards: more cards never give the leader more quick tricks */
    after.ntrick = 0;
    int left = 16 - s->played - 1; /* tricks after this one: a broken record's hands may differ in size */
    for (int p = 0; p < 3; p++) {
        int cards = popc(s->h[p]);
        for (int i = 0; i < ny; i++) cards -= yet[i] == p;
        if (cards < left) left = cards;
    }
    u64 qrel, qcards;
    int q = quick(&after, &qrel, &qcards);
    if (q > left) q = left;
    if (winner == x) {
        if (s->tally[x] + 1 + q >= v) { *rel = from_card(card) | qrel; return 1; }
    } else if (s->tally[x] + left - q < v) { *rel = from_card(card) | qrel; return 0; }
    return -1;
}

/* Tricks X is sure to cash with an opponent on lead (solver.kept_winners says why), 0 when none;
 * `rel` gets the ranks that count. */
static int kept_winners(const State *s, int x, int rem, u64 *rel) {
    int a = (x + 1) % 3, b = (x + 2) % 3, wins = 0, others = 0, spare = 0;
    u64 opp = s->h[a] | s->h[b];
    *rel = 0;
    for (int su = 0; su < 4; su++) {
        u64 mine = s->h[x] & SM(su), theirs = opp & SM(su);
        if (!theirs) { wins += popc(mine); spare += popc(mine); continue; }
        int top = hibit(theirs), above = popc(mine & ~((2ULL << top) - 1));
        if (mine) *rel |= from_card(top);
        wins += above;
        if (above > 1) spare += above - 1;
        if (!above) {
            int la = popc(s->h[a] & SM(su)), lb = popc(s->h[b] & SM(su));
            others += la > lb ? la : lb;
        }
    }
    int discards = others - (popc(s->h[x]) - wins);
    if (discards < 0) discards = 0;
    int kept = wins - discards < rem - others ? wins - discards : rem - others;
    if (kept <= 0 || discards > spare) return 0;
    if (s->tally[a] + others >= s->target || s->tally[b] + others >= s->target) return 0;
    return kept;
}

/* One card of each run of `hand`, cards of one suit (its cards with no other live card between them). */
static u64 run_tops(u64 hand, u64 live_cards) {
    u64 runs[13], out = 0;
    int n = hand ? suit_runs(hand, live_cards, SM(SUIT(lobit(hand))), runs) : 0;
    for (int i = 0; i < n; i++) out |= 1ULL << hibit(runs[i]);
    return out;
}

/* Whether X's opponents can win every trick led in one suit until X's cards `mine` of it are gone,
 * X playing only those (solver's bounds.can_clear); `after`, `before`: the seats after and before X. */
static int can_clear(u64 mine, u64 after, u64 before) {
    if (!mine) return 1;
    int longer = popc(after) > popc(before) ? popc(after) : popc(before);
    if (popc(mine) > longer || hibit(mine) > hibit(after | before)) return 0;
    u64 lv = mine | after | before, ours = run_tops(mine, lv), ra = run_tops(after, lv), rb = run_tops(before, lv);
    for (u64 m = ra; m; m &= m - 1) { /* `after` leads; `before` plays, then X */
        int lead = lobit(m);
        for (u64 n = before ? rb : 1; n; n &= n - 1) {
            int second = before ? lobit(n) : -1, top = second > lead ? second : lead;
            if (hibit(mine) > top) continue;
            u64 a2 = after & ~(1ULL << lead), b2 = before ? before & ~(1ULL << second) : 0;
            int all = 1;
            for (u64 k = ours; k && all; k &= k - 1) all = can_clear(mine & ~(1ULL << lobit(k)), a2, b2);
            if (all) return 1;
        }
    }
    for (u64 m = rb; m; m &= m - 1) { /* `before` leads; X plays, then `after` */
        int lead = lobit(m), all = 1;
        u64 b2 = before & ~(1ULL << lead);
        for (u64 k = ours; k && all; k &= k - 1) {
            int card = lobit(k), some = 0;
            u64 m2 = mine & ~(1ULL << card);
            if (!after) some = lead > card && can_clear(m2, 0, b2);
            for (u64 n = ra; n && !some; n &= n - 1) {
                int third = lobit(n), top = third > lead ? third : lead;
                some = top > card && can_clear(m2, after & ~(1ULL << third), b2);
            }
            all = some;
        }
        if (all) return 1;
    }
    return 0;
}

/* can_clear of one suit's holdings, remembered: the same holdings recur across a search. */
static int clears(Search *S, u64 mine, u64 after, u64 before, int su) {
    int sh = 13 * su;
    u64 key = (mine >> sh) | (after >> sh) << 13 | (before >> sh) << 26;
    u64 *slot = &S->clears[(key * 0x9E3779B97F4A7C15ULL) >> (64 - CLEAR_BITS)];
    if (*slot >> 2 == key && *slot & 2) return (int)(*slot & 1);
    int r = can_clear(mine, after, before);
    *slot = key << 2 | 2 | (u64)r;
    return r;
}

/* The fewest of X's cards of a suit, his lowest left out, the opponents cannot clear; 0 if none. */
static u64 guard(Search *S, u64 mine, u64 after, u64 before, int su) {
    if (clears(S, mine, after, before, su)) return 0;
    while (popc(mine) > 1 && !clears(S, mine & (mine - 1), after, before, su)) mine &= mine - 1;
    return mine;
}

/* Whether X is sure of a trick after cashing `cashed` (his quick tricks, when he is on lead);
 * `rel` gets the ranks that count (solver's bounds.one_more_trick says why it holds). */
static int one_more_trick(Search *S, const State *s, int x, int rem, u64 cashed, u64 *rel) {
    int a = (x + 1) % 3, b = (x + 2) % 3, left = rem - popc(cashed);
    u64 mine = s->h[x] & ~cashed, g[4];
    if (popc(mine) != left) return 0;
    int leads = 0, spare = 0, guarded = 0, guards = 0, longest[4];
    for (int su = 0; su < 4; su++) {
        u64 held = mine & SM(su);
        int la = popc(s->h[a] & SM(su)), lb = popc(s->h[b] & SM(su));
        longest[su] = la > lb ? la : lb;
        g[su] = held ? guard(S, held, s->h[a] & SM(su), s->h[b] & SM(su), su) : 0;
        if (g[su]) { guards++; spare += popc(held & ~g[su]); guarded += popc(g[su]); }
        else leads += longest[su];
    }
    while (leads > left - guarded && guards > 1) { /* a guard longer than the leads it stops is better spent */
        int best = -1;
        for (int su = 0; su < 4; su++)
            if (g[su] && (best < 0 || popc(g[su]) - longest[su] > popc(g[best]) - longest[best])) best = su;
        if (popc(g[best]) <= longest[best]) break;
        leads += longest[best];
        guarded -= popc(g[best]);
        g[best] = 0;
        guards--;
    }
    int free_cards = left - guarded;
    if (s->leader == x) { /* X leads one of his other cards first; a spare one of a guarded suit uses one up */
        if (!free_cards) return 0;
        leads += free_cards == spare;
    }
    if (!guards || leads > free_cards) return 0;
    int most = leads + guarded - guards < left - 1 ? leads + guarded - guards : left - 1;
    for (int o = 0; o < 3; o++) {
        if (o == x) continue;
        int own = 0; /* each trick he wins takes a card of his of the suit led */
        for (int su = 0; su < 4; su++) {
            int held = popc(s->h[o] & SM(su));
            own += g[su] && popc(g[su]) - 1 < held ? popc(g[su]) - 1 : held;
        }
        if (s->tally[o] + (own < most ? own : most) >= s->target) return 0;
    }
    *rel = 0;
    for (int su = 0; su < 4; su++) if (g[su]) *rel |= from_card(lobit(g[su]));
    return 1;
}

/* At a trick's start, 1 or 0 when the bounds decide "X ends with v" (rel set), else -1; the same
 * bounds in the same order as solver's bounds.start_bound. */
static int start_bound(Search *S, const State *s, int v, int rem, u64 *rel) {
    int x = S->x, t = s->tally[x];
    u64 qrel, cards, more;
    int q = quick(s, &qrel, &cards);
    if (q > rem) q = rem;
    if (s->leader == x) {
        if (t + q >= v) { *rel = qrel; return 1; }
        if (t + q + 1 >= v && one_more_trick(S, s, x, rem, cards, &more)) { *rel = qrel | more; return 1; }
        return -1;
    }
    if (t + rem - q < v) { *rel = qrel; return 0; }
    if (t + kept_winners(s, x, rem, &qrel) >= v) { *rel = qrel; return 1; }
    if (t + 1 >= v && one_more_trick(S, s, x, rem, 0, &more)) { *rel = more; return 1; }
    return -1;
}

/* "X ends the deal with at least v tricks"; `rel` gets the ranks the answer depends on. */
static int ge(Search *S, State *s, int v, u64 *rel) {
    int x = S->x, t = s->tally[x];
    *rel = 0;
    if (t >= v) return 1;
    if (is_over(s)) return 0;
    int rem = tricks_left(s);
    if (t + rem < v) return 0;
    if (S->limit >= 0 && S->nodes >= S->limit) S->aborted = 1;
    if (S->aborted) return 0;
    S->nodes++;
    PKey K = {0};
    if (!s->ntrick) {
        make_pkey(s, x, v, rem, &K);
        make_exact_key(s, rem, &K);
        u64 slot = slot_of(&S->ex, K.k0, K.k1, K.k2);
        PREFETCH(&S->ex.e[slot]); /* rarely cached: fetched while the class table is read and the bounds counted */
        int found, w = v - K.base;
        int r = pt_lookup(&S->tt, &K, w, s, rel);
        if (r >= 0) return r;
        r = start_bound(S, s, v, rem, rel);
        if (r >= 0) return r;
        Entry *e = probe_at(&S->ex, slot, K.k0, K.k1, K.k2, &found);
        if (found) {
            if (e->lo >= w) { *rel = counts_rel(e->mlo, s); return 1; }
            if (e->hi < w) { *rel = counts_rel(e->mhi, s); return 0; }
        }
    } else {
        int r = trick_bound(s, x, v, rel);
        if (r >= 0) return r;
    }
    long long before = S->nodes;
    u64 runs[52];
    int n = ordered_runs(s, x, runs);
    int ours = ((s->leader + s->ntrick) % 3) == x, result = !ours, cut = 0;
    u64 acc = 0, below[4] = {0, 0, 0, 0}; /* per suit: a refuted card's ranks when it lay under them (bit 63: set) */
    for (int i = 0; i < n; i++) {
        int c = lobit(runs[i]), saved[3], sl;
        if (below[SUIT(c)] && !(below[SUIT(c)] >> c & 1)) continue; /* the same answer: docs/solver.md */
        int w = play(s, c, saved, &sl);
        u64 crel;
        int r = ge(S, s, v, &crel);
        if (w >= 0) crel |= decided(saved);
        unplay(s, c, w, saved, sl);
        if (S->aborted) return 0;
        if (r == ours) { result = r; acc = crel; cut = 1; break; }
        acc |= crel;
        if (!(crel >> c & 1) && !below[SUIT(c)]) below[SUIT(c)] = crel | 1ULL << 63;
    }
    if (!cut) acc = close_runs(acc, runs, n);
    *rel = acc;
    if (!s->ntrick) {
        ex_store(&S->ex, &K, v - K.base, result, rel_counts(acc, s));
        pt_store(&S->tt, &K, v - K.base, result, acc, s, S->nodes - before);
    }
    return result;
}

/* --- argument parsing shared by the entry points --- */

static int parse_state(State *s, u64 h0, u64 h1, u64 h2, int leader, PyObject *trick,
                       int t0, int t1, int t2, int played, int target) {
    s->h[0] = h0; s->h[1] = h1; s->h[2] = h2;
    s->leader = leader; s->played = played; s->target = target;
    s->tally[0] = t0; s->tally[1] = t1; s->tally[2] = t2;
    s->ntrick = 0;
    if (leader < 0 || leader > 2 || played < 0 || played > 16 || target < 1 || target > 16
        || t0 < 0 || t1 < 0 || t2 < 0 || t0 > 16 || t1 > 16 || t2 > 16 || ((h0 | h1 | h2) >> 52)) {
        PyErr_SetString(PyExc_ValueError, "position out of range");
        return -1;
    }
    PyObject *seq = PySequence_Fast(trick, "trick must be a sequence of cards");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > 2) { Py_DECREF(seq); PyErr_SetString(PyExc_ValueError, "a trick in progress has at most 2 cards"); return -1; }
    for (Py_ssize_t j = 0; j < n; j++) {
        long c = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, j));
        if (c < 0 || c > 51) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a card is 0-51");
            return -1;
        }
        s->trick[s->ntrick++] = (int)c;
    }
    Py_DECREF(seq);
    return 0;
}

/* --- Paranoid: sure tricks of one player, the table kept across calls within a deal --- */

typedef struct {
    PyObject_HEAD
    Search S;
} ParanoidObject;

static size_t ex_bytes(const Search *S) { return (S->ex.mask + 1) * sizeof(Entry); }
static size_t tt_bytes(const Search *S) { return (S->tt.mask + 1) * BUCKET * sizeof(PEntry); }

static void release_tables(Search *S) {
    table_release(S->ex.e, ex_bytes(S), S->ex.stamp); /* nothing for a table never made */
    table_release(S->tt.e, tt_bytes(S), S->tt.stamp);
    S->ex.e = NULL;
    S->tt.e = NULL;
}

static void Paranoid_dealloc(ParanoidObject *self) {
    release_tables(&self->S);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int ptable_init(PTable *t, int bits) {
    size_t buckets = ((size_t)1 << bits) / BUCKET;
    t->e = (PEntry *)table_memory(buckets * BUCKET * sizeof(PEntry), PENTRY_STAMPS, &t->stamp);
    if (!t->e) return -1;
    t->mask = buckets - 1;
    return 0;
}

static int Paranoid_init(ParanoidObject *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"x", "table_bits", NULL};
    int x, bits = 18;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "i|i", names, &x, &bits)) return -1;
    if (x < 0 || x > 2 || bits < 8 || bits > 26) {
        PyErr_SetString(PyExc_ValueError, "x is a seat 0-2, table_bits 8-26");
        return -1;
    }
    release_tables(&self->S);
    memset(&self->S, 0, sizeof(Search));
    self->S.x = x;
    int class_bits = bits - 1 < PT_MOST_BITS ? bits - 1 : PT_MOST_BITS;
    if (table_init(&self->S.ex, bits) < 0 || ptable_init(&self->S.tt, class_bits) < 0) { PyErr_NoMemory(); return -1; }
    return 0;
}

/* One test; the caller has checked the budget is not spent. */
static int test(Search *S, State *s, int v) {
    u64 rel;
    return ge(S, s, v, &rel);
}

static PyObject *Paranoid_sure(ParanoidObject *self, PyObject *args) {
    unsigned long long h0, h1, h2;
    int leader, t0, t1, t2, played, target;
    long long budget = -1;
    int guess = -1, floor = -1, ceiling = -1;
    PyObject *trick;
    if (!PyArg_ParseTuple(args, "KKKiOiiiii|Liii", &h0, &h1, &h2, &leader, &trick, &t0, &t1, &t2, &played,
                          &target, &budget, &guess, &floor, &ceiling))
        return NULL;
    State s;
    if (parse_state(&s, h0, h1, h2, leader, trick, t0, t1, t2, played, target) < 0) return NULL;
    Search *S = &self->S;
    if (S->target != target) { /* entries that name tallies hold for one target; new tables are clear */
        if (S->target) {
            S->tt.stamp = next_stamp(S->tt.e, tt_bytes(S), S->tt.stamp, PENTRY_STAMPS);
            S->ex.stamp = next_stamp(S->ex.e, ex_bytes(S), S->ex.stamp, ENTRY_STAMPS);
        }
        S->target = target;
    }
    S->aborted = 0;
    S->limit = budget >= 0 ? S->nodes + budget : -1; /* work, not time: the same answer at any load */
    int lo = s.tally[S->x];
    if (!is_over(&s)) {
        int hi = lo + tricks_left(&s);
        if (hi > s.target) hi = s.target;
        /* The caller's bounds: the answer is the value clamped to them. */
        if (floor > lo) lo = floor < hi ? floor : hi;
        if (ceiling >= 0 && ceiling < hi) hi = ceiling > lo ? ceiling : lo;
        Py_BEGIN_ALLOW_THREADS
        if (guess > lo && guess <= hi) {
            /* Probe at the guess first: a good one settles the value in two searches. */
            if (test(S, &s, guess)) lo = guess; else hi = guess - 1;
        }
        while (lo < hi && !S->aborted) {
            int mid = lo == guess ? lo + 1 : (lo + hi + 1) / 2;
            if (test(S, &s, mid)) lo = mid; else hi = mid - 1;
        }
        Py_END_ALLOW_THREADS
    }
    if (S->aborted) Py_RETURN_NONE;
    if (floor > lo) lo = floor;
    return PyLong_FromLong(ceiling >= 0 && lo > ceiling ? ceiling : lo);
}

static PyObject *Paranoid_nodes(ParanoidObject *self, void *closure) {
    (void)closure;
    return PyLong_FromLongLong(self->S.nodes);
}

static PyMethodDef Paranoid_methods[] = {
    {"sure", (PyCFunction)Paranoid_sure, METH_VARARGS,
     "sure(h0, h1, h2, leader, trick, t0, t1, t2, played, target[, budget[, guess[, floor[, ceiling]]]]): "
     "X's sure tricks clamped to [floor, ceiling] (-1: none), or None when the search needed more than "
     "`budget` nodes; a guess of the value saves searches."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Paranoid_getset[] = {
    {"nodes", (getter)Paranoid_nodes, NULL, "nodes searched so far", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject ParanoidType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "foreman_cli._core.Paranoid",
    .tp_basicsize = sizeof(ParanoidObject),
    .tp_dealloc = (destructor)Paranoid_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Paranoid(x, table_bits=18): sure tricks of seat x; the bounds table lives with the object.",
    .tp_methods = Paranoid_methods,
    .tp_getset = Paranoid_getset,
    .tp_init = (initproc)Paranoid_init,
    .tp_new = PyType_GenericNew,
};

/* --- claims: a line that stops X from taking the next k tricks --- */

typedef struct {
    int x, k, best_play;
    Table holds;
    int line[48];
} Claim;

static int claim_fails(Claim *C, State *s, int won, int depth);

/* Try one card; return the length of the failing line written from `depth`, or 0 if it holds. */
static int claim_try(Claim *C, State *s, int c, int won, int depth) {
    int saved[3], sl, w = play(s, c, saved, &sl), len;
    C->line[depth] = c;
    if (w >= 0 && w != C->x) len = depth + 1;
    else len = claim_fails(C, s, won + (w >= 0), depth + 1);
    unplay(s, c, w, saved, sl);
    return len;
}

static int claim_fails(Claim *C, State *s, int won, int depth) {
    if (won >= C->k) return 0;
    Entry *e = NULL;
    u64 k0 = 0, k1 = 0, k2 = 0;
    if (!s->ntrick) {
        int found;
        make_key(s, (u64)won, &k0, &k1, &k2);
        e = probe(&C->holds, k0, k1, k2, &found);
        if (found) return 0;
    }
    int moves[52], n = ordered_moves(s, C->x, moves);
    int mover = (s->leader + s->ntrick) % 3;
    int chooses = C->best_play && mover == C->x;
    if (mover == C->x && !chooses)
        for (int i = 0; i < n / 2; i++) { int t = moves[i]; moves[i] = moves[n - 1 - i]; moves[n - 1 - i] = t; }
    int all_fail = 1;
    for (int i = 0; i < n; i++) {
        int len = claim_try(C, s, moves[i], won, depth);
        if (!chooses && len) return len;
        if (chooses && !len) { all_fail = 0; break; }
    }
    if (chooses && all_fail && n) return claim_try(C, s, moves[0], won, depth); /* rebuild the first line */
    if (e) { e->k0 = k0; e->k1 = k1; e->k2 = k2; e->stamp = (uint16_t)C->holds.stamp; }
    return 0;
}

static PyObject *claim_line(PyObject *mod, PyObject *args) {
    (void)mod;
    unsigned long long h0, h1, h2;
    int leader, t0, t1, t2, played, target, x, k, best_play;
    PyObject *trick;
    if (!PyArg_ParseTuple(args, "KKKiOiiiiiiip", &h0, &h1, &h2, &leader, &trick, &t0, &t1, &t2, &played,
                          &target, &x, &k, &best_play))
        return NULL;
    State s;
    if (parse_state(&s, h0, h1, h2, leader, trick, t0, t1, t2, played, target) < 0) return NULL;
    if (x < 0 || x > 2 || k < 0 || k > 16) {
        PyErr_SetString(PyExc_ValueError, "x is a seat 0-2, k 0-16");
        return NULL;
    }
    Claim C;
    C.x = x; C.k = k; C.best_play = best_play;
    if (table_init(&C.holds, 16) < 0) return PyErr_NoMemory();
    int len;
    Py_BEGIN_ALLOW_THREADS
    len = claim_fails(&C, &s, 0, 0);
    Py_END_ALLOW_THREADS
    table_release(C.holds.e, (C.holds.mask + 1) * sizeof(Entry), C.holds.stamp);
    if (!len) Py_RETURN_NONE;
    PyObject *out = PyList_New(len);
    if (!out) return NULL;
    for (int i = 0; i < len; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(C.line[i]));
    return out;
}


/* ---- the replay's fast path: a deal with nothing amiss, in one pass (engine.py's full replay is the reference) ---- */

/* A deal as card codes (0-51) and seats (0-2); 255 stands for a name that is no player. */
typedef struct {
    int dealer, ntricks;
    unsigned char hand[3][16], kitty[4], discards[4];
    unsigned char pass[3][4]; /* giver, receiver, card, returned */
    unsigned char trick[16][4]; /* leader, then the cards in the order played */
} DealCodes;

typedef struct {
    int won[3], ntricks, decided;
    unsigned char winners[16];
} DealTally;

/* Cards into a mask; -1 on a card already in `seen` (or not a card). */
static int code_mask(const unsigned char *cs, int n, u64 *seen, u64 *mask) {
    for (int i = 0; i < n; i++) {
        if (cs[i] > 51) return -1;
        u64 b = 1ULL << cs[i];
        if (*seen & b) return -1;
        *seen |= b;
        *mask |= b;
    }
    return 0;
}

/* One pass (giver to receiver, card, return): 0 when plain and allowed, -1 otherwise. */
static int plain_pass(const unsigned char *ps, int gv_want, int rc_want, u64 *m, int highest) {
    int gv = ps[0], rc = ps[1], c = ps[2], x = ps[3];
    if (gv != gv_want || rc != rc_want || c > 51 || x > 51) return -1;
    u64 bc = 1ULL << c, bx = 1ULL << x, before = m[rc];
    if (!(m[gv] & bc) || !(before & bx) || (before & bc) || (m[gv] & bx)) return -1;
    u64 suit_cards = before & SM(SUIT(c));
    int wrong;
    if (highest) {
        wrong = suit_cards && x != hibit(suit_cards);
    } else {
        u64 above = suit_cards & ~((bc << 1) - 1);
        wrong = above && !(above & bx);
    }
    if (wrong) return -1;
    m[gv] ^= bc | bx;
    m[rc] ^= bc | bx;
    return 0;
}

/* The tricks from the first lead: -1 when one is not plain, else 0 with the tally set. With the
 * hands `m`, every card is held and follows suit from them; with none (a record of the play alone:
 * seen.py words what it proves), every card is one never played before and of no suit its player
 * showed out of earlier (he held that card then). */
static int plain_tricks(const DealCodes *d, u64 *m, int due, int target, DealTally *t) {
    u64 played = 0, out[3] = {0, 0, 0};
    for (int i = 0; i < d->ntricks; i++) {
        const unsigned char *tr = d->trick[i];
        if (tr[0] != due) return -1;
        int w = due, best = -1;
        u64 led = 0;
        for (int j = 0; j < 3; j++) {
            int p = (due + j) % 3, c = tr[1 + j];
            if (c > 51) return -1;
            u64 b = 1ULL << c;
            if (j == 0) led = SM(SUIT(c));
            if (m) {
                if (!(m[p] & b) || (j && !(b & led) && (m[p] & led))) return -1;
                m[p] ^= b;
            } else {
                if ((played & b) || (out[p] & b)) return -1;
                played |= b;
                if (!(b & led)) out[p] |= led;
            }
            if ((b & led) && c > best) { w = p; best = c; }
        }
        t->won[w]++;
        t->winners[t->ntricks++] = (unsigned char)w;
        due = w;
        if (t->won[w] == target) {
            t->decided = 1;
            return i + 1 < d->ntricks ? -1 : 0;
        }
    }
    return 0;
}

/* A deal with nothing amiss, tallied: 0, or -1 for "look closer" (the full replay words why).
 * Under kitty 'pickup' the dealer takes the kitty first and sets aside any four of his twenty. */
static int clean_codes(const DealCodes *d, int highest, int target, int pickup, DealTally *t) {
    int dealer = d->dealer;
    u64 m[3] = {0, 0, 0}, seen = 0, km = 0, dm = 0, none = 0;
    if (dealer < 0 || dealer > 2) return -1;
    for (int s = 0; s < 3; s++)
        if (code_mask(d->hand[s], 16, &seen, &m[s]) < 0) return -1;
    if (code_mask(d->kitty, 4, &seen, &km) < 0) return -1;
    int L = (dealer + 1) % 3, R = (dealer + 2) % 3;
    int order[3][2] = {{L, R}, {R, dealer}, {dealer, L}};
    for (int i = 0; i < 3; i++)
        if (plain_pass(d->pass[i], order[i][0], order[i][1], m, highest) < 0) return -1;
    if (pickup) m[dealer] |= km;
    if (code_mask(d->discards, 4, &none, &dm) < 0 || (m[dealer] & dm) != dm) return -1;
    m[dealer] = (m[dealer] ^ dm) | (pickup ? 0 : km);
    memset(t, 0, sizeof *t);
    return plain_tricks(d, m, L, target, t);
}

/* A record of the play alone with nothing it proves amiss, tallied (plain_tricks without hands). */
static int plain_play(const DealCodes *d, int target, DealTally *t) {
    if (d->dealer < 0 || d->dealer > 2) return -1;
    memset(t, 0, sizeof *t);
    return plain_tricks(d, NULL, (d->dealer + 1) % 3, target, t);
}

static PyObject *S_from, *S_to, *S_card, *S_returned, *S_leader, *S_cards;

/* The code of a token (or a seat of a name) from a dict, or 255 (unknown: the full replay says so). */
static int code_in(PyObject *table, PyObject *key, int limit) {
    PyObject *v = key ? PyDict_GetItemWithError(table, key) : NULL;
    if (!v) return 255;
    long c = PyLong_AsLong(v);
    return (c >= 0 && c < limit) ? (int)c : 255;
}

/* A list of exactly n tokens as codes; -1 on another length. */
static int list_codes(PyObject *list, int n, PyObject *cards, unsigned char *out) {
    if (!PyList_Check(list) || PyList_GET_SIZE(list) != n) return -1;
    for (int i = 0; i < n; i++) {
        out[i] = (unsigned char)code_in(cards, PyList_GET_ITEM(list, i), 52);
        if (PyErr_Occurred()) return -1;
    }
    return 0;
}

/* obj.attr's code in table; 255 (and any error cleared later) when it has none. */
static unsigned char attr_code(PyObject *obj, PyObject *attr, PyObject *table, int limit) {
    PyObject *v = PyObject_GetAttr(obj, attr);
    int c = code_in(table, v, limit);
    Py_XDECREF(v);
    return (unsigned char)c;
}

/* The decoder's structs of one deal as codes; -1 when a list has the wrong length. */
static int deal_tricks(DealCodes *d, PyObject *tricks, PyObject *seats, PyObject *cards);

static int deal_from_structs(DealCodes *d, PyObject *hands, PyObject *kitty, PyObject *passes, PyObject *discards,
                             PyObject *tricks, PyObject *seats, PyObject *cards) {
    if (!PyTuple_Check(hands) || PyTuple_GET_SIZE(hands) != 3 || !PyList_Check(passes) || !PyList_Check(tricks)
        || PyList_GET_SIZE(passes) != 3 || PyList_GET_SIZE(tricks) > 16)
        return -1;
    for (int s = 0; s < 3; s++)
        if (list_codes(PyTuple_GET_ITEM(hands, s), 16, cards, d->hand[s]) < 0) return -1;
    if (list_codes(kitty, 4, cards, d->kitty) < 0 || list_codes(discards, 4, cards, d->discards) < 0) return -1;
    PyObject *attrs[4] = {S_from, S_to, S_card, S_returned};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 4; k++) {
            d->pass[i][k] = attr_code(PyList_GET_ITEM(passes, i), attrs[k], k < 2 ? seats : cards, k < 2 ? 3 : 52);
            if (PyErr_Occurred()) return -1;
        }
    return deal_tricks(d, tricks, seats, cards);
}

/* A deal's tricks as codes: -1 for more than sixteen or a trick not of three cards. */
static int deal_tricks(DealCodes *d, PyObject *tricks, PyObject *seats, PyObject *cards) {
    if (!PyList_Check(tricks) || PyList_GET_SIZE(tricks) > 16) return -1;
    d->ntricks = (int)PyList_GET_SIZE(tricks);
    for (int i = 0; i < d->ntricks; i++) {
        PyObject *t = PyList_GET_ITEM(tricks, i), *cs = PyObject_GetAttr(t, S_cards);
        if (cs) d->trick[i][0] = attr_code(t, S_leader, seats, 3);
        int r = cs && !PyErr_Occurred() ? list_codes(cs, 3, cards, d->trick[i] + 1) : -1;
        Py_XDECREF(cs);
        if (r < 0) return -1;
    }
    return 0;
}

static PyObject *tally_tuple(const DealTally *t) {
    PyObject *winners = PyList_New(t->ntricks);
    if (!winners) return NULL;
    for (int i = 0; i < t->ntricks; i++) PyList_SET_ITEM(winners, i, PyLong_FromLong(t->winners[i]));
    return Py_BuildValue("iiiNO", t->won[0], t->won[1], t->won[2], winners, t->decided ? Py_True : Py_False);
}

static PyObject *clean_deal(PyObject *self, PyObject *args) {
    PyObject *hands, *kitty, *passes, *discards, *tricks, *seats, *cards;
    int dealer, highest, target, pickup = 0;
    if (!PyArg_ParseTuple(args, "OOOOOO!iiiO!|p", &hands, &kitty, &passes, &discards, &tricks, &PyDict_Type, &seats,
                          &dealer, &highest, &target, &PyDict_Type, &cards, &pickup))
        return NULL;
    DealCodes d;
    DealTally t;
    d.dealer = dealer;
    /* a record of the play alone: no hands, kitty, passes nor discards */
    int seen = hands == Py_None && kitty == Py_None && passes == Py_None && discards == Py_None;
    int r = seen ? deal_tricks(&d, tricks, seats, cards) : deal_from_structs(&d, hands, kitty, passes, discards,
                                                                                tricks, seats, cards);
    if (PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError) && !PyErr_ExceptionMatches(PyExc_TypeError)) return NULL;
        PyErr_Clear();  /* an odd object: the full replay looks at it */
        r = -1;
    }
    if (r < 0 || (seen ? plain_play(&d, target, &t) : clean_codes(&d, highest, target, pickup, &t)) < 0)
        Py_RETURN_NONE;
    return tally_tuple(&t);
}

/* ---- the fast lane: a plain record's text read in one pass (lane.py; the full path is the reference) ----
 *
 * lane_scan reads a record's JSON text when it is plain: every deal in the
 * sizes of the rules (16, 16, 16 and 4 cards, three passes, four discards, up to sixteen tricks of
 * three cards), every name in a deal one of the players, no claim. It gives back the record's
 * other members as a JSON object of their own (the head, which the Python decoder checks as it
 * checks a whole record) and the deals as fixed-size blocks of codes. lane_replay tallies those
 * blocks under the house rules. Anything else is None: the full path decides and words it.
 */

#define LANE_DEPTH 64 /* nesting a skipped value may have; deeper goes to the full path */
#define BLOCK 135     /* a deal's block: dealer, 3 hands of 16, kitty 4, discards 4, passes 3x4, tricks, 16x4,
                       * then 1 for a deal that records its play alone (dealer and tricks) */
#define ALONE 134

typedef struct {
    const unsigned char *p, *end;
    int depth;
    const unsigned char *name[3];
    Py_ssize_t name_len[3];
} Scan;

typedef struct {
    char *b;
    Py_ssize_t n, cap;
} Buf;

static int buf_put(Buf *o, const void *src, Py_ssize_t n) {
    if (n <= 0) return 0; /* memcpy must not be given NULL, even for no bytes */
    if (o->n + n > o->cap) {
        Py_ssize_t cap = o->cap ? o->cap : 1024;
        while (cap < o->n + n) cap *= 2;
        char *b = (char *)realloc(o->b, (size_t)cap);
        if (!b) return -1;
        o->b = b;
        o->cap = cap;
    }
    memcpy(o->b + o->n, src, (size_t)n);
    o->n += n;
    return 0;
}

static inline void ws(Scan *s) {
    if (s->p < s->end && *s->p > ' ') return; /* the usual case: no space to pass */
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) s->p++;
}

static int eat(Scan *s, unsigned char ch) {
    ws(s);
    if (s->p < s->end && *s->p == ch) { s->p++; return 1; }
    return 0;
}

static int hex(unsigned char c) { return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f'); }

/* A string: its bytes between the quotes, escapes as written (a name is compared as written; the
 * head's strings are checked by the Python decoder). No control characters, only JSON's escapes. */
static int string_at(Scan *s, const unsigned char **a, Py_ssize_t *n) {
    ws(s);
    if (s->p >= s->end || *s->p != '"') return 0;
    const unsigned char *q = ++s->p;
    while (s->p < s->end && *s->p != '"') {
        unsigned char c = *s->p;
        if (c < 0x20) return 0;
        if (c != '\\') { s->p++; continue; }
        if (s->end - s->p < 2) return 0;
        c = s->p[1];
        if (c == 'u') {
            if (s->end - s->p < 6 || !hex(s->p[2]) || !hex(s->p[3]) || !hex(s->p[4]) || !hex(s->p[5])) return 0;
            s->p += 6;
        } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't') {
            s->p += 2;
        } else {
            return 0;
        }
    }
    if (s->p >= s->end) return 0;
    *a = q;
    *n = s->p - q;
    s->p++;
    return 1;
}

static int digits(Scan *s) {
    const unsigned char *q = s->p;
    while (s->p < s->end && *s->p >= '0' && *s->p <= '9') s->p++;
    return s->p > q;
}

/* A JSON number, as the grammar has it. */
static int number(Scan *s) {
    if (*s->p == '-') s->p++;
    if (s->p < s->end && *s->p == '0') s->p++;
    else if (s->p >= s->end || *s->p < '1' || *s->p > '9' || !digits(s)) return 0;
    if (s->p < s->end && *s->p == '.') { s->p++; if (!digits(s)) return 0; }
    if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
        s->p++;
        if (s->p < s->end && (*s->p == '+' || *s->p == '-')) s->p++;
        if (!digits(s)) return 0;
    }
    return 1;
}

static int word(Scan *s, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n)) return 0;
    s->p += n;
    return 1;
}

/* Any JSON value, passed over (the head's members, which the Python decoder reads). */
static int skip_value(Scan *s) {
    const unsigned char *a;
    Py_ssize_t n;
    ws(s);
    if (s->p >= s->end) return 0;
    unsigned char c = *s->p;
    if (c == '"') return string_at(s, &a, &n);
    if (c == '{' || c == '[') {
        unsigned char close = c == '{' ? '}' : ']';
        if (++s->depth > LANE_DEPTH) return 0;
        s->p++;
        if (!eat(s, close)) {
            do {
                if (c == '{' && !(string_at(s, &a, &n) && eat(s, ':'))) return 0;
                if (!skip_value(s)) return 0;
            } while (eat(s, ','));
            if (!eat(s, close)) return 0;
        }
        s->depth--;
        return 1;
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number(s);
    return word(s, "true") || word(s, "false") || word(s, "null");
}

static int key_is(const unsigned char *a, Py_ssize_t n, const char *k) {
    return (size_t)n == strlen(k) && !memcmp(a, k, (size_t)n);
}

/* The next member's key, and its colon. */
static int member(Scan *s, const unsigned char **a, Py_ssize_t *n) {
    return string_at(s, a, n) && eat(s, ':');
}

static signed char TOKEN2[128][128], TOKEN10[128];
static PyObject *token_table; /* the dict TOKEN2 and TOKEN10 were made from */

/* The code tables from the token -> code dict (cards.CARD_OF), once. */
static int tokens_from(PyObject *cards) {
    if (cards == token_table) return 0;
    memset(TOKEN2, -1, sizeof TOKEN2);
    memset(TOKEN10, -1, sizeof TOKEN10);
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(cards, &pos, &k, &v)) {
        Py_ssize_t n;
        const char *t = PyUnicode_Check(k) ? PyUnicode_AsUTF8AndSize(k, &n) : NULL;
        long c = PyLong_Check(v) ? PyLong_AsLong(v) : -1;
        if (!t || c < 0 || c > 51) { PyErr_Clear(); continue; }
        if (n == 2 && t[0] > 0 && t[1] > 0) TOKEN2[(int)t[0]][(int)t[1]] = (signed char)c;
        else if (n == 3 && t[0] == '1' && t[1] == '0' && t[2] > 0) TOKEN10[(int)t[2]] = (signed char)c;
    }
    Py_INCREF(cards);
    Py_XSETREF(token_table, cards);
    return 0;
}

/* A card token: "XY" or "10Y" read in place (most of a record's bytes are these); -1 for anything
 * else, a token with an escape included, which the full path reads. */
static int card_at(Scan *s) {
    ws(s);
    const unsigned char *p = s->p;
    Py_ssize_t left = s->end - p;
    if (left >= 4 && p[0] == '"' && p[1] < 128 && p[2] < 128 && p[3] == '"') {
        s->p = p + 4;
        return TOKEN2[p[1]][p[2]];
    }
    if (left >= 5 && p[0] == '"' && p[1] == '1' && p[2] == '0' && p[3] < 128 && p[4] == '"') {
        s->p = p + 5;
        return TOKEN10[p[3]];
    }
    return -1;
}

/* Exactly `want` cards. */
static int cards_at(Scan *s, unsigned char *out, int want) {
    int n = 0;
    if (!eat(s, '[')) return 0;
    if (eat(s, ']')) return want == 0;
    do {
        int c = card_at(s);
        if (c < 0 || n >= want) return 0;
        out[n++] = (unsigned char)c;
    } while (eat(s, ','));
    return eat(s, ']') && n == want;
}

static int seat_at(Scan *s) {
    const unsigned char *a;
    Py_ssize_t n;
    if (!string_at(s, &a, &n)) return -1;
    for (int i = 0; i < 3; i++)
        if (n == s->name_len[i] && !memcmp(a, s->name[i], (size_t)n)) return i;
    return -1;
}

static int players_at(Scan *s) {
    if (!eat(s, '[')) return 0;
    for (int i = 0; i < 3; i++)
        if ((i && !eat(s, ',')) || !string_at(s, &s->name[i], &s->name_len[i])) return 0;
    return eat(s, ']');
}

static int hands_at(Scan *s, DealCodes *d) {
    int seen = 0;
    if (!eat(s, '{')) return 0;
    for (int i = 0; i < 3; i++) {
        int seat = (i && !eat(s, ',')) ? -1 : seat_at(s);
        if (seat < 0 || (seen & (1 << seat)) || !eat(s, ':') || !cards_at(s, d->hand[seat], 16)) return 0;
        seen |= 1 << seat;
    }
    return eat(s, '}');
}

/* An object of the given keys, each once and all of them; `one` reads the value of key k. */
typedef int (*MemberFn)(Scan *s, int k, void *into);

/* The keys read, as bits, or -1: an object of some of the given keys, each at most once. */
static int keys_at(Scan *s, const char *const *keys, int nkeys, MemberFn one, void *into) {
    const unsigned char *a;
    Py_ssize_t n;
    int seen = 0;
    if (!eat(s, '{')) return -1;
    do {
        if (!member(s, &a, &n)) return -1;
        int k = 0;
        while (k < nkeys && !key_is(a, n, keys[k])) k++;
        if (k == nkeys || (seen & (1 << k)) || !one(s, k, into)) return -1;
        seen |= 1 << k;
    } while (eat(s, ','));
    return eat(s, '}') ? seen : -1;
}

static int object_at(Scan *s, const char *const *keys, int nkeys, MemberFn one, void *into) {
    return keys_at(s, keys, nkeys, one, into) == (1 << nkeys) - 1;
}

static const char *const PASS_KEYS[] = {"from", "to", "card", "returned"};
static const char *const TRICK_KEYS[] = {"leader", "cards"};
static const char *const DEAL_KEYS[] = {"dealer", "hands", "kitty", "passes", "discards", "tricks"};

static int pass_member(Scan *s, int k, void *into) {
    unsigned char *p = (unsigned char *)into;
    int v = k < 2 ? seat_at(s) : card_at(s);
    p[k] = (unsigned char)v;
    return v >= 0;
}

static int trick_member(Scan *s, int k, void *into) {
    unsigned char *t = (unsigned char *)into;
    if (k == 1) return cards_at(s, t + 1, 3);
    int v = seat_at(s);
    t[0] = (unsigned char)v;
    return v >= 0;
}

/* A list of `want` objects (up to `most`, when most > 0), each read by object_at. */
static int objects_at(Scan *s, int want, int most, int *got, const char *const *keys, int nkeys, MemberFn one,
                      unsigned char *into, int stride) {
    int n = 0;
    if (!eat(s, '[')) return 0;
    if (!eat(s, ']')) {
        do {
            if (n >= (most ? most : want) || !object_at(s, keys, nkeys, one, into + n * stride)) return 0;
            n++;
        } while (eat(s, ','));
        if (!eat(s, ']')) return 0;
    }
    if (got) *got = n;
    return most ? 1 : n == want;
}

static int deal_member(Scan *s, int k, void *into) {
    DealCodes *d = (DealCodes *)into;
    switch (k) {
    case 0: return (d->dealer = seat_at(s)) >= 0;
    case 1: return hands_at(s, d);
    case 2: return cards_at(s, d->kitty, 4);
    case 3: return objects_at(s, 3, 0, NULL, PASS_KEYS, 4, pass_member, &d->pass[0][0], 4);
    case 4: return cards_at(s, d->discards, 4);
    default: return objects_at(s, 0, 16, &d->ntricks, TRICK_KEYS, 2, trick_member, &d->trick[0][0], 4);
    }
}

/* The deals, each as its block: all of DEAL_KEYS, or the dealer and the tricks alone (a record
 * of the play; *alone is then set). */
static int deals_at(Scan *s, Buf *blocks, int *alone) {
    unsigned char block[BLOCK];
    if (!eat(s, '[')) return 0;
    do {
        DealCodes d;
        memset(&d, 0, sizeof d);
        int keys = keys_at(s, DEAL_KEYS, 6, deal_member, &d);
        if (keys != 0x3F && keys != 0x21) return 0;
        memset(block, 0, sizeof block);
        block[ALONE] = keys == 0x21;
        *alone |= keys == 0x21;
        block[0] = (unsigned char)d.dealer;
        memcpy(block + 1, d.hand, 48);
        memcpy(block + 49, d.kitty, 4);
        memcpy(block + 53, d.discards, 4);
        memcpy(block + 57, d.pass, 12);
        block[69] = (unsigned char)d.ntricks;
        memcpy(block + 70, d.trick, 64);
        if (buf_put(blocks, block, BLOCK) < 0) return -1;
    } while (eat(s, ','));
    return eat(s, ']');
}

/* The record's members: deals into blocks, the others copied into the head. 1 plain, 0 not, -1 error. */
static int record_at(Scan *s, Buf *head, Buf *blocks, int *alone) {
    const unsigned char *a;
    Py_ssize_t n;
    int players = 0, deals = 0;
    if (!eat(s, '{')) return 0;
    if (buf_put(head, "{", 1) < 0) return -1;
    do {
        ws(s);
        const unsigned char *start = s->p;
        if (!member(s, &a, &n)) return 0;
        if (key_is(a, n, "deals")) {
            if (deals || !players) return 0;
            int r = deals_at(s, blocks, alone);
            if (r <= 0) return r;
            deals = 1;
            continue;
        }
        if (key_is(a, n, "players")) {
            if (players || !players_at(s)) return 0;
            players = 1;
        } else if (!skip_value(s)) {
            return 0;
        }
        if ((head->n > 1 && buf_put(head, ",", 1) < 0) || buf_put(head, start, s->p - start) < 0) return -1;
    } while (eat(s, ','));
    if (!eat(s, '}')) return 0;
    ws(s);
    if (s->p != s->end || !deals) return 0;
    return buf_put(head, "}", 1) < 0 ? -1 : 1;
}

static PyObject *lane_scan(PyObject *self, PyObject *args) {
    PyObject *text, *cards;
    if (!PyArg_ParseTuple(args, "UO!", &text, &PyDict_Type, &cards)) return NULL;
    Py_ssize_t len;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &len);
    if (!utf8) {
        PyErr_Clear(); /* a lone surrogate: the full path says what is wrong */
        Py_RETURN_NONE;
    }
    if (tokens_from(cards) < 0) return NULL;
    Scan s;
    memset(&s, 0, sizeof s);
    s.p = (const unsigned char *)utf8;
    s.end = s.p + len;
    Buf head = {NULL, 0, 0}, blocks = {NULL, 0, 0};
    int alone = 0;
    int r = record_at(&s, &head, &blocks, &alone);
    PyObject *out = NULL;
    if (r > 0)
        out = Py_BuildValue("y#y#O", head.b, head.n, blocks.b, blocks.n, alone ? Py_True : Py_False);
    else if (r == 0)
        out = Py_NewRef(Py_None);
    else
        PyErr_NoMemory();
    free(head.b);
    free(blocks.b);
    return out;
}

static void block_deal(const unsigned char *b, DealCodes *d) {
    d->dealer = b[0];
    memcpy(d->hand, b + 1, 48);
    memcpy(d->kitty, b + 49, 4);
    memcpy(d->discards, b + 53, 4);
    memcpy(d->pass, b + 57, 12);
    d->ntricks = b[69] > 16 ? 16 : b[69];
    memcpy(d->trick, b + 70, 64);
}

/* The deals' blocks tallied: ((dealer, won0, won1, won2, winners, decided), ...) for a game won with
 * nothing amiss; None when a deal needs the full replay, one is dealt out of turn (rotation left),
 * a deal short of its tricks is not the last, a deal follows the winning one, or nobody won. */
static PyObject *lane_replay(PyObject *self, PyObject *args) {
    const unsigned char *b;
    Py_ssize_t len;
    int highest, target, rotation, pickup;
    if (!PyArg_ParseTuple(args, "y#ppip", &b, &len, &highest, &rotation, &target, &pickup)) return NULL;
    if (len % BLOCK || !len) {
        PyErr_SetString(PyExc_ValueError, "the deals' blocks");
        return NULL;
    }
    Py_ssize_t n = len / BLOCK;
    PyObject *out = PyTuple_New(n);
    if (!out) return NULL;
    int prev = -1, over = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        DealCodes d;
        DealTally t;
        block_deal(b + i * BLOCK, &d);
        int tallied = b[i * BLOCK + ALONE] ? plain_play(&d, target, &t) : clean_codes(&d, highest, target, pickup, &t);
        if (over || (rotation && prev >= 0 && d.dealer != (prev + 1) % 3) || tallied < 0
            || (!t.decided && i + 1 < n && d.ntricks < 16)) {
            Py_DECREF(out);
            Py_RETURN_NONE;
        }
        prev = d.dealer;
        over = t.decided;
        PyObject *tally = tally_tuple(&t), *item = tally ? Py_BuildValue("iN", d.dealer, tally) : NULL;
        if (!item) { Py_DECREF(out); return NULL; } /* a failed build has released the tally */
        PyTuple_SET_ITEM(out, i, item);
    }
    if (!over) { Py_DECREF(out); Py_RETURN_NONE; }
    return out;
}

/* Attribute names of the decoder's structs, made once at import. */
static PyObject *S_hands, *S_dealer, *S_tricks, *S_passes, *S_claim, *S_by, *S_kitty, *S_discards;

/* ---- the archive's card lists: a deal's cards as codes, appended to flat columns ---- */

/* Append one offset (native int32, as Arrow's list offsets) to a bytearray of them. */
static int put_offset(PyObject *offsets, Py_ssize_t value) {
    Py_ssize_t at = PyByteArray_GET_SIZE(offsets);
    if (value > INT32_MAX) { PyErr_SetString(PyExc_OverflowError, "a column past 2**31 codes"); return -1; }
    if (PyByteArray_Resize(offsets, at + 4) < 0) return -1;
    int32_t v = (int32_t)value;
    memcpy(PyByteArray_AS_STRING(offsets) + at, &v, 4);
    return 0;
}

/* Append one byte a card (or a seat) of `items` to the bytearray `flat`, then flat's new length to
 * `inner`. `attr` NULL: the items themselves are looked up; else each item's attribute. */
static int append_codes(PyObject *flat, PyObject *inner, PyObject *items, PyObject *attr, PyObject *table) {
    PyObject *seq = PySequence_Fast(items, "a list was expected");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq), at = PyByteArray_GET_SIZE(flat);
    if (PyByteArray_Resize(flat, at + n) < 0) { Py_DECREF(seq); return -1; }
    char *out = PyByteArray_AS_STRING(flat) + at;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *key = PySequence_Fast_GET_ITEM(seq, i), *held = NULL;
        if (attr && !(key = held = PyObject_GetAttr(key, attr))) { Py_DECREF(seq); return -1; }
        PyObject *v = PyDict_GetItemWithError(table, key);
        if (!v) {
            if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, key);
            Py_XDECREF(held);
            Py_DECREF(seq);
            return -1;
        }
        Py_XDECREF(held);
        long c = PyLong_AsLong(v);
        if (c < 0 || c > 255) { Py_DECREF(seq); if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a code is 0-255"); return -1; }
        out[i] = (char)c;
    }
    Py_DECREF(seq);
    return put_offset(inner, at + n);
}

/* Append the number of lists in `inner` (the offsets of a deal's lists end there) to `outer`. */
static int append_end(PyObject *outer, PyObject *inner) {
    return put_offset(outer, PyByteArray_GET_SIZE(inner) / 4 - 1);
}

/* One column: (flat codes, inner offsets, outer offsets), three bytearrays (archive.staging.code_column). */
static int column(PyObject *cols, Py_ssize_t i, PyObject **flat, PyObject **inner, PyObject **outer) {
    PyObject *c = PyList_GET_ITEM(cols, i);
    if (!PyTuple_Check(c) || PyTuple_GET_SIZE(c) != 3 || !PyByteArray_Check(PyTuple_GET_ITEM(c, 0))
        || !PyByteArray_Check(PyTuple_GET_ITEM(c, 1)) || !PyByteArray_Check(PyTuple_GET_ITEM(c, 2))) {
        PyErr_SetString(PyExc_TypeError, "a column is three bytearrays (codes, offsets, offsets)");
        return -1;
    }
    *flat = PyTuple_GET_ITEM(c, 0); *inner = PyTuple_GET_ITEM(c, 1); *outer = PyTuple_GET_ITEM(c, 2);
    return 0;
}

static PyObject *deal_codes(PyObject *self, PyObject *args) {
    PyObject *deal, *players, *seats, *cards, *cols, *f, *in, *out, *v;
    Py_ssize_t n_tricks;
    if (!PyArg_ParseTuple(args, "OO!O!O!nO!", &deal, &PyTuple_Type, &players, &PyDict_Type, &seats,
                          &PyDict_Type, &cards, &n_tricks, &PyList_Type, &cols)) return NULL;
    if (PyList_GET_SIZE(cols) != 9) { PyErr_SetString(PyExc_ValueError, "nine columns"); return NULL; }
    /* kitty, discards */
    PyObject *simple[2] = {S_kitty, S_discards};
    for (int k = 0; k < 2; k++) {
        if (column(cols, k, &f, &in, &out) < 0 || !(v = PyObject_GetAttr(deal, simple[k]))) return NULL;
        int r = append_codes(f, in, v, NULL, cards);
        Py_DECREF(v);
        if (r < 0) return NULL;
    }
    /* hands, by seat */
    PyObject *hands = PyObject_GetAttr(deal, S_hands);
    if (!hands || column(cols, 2, &f, &in, &out) < 0) { Py_XDECREF(hands); return NULL; }
    for (Py_ssize_t s = 0; s < PyTuple_GET_SIZE(players); s++) {
        PyObject *h = PyObject_GetItem(hands, PyTuple_GET_ITEM(players, s));
        int r = h ? append_codes(f, in, h, NULL, cards) : -1;
        Py_XDECREF(h);
        if (r < 0) { Py_DECREF(hands); return NULL; }
    }
    Py_DECREF(hands);
    if (append_end(out, in) < 0) return NULL;
    /* passes: giver, receiver (seats), card, returned (codes) */
    PyObject *passes = PyObject_GetAttr(deal, S_passes);
    if (!passes) return NULL;
    PyObject *pass_attr[4] = {S_from, S_to, S_card, S_returned};
    for (int k = 0; k < 4; k++) {
        if (column(cols, 3 + k, &f, &in, &out) < 0
            || append_codes(f, in, passes, pass_attr[k], k < 2 ? seats : cards) < 0) { Py_DECREF(passes); return NULL; }
    }
    Py_DECREF(passes);
    /* the first n_tricks tricks: leaders (seats), cards (codes, a list a trick) */
    PyObject *all = PyObject_GetAttr(deal, S_tricks), *tricks = all ? PySequence_GetSlice(all, 0, n_tricks) : NULL;
    Py_XDECREF(all);
    if (!tricks) return NULL;
    PyObject *tf, *ti, *to;
    if (column(cols, 7, &f, &in, &out) < 0 || append_codes(f, in, tricks, S_leader, seats) < 0
        || column(cols, 8, &tf, &ti, &to) < 0) { Py_DECREF(tricks); return NULL; }
    PyObject *seq = PySequence_Fast(tricks, "tricks");
    Py_DECREF(tricks);
    if (!seq) return NULL;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *cs = PyObject_GetAttr(PySequence_Fast_GET_ITEM(seq, i), S_cards);
        int r = cs ? append_codes(tf, ti, cs, NULL, cards) : -1;
        Py_XDECREF(cs);
        if (r < 0) { Py_DECREF(seq); return NULL; }
    }
    Py_DECREF(seq);
    if (append_end(to, ti) < 0) return NULL;
    Py_RETURN_NONE;
}

/* ---- the reader's line count: newlines in a stretch of a buffer (a memory map), without a copy ---- */

static PyObject *count_lines(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t start, end;
    if (!PyArg_ParseTuple(args, "y*nn", &view, &start, &end)) return NULL;
    if (start < 0) start = 0;
    if (end > view.len) end = view.len;
    Py_ssize_t n = 0;
    const char *p = (const char *)view.buf + start, *stop = (const char *)view.buf + end;
    while (p < stop && (p = memchr(p, '\n', (size_t)(stop - p)))) { n++; p++; }
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(n);
}

/* ---- the archive's card lists from the lane's blocks (archive/staging.py's deal_codes is the reference) ---- */

/* Append n codes of src (one every `stride` bytes) to a column's flat bytes, then its new length to inner. */
static int put_codes(PyObject *flat, PyObject *inner, const unsigned char *src, Py_ssize_t n, int stride) {
    Py_ssize_t at = PyByteArray_GET_SIZE(flat);
    if (PyByteArray_Resize(flat, at + n) < 0) return -1;
    char *out = PyByteArray_AS_STRING(flat) + at;
    for (Py_ssize_t i = 0; i < n; i++) out[i] = (char)src[i * stride];
    return put_offset(inner, at + n);
}

/* Append `lists` lists of `each` codes (list j's i-th code at src[j * gap + i * stride]) to a
 * column's flat bytes, and each list's end to inner: each bytearray grown once, not once a list
 * (a deal's hands and tricks: 14 lists of a few bytes). */
static int put_lists(PyObject *flat, PyObject *inner, const unsigned char *src, Py_ssize_t lists,
                     Py_ssize_t each, int stride, int gap) {
    Py_ssize_t at = PyByteArray_GET_SIZE(flat), ends = PyByteArray_GET_SIZE(inner);
    if (at + lists * each > INT32_MAX) { PyErr_SetString(PyExc_OverflowError, "a column past 2**31 codes"); return -1; }
    if (PyByteArray_Resize(flat, at + lists * each) < 0 || PyByteArray_Resize(inner, ends + 4 * lists) < 0) return -1;
    char *out = PyByteArray_AS_STRING(flat) + at, *end = PyByteArray_AS_STRING(inner) + ends;
    for (Py_ssize_t j = 0; j < lists; j++) {
        for (Py_ssize_t i = 0; i < each; i++) *out++ = (char)src[j * gap + i * stride];
        int32_t v = (int32_t)(at + (j + 1) * each);
        memcpy(end + 4 * j, &v, 4);
    }
    return 0;
}

static PyObject *lane_codes(PyObject *self, PyObject *args) {
    const unsigned char *b;
    Py_ssize_t len, index, n_tricks;
    PyObject *cols, *f, *in, *out;
    if (!PyArg_ParseTuple(args, "y#nnO!", &b, &len, &index, &n_tricks, &PyList_Type, &cols)) return NULL;
    if (PyList_GET_SIZE(cols) != 9) { PyErr_SetString(PyExc_ValueError, "nine columns"); return NULL; }
    if (index < 0 || (index + 1) * BLOCK > len || n_tricks < 0 || n_tricks > b[index * BLOCK + 69]) {
        PyErr_SetString(PyExc_IndexError, "no such deal or trick in the blocks");
        return NULL;
    }
    if (b[index * BLOCK + ALONE]) { /* lane.py keeps no blocks of a record of the play */
        PyErr_SetString(PyExc_ValueError, "a deal that records its play alone has no hands to store");
        return NULL;
    }
    const unsigned char *d = b + index * BLOCK;
    /* kitty, discards, hands by seat, then the passes' giver, receiver, card, returned */
    static const int at[7] = {49, 53, 1, 57, 58, 59, 60};
    for (int k = 0; k < 7; k++) {
        if (column(cols, k, &f, &in, &out) < 0) return NULL;
        if (k == 2) {
            if (put_lists(f, in, d + 1, 3, 16, 1, 16) < 0 || append_end(out, in) < 0) return NULL;
        } else if (put_codes(f, in, d + at[k], k < 2 ? 4 : 3, k < 2 ? 1 : 4) < 0) {
            return NULL;
        }
    }
    /* the leaders and the cards of the first n_tricks tricks */
    if (column(cols, 7, &f, &in, &out) < 0 || put_codes(f, in, d + 70, n_tricks, 4) < 0) return NULL;
    if (column(cols, 8, &f, &in, &out) < 0 || put_lists(f, in, d + 71, n_tricks, 3, 1, 4) < 0
        || append_end(out, in) < 0) return NULL;
    Py_RETURN_NONE;
}

PyObject *fmn_game(PyObject *self, PyObject *arg); /* _fmn.c */

static PyMethodDef core_methods[] = {
    {"fmn_game", fmn_game, METH_O,
     "fmn_game(text): the JSON text of the record a game's lines of notation hold, its 'game' line first, or None "
     "for a game the reference must read (notation.read_games is the reference)."},
    {"lane_codes", lane_codes, METH_VARARGS,
     "lane_codes(blocks, index, n_tricks, columns): append deal `index` of the lane's blocks, its first n_tricks "
     "tricks, to the archive's nine flat columns as deal_codes does (archive.staging.deal_codes is the reference)."},
    {"count_lines", count_lines, METH_VARARGS,
     "count_lines(buffer, start, end): the newlines in buffer[start:end] (chunks.count_lines is the reference)."},
    {"clean_deal", clean_deal, METH_VARARGS,
     "clean_deal(hands, kitty, passes, discards, tricks, seats, dealer, highest, target, cards, pickup=False): "
     "(won0, won1, won2, winners, decided) for a deal with nothing amiss, else None (engine.py replays in full); "
     "hands, kitty, passes and discards all None for a record of the play alone."},
    {"deal_codes", deal_codes, METH_VARARGS,
     "deal_codes(deal, players, seats, cards, n_tricks, columns): append a deal's kitty, discards, hands, "
     "passes and first n_tricks tricks as codes to the archive's nine flat columns (archive.staging.deal_codes is the reference)."},
    {"lane_scan", lane_scan, METH_VARARGS,
     "lane_scan(text, cards): (head, blocks, any deal recording its play alone) for a plain record's text, else None (lane.py: the full path is the reference)."},
    {"lane_replay", lane_replay, METH_VARARGS,
     "lane_replay(blocks, highest, rotation_left, target, pickup): each deal's (dealer, (won0, won1, won2, winners, "
     "decided)) for a game won with nothing amiss, else None (lane.py: the full path is the reference)."},
    {"claim_line", claim_line, METH_VARARGS,
     "claim_line(h0, h1, h2, leader, trick, t0, t1, t2, played, target, x, k, best_play): the cards of a "
     "line that stops x from taking the next k tricks, or None when the claim holds."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "_core", "foreman's compiled core: fast paths of the ending solver (solver.py is the reference) and of the replay.", -1,
    core_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void) {
#if defined(__POPCNT__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    /* Built to count bits with the popcnt instruction (setup.py): on a processor without it, no core. */
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("popcnt")) {
        PyErr_SetString(PyExc_ImportError, "foreman's core was built for processors with popcnt");
        return NULL;
    }
#endif
#if defined(__BMI2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    /* Built to pack bits with BMI2's pext and pdep (setup.py): on a processor without them, no core. */
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("bmi2")) {
        PyErr_SetString(PyExc_ImportError, "foreman's core was built for processors with BMI2");
        return NULL;
    }
#endif
    if (PyType_Ready(&ParanoidType) < 0) return NULL;
    struct { PyObject **slot; const char *name; } names[] = {
        {&S_from, "from_"}, {&S_to, "to"}, {&S_card, "card"}, {&S_returned, "returned"}, {&S_leader, "leader"},
        {&S_cards, "cards"}, {&S_hands, "hands"}, {&S_dealer, "dealer"}, {&S_tricks, "tricks"},
        {&S_passes, "passes"}, {&S_claim, "claim"}, {&S_by, "by"}, {&S_kitty, "kitty"}, {&S_discards, "discards"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!(*names[i].slot = PyUnicode_InternFromString(names[i].name))) return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (!m) return NULL;
    Py_INCREF(&ParanoidType);
    if (PyModule_AddObject(m, "Paranoid", (PyObject *)&ParanoidType) < 0) {
        Py_DECREF(&ParanoidType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
