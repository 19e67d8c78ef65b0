/* The .fmn notation's common lines read into a record's JSON text in one pass: a fast path of
 * notation.py, which is the reference. Whatever this does not read exactly as the reference does
 * (a quoted string, a note, a card in symbols, any line the reference would call an error), it
 * leaves to the reference by returning None; what it returns equals the reference's record as
 * json.dumps(record, ensure_ascii=False, separators=(",", ":")) writes it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 192
#define MAX_NAMES 8 /* hands in one deal: more goes to the reference */

typedef struct {
    char *b;
    Py_ssize_t n, cap;
} Text;

typedef struct {
    const char *p;
    Py_ssize_t n;
    int quoted; /* written in double quotes: never a keyword nor a separator */
} Tok;

static int grow(Text *t, Py_ssize_t more) {
    if (t->n + more <= t->cap) return 0;
    Py_ssize_t cap = t->cap ? t->cap : 256;
    while (cap < t->n + more) cap *= 2;
    char *b = (char *)realloc(t->b, (size_t)cap);
    if (!b) return -1;
    t->b = b;
    t->cap = cap;
    return 0;
}

static int put(Text *t, const char *s, Py_ssize_t n) {
    if (n <= 0) return 0; /* an empty token may point nowhere, and memcpy must not be given NULL */
    if (grow(t, n) < 0) return -1;
    memcpy(t->b + t->n, s, (size_t)n);
    t->n += n;
    return 0;
}

static int put_s(Text *t, const char *s) { return put(t, s, (Py_ssize_t)strlen(s)); }

/* A token as a JSON string: tokens hold no control character, so only a backslash and a quote
 * need their escapes. */
static int put_json(Text *t, Tok k) {
    if (grow(t, 2 * k.n + 2) < 0) return -1;
    t->b[t->n++] = '"';
    for (Py_ssize_t i = 0; i < k.n; i++) {
        if (k.p[i] == '\\' || k.p[i] == '"') t->b[t->n++] = '\\';
        t->b[t->n++] = k.p[i];
    }
    t->b[t->n++] = '"';
    return 0;
}

static int text_is(Tok k, const char *s) { return (Py_ssize_t)strlen(s) == k.n && memcmp(k.p, s, (size_t)k.n) == 0; }
/* A keyword or separator: written without quotes. */
static int is(Tok k, const char *s) { return !k.quoted && text_is(k, s); }
static int same(Tok a, Tok b) { return a.n == b.n && memcmp(a.p, b.p, (size_t)a.n) == 0; }

/* Whether the UTF-8 sequence at p is a character Python counts as white space (U+0085, U+00A0,
 * U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000): the reference splits words at
 * it, so a line holding one is left to the reference. */
static int unicode_space(const unsigned char *p, const unsigned char *end) {
    if (p[0] == 0xC2) return p + 1 < end && (p[1] == 0x85 || p[1] == 0xA0);
    if (p + 2 >= end) return 0;
    if (p[0] == 0xE1) return p[1] == 0x9A && p[2] == 0x80;
    if (p[0] == 0xE2 && p[1] == 0x80) return p[2] <= 0x8A || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF;
    if (p[0] == 0xE2 && p[1] == 0x81) return p[2] == 0x9F;
    if (p[0] == 0xE3) return p[1] == 0x80 && p[2] == 0x80;
    return 0;
}

/* A quoted string's escapes \\, \" and \/ written out into `arena` (the others go to the
 * reference); the token then points there. */
static int unescape(Tok *k, char **arena) {
    char *out = *arena;
    for (Py_ssize_t i = 0; i < k->n; i++) {
        char c = k->p[i];
        if (c == '\\') {
            c = k->p[++i];
            if (c != '\\' && c != '"' && c != '/') return -1;
        }
        *out++ = c;
    }
    k->p = *arena;
    k->n = out - *arena;
    *arena = out;
    return 0;
}

/* A line's tokens as the reference cuts it: words, quoted strings, ';' and '/', up to a '#' outside
 * quotes. -1 for a line left to the reference (a control character, a Unicode space, a quoted
 * string without its end or with an escape other than \\ \" \/, too many tokens). */
static int tokens(const char *line, const char *end, Tok *out, char **arena) {
    const unsigned char *p = (const unsigned char *)line, *e = (const unsigned char *)end;
    int n = 0;
    while (p < e) {
        unsigned char c = *p;
        if (c == ' ' || c == '\t') { p++; continue; }
        if (c == '#') break;
        if (c < 0x20 || n == MAX_TOKENS) return -1;
        const unsigned char *q = p;
        int escaped = 0;
        out[n].quoted = c == '"';
        if (c == '"') {
            q = ++p;
            while (p < e && *p != '"') {
                if (*p < 0x20) return -1;
                if (*p == '\\') escaped = 1, p++;
                if (p < e) p++;
            }
            if (p >= e) return -1;
        } else if (c == ';' || c == '/') {
            p++;
        } else {
            while (p < e && *p != ' ' && *p != '\t' && *p != '#' && *p != ';' && *p != '/' && *p != '"') {
                if (*p < 0x20) return -1;
                if (*p >= 0x80 && unicode_space(p, e)) return -1;
                p++;
            }
        }
        out[n].p = (const char *)q;
        out[n].n = (Py_ssize_t)(p - q);
        if (escaped && unescape(&out[n], arena) < 0) return -1;
        n++;
        if (c == '"') p++; /* past the closing quote */
    }
    return n;
}

static const char *const RANK_TEXT[13] = {"2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"};
static const char SUIT_TEXT[4] = {'S', 'H', 'D', 'C'};

static int suit_of_char(char c) {
    switch (c) {
    case 'S': case 's': return 0;
    case 'H': case 'h': return 1;
    case 'D': case 'd': return 2;
    case 'C': case 'c': return 3;
    default: return -1;
    }
}

/* A bare rank as the reference takes one (upper-cased, one of 2-10 J Q K A): its index, or -1. */
static int rank_of(const char *p, Py_ssize_t n) {
    if (n == 2) return p[0] == '1' && p[1] == '0' ? 8 : -1;
    if (n != 1) return -1;
    char c = p[0];
    if (c >= '2' && c <= '9') return c - '2';
    switch (c) {
    case 'J': case 'j': return 9;
    case 'Q': case 'q': return 10;
    case 'K': case 'k': return 11;
    case 'A': case 'a': return 12;
    default: return -1;
    }
}

/* A full card in English letters, any case (10S, qh): suit * 13 + rank, or -1. */
static int card_of(Tok k) {
    if (k.n < 2) return -1;
    int s = suit_of_char(k.p[k.n - 1]), r = rank_of(k.p, k.n - 1);
    return s < 0 || r < 0 ? -1 : s * 13 + r;
}

static int put_card(Text *t, int c) {
    char b[6];
    int n = 0;
    const char *r = RANK_TEXT[c % 13];
    b[n++] = '"';
    while (*r) b[n++] = *r++;
    b[n++] = SUIT_TEXT[c / 13];
    b[n++] = '"';
    return put(t, b, n);
}

/* ASCII digits (what the reference takes for a whole number), written as Python's int() then
 * json.dumps would: without leading zeros. */
static int digits(Tok k) {
    if (k.n == 0) return 0;
    for (Py_ssize_t i = 0; i < k.n; i++)
        if (k.p[i] < '0' || k.p[i] > '9') return 0;
    return 1;
}

static int put_int(Text *t, Tok k) {
    Py_ssize_t i = 0;
    while (i < k.n - 1 && k.p[i] == '0') i++;
    return put(t, k.p + i, k.n - i);
}

/* A list of cards (hand, kitty, discard, left): full cards, or a suit letter then bare ranks. */
static int put_cards(Text *t, const Tok *k, int n, int allow_none) {
    if (put_s(t, "[") < 0) return -1;
    if (!(allow_none && n == 1 && is(k[0], "none"))) {
        int suit = -1, first = 1;
        for (int i = 0; i < n; i++) {
            if (k[i].n == 1 && suit_of_char(k[i].p[0]) >= 0) {
                suit = suit_of_char(k[i].p[0]);
                continue;
            }
            int r = rank_of(k[i].p, k[i].n);
            int c = r >= 0 && suit >= 0 ? suit * 13 + r : card_of(k[i]);
            if (c < 0) return -1;
            if ((!first && put_s(t, ",") < 0) || put_card(t, c) < 0) return -1;
            first = 0;
        }
    }
    return put_s(t, "]");
}

enum { K_ID, K_PLAYERS, K_STAKE, K_CURRENCY, K_SERIES, K_PLAYED, K_RULES, K_CLAIMED, N_HEAD };
static const char *const HEAD_KEY[N_HEAD] = {"id", "players", "stake", "currency", "series", "played_at", "rules",
                                             "claimed"};
enum { C_WINNER, C_TRICKS, C_PAY, N_CLAIMED };
static const char *const CLAIMED_KEY[N_CLAIMED] = {"winner", "tricks", "payments"};
enum { P_HANDS, P_KITTY, P_DISCARDS, P_PASSES, P_CLAIM, P_LEFT, N_PARTS };
static const char *const PART_KEY[N_PARTS] = {"hands", "kitty", "discards", "passes", "claim", "left"};

/* The parts of an object written in the order their first line came, each its own text. */
#define MAX_KINDS 8 /* N_HEAD, the most of the three */
typedef struct {
    int order[MAX_KINDS], n_order, seen;
    Text part[MAX_KINDS];
} Parts;

/* A part's text, opened the first time (-1: a part that may be written once, written again). */
static Text *part(Parts *o, int k, int once) {
    if (o->seen & (1 << k)) return once ? NULL : &o->part[k];
    o->seen |= 1 << k;
    o->order[o->n_order++] = k;
    o->part[k].n = 0;
    return &o->part[k];
}

static void parts_free(Parts *o) {
    for (int k = 0; k < MAX_KINDS; k++) free(o->part[k].b);
}

typedef struct {
    Tok players[3];
    Parts head, claimed, deal;
    Tok rotation; /* the rules' deal_rotation as written; none: "left" */
    int has_rotation;
    Text deals, tricks;
    int n_deals, n_tricks, due;
    Tok dealer, hand_names[MAX_NAMES];
    int n_hands, play_only, claims;
} Game;

static int seat_of(const Game *g, Tok k) {
    if (!(g->head.seen & (1 << K_PLAYERS))) return -1;
    for (int i = 0; i < 3; i++)
        if (same(g->players[i], k)) return i;
    return -1;
}

static int one_value(Game *g, int key, const Tok *a, int n) {
    Text *t = n == 1 ? part(&g->head, key, 1) : NULL;
    return t ? put_json(t, a[0]) : -1;
}

static int rules_line(Game *g, const Tok *a, int n) {
    Text *t = part(&g->head, K_RULES, 1);
    if (!t || put_s(t, "{") < 0) return -1;
    for (int i = 0; i < n; i++) {
        const char *eq = memchr(a[i].p, '=', (size_t)a[i].n);
        if (!eq) return -1;
        Tok key = {a[i].p, eq - a[i].p, 0}, value = {eq + 1, a[i].n - (eq + 1 - a[i].p), 0};
        for (int j = 0; j < i; j++) /* a key given twice: the reference keeps the last, in the first's place */
            if ((const char *)memchr(a[j].p, '=', (size_t)a[j].n) - a[j].p == key.n
                && memcmp(a[j].p, key.p, (size_t)key.n) == 0)
                return -1;
        if ((i && put_s(t, ",") < 0) || put_json(t, key) < 0 || put_s(t, ":") < 0) return -1;
        if (is(key, "deal_rotation")) g->rotation = value, g->has_rotation = 1;
        if ((is(key, "target") && digits(value) ? put_int(t, value) : put_json(t, value)) < 0) return -1;
    }
    return put_s(t, "}");
}

static int claimed_line(Game *g, const Tok *a, int n) {
    part(&g->head, K_CLAIMED, 0);
    if (n == 0) return 0;
    const Tok *r = a + 1;
    int m = n - 1;
    Text *t;
    if (text_is(a[0], "winner")) {
        if (m != 1 || !(t = part(&g->claimed, C_WINNER, 1))) return -1;
        return is(r[0], "-") ? put_s(t, "null") : put_json(t, r[0]);
    }
    if (text_is(a[0], "tricks")) {
        if (m % 2 || !(t = part(&g->claimed, C_TRICKS, 1)) || put_s(t, "{") < 0) return -1;
        for (int i = 0; i < m; i += 2) {
            for (int j = 0; j < i; j += 2)
                if (same(r[j], r[i])) return -1;
            if (!digits(r[i + 1]) || (i && put_s(t, ",") < 0) || put_json(t, r[i]) < 0 || put_s(t, ":") < 0
                || put_int(t, r[i + 1]) < 0)
                return -1;
        }
        return put_s(t, "}");
    }
    if (!text_is(a[0], "pay")) return -1;
    int none = m == 1 && is(r[0], "none"), had = g->claimed.seen & (1 << C_PAY);
    t = part(&g->claimed, C_PAY, 0);
    if (had && (none || !t->n)) return -1; /* 'none' beside a payment: the reference says which line */
    if (none) return 0;
    if (m != 3) return -1;
    return (t->n && put_s(t, ",") < 0) || put_s(t, "{\"from\":") < 0 || put_json(t, r[0]) < 0 || put_s(t, ",\"to\":") < 0
                   || put_json(t, r[1]) < 0 || put_s(t, ",\"amount\":") < 0 || put_json(t, r[2]) < 0 || put_s(t, "}") < 0
               ? -1 : 0;
}

static int game_line(Game *g, Tok kw, const Tok *a, int n) {
    if (is(kw, "players")) {
        Text *t = n == 3 ? part(&g->head, K_PLAYERS, 1) : NULL;
        if (!t) return -1;
        memcpy(g->players, a, sizeof g->players);
        return put_s(t, "[") < 0 || put_json(t, a[0]) < 0 || put_s(t, ",") < 0 || put_json(t, a[1]) < 0
                       || put_s(t, ",") < 0 || put_json(t, a[2]) < 0 || put_s(t, "]") < 0 ? -1 : 0;
    }
    if (is(kw, "stake")) {
        if (n < 1 || n > 2 || one_value(g, K_STAKE, a, 1) < 0) return -1;
        return n == 2 ? one_value(g, K_CURRENCY, a + 1, 1) : 0;
    }
    if (is(kw, "currency")) return one_value(g, K_CURRENCY, a, n);
    if (is(kw, "played")) return one_value(g, K_PLAYED, a, n);
    if (is(kw, "series")) {
        Text *t = n == 2 && digits(a[1]) ? part(&g->head, K_SERIES, 1) : NULL;
        return !t || put_s(t, "{\"id\":") < 0 || put_json(t, a[0]) < 0 || put_s(t, ",\"seq\":") < 0
                       || put_int(t, a[1]) < 0 || put_s(t, "}") < 0 ? -1 : 0;
    }
    if (is(kw, "rules")) return rules_line(g, a, n);
    if (is(kw, "claimed")) return claimed_line(g, a, n);
    return -1; /* game, cards, note, ext: the reference */
}

/* The deal being read, written out: its dealer, tricks, then its parts in the order they came. */
static int end_deal(Game *g) {
    if (!g->n_deals) return 0;
    Text *t = &g->deals;
    Parts *d = &g->deal;
    if ((g->n_deals > 1 && put_s(t, ",") < 0) || put_s(t, "{\"dealer\":") < 0 || put_json(t, g->dealer) < 0
        || put_s(t, ",\"tricks\":[") < 0 || put(t, g->tricks.b, g->tricks.n) < 0 || put_s(t, "]") < 0)
        return -1;
    for (int i = 0; i < d->n_order; i++) {
        int k = d->order[i];
        int list = k == P_PASSES, map = k == P_HANDS;
        if (put_s(t, ",\"") < 0 || put_s(t, PART_KEY[k]) < 0 || put_s(t, "\":") < 0
            || (list && put_s(t, "[") < 0) || (map && put_s(t, "{") < 0)
            || put(t, d->part[k].b, d->part[k].n) < 0 || (list && put_s(t, "]") < 0) || (map && put_s(t, "}") < 0))
            return -1;
    }
    if (put_s(t, "}") < 0) return -1;
    int full = (d->seen & 0xF) == 0xF; /* hands, kitty, discards, passes */
    if (!full || (d->seen & (1 << P_LEFT))) g->play_only = 1;
    if (d->seen & (1 << P_CLAIM)) g->claims = 1;
    return 0;
}

static int deal_line(Game *g, const Tok *a, int n) {
    if (!(g->head.seen & (1 << K_PLAYERS)) || n > 1) return -1;
    Tok dealer;
    if (n == 1) {
        dealer = a[0];
    } else {
        if (!g->n_deals || (g->has_rotation && !is(g->rotation, "left"))) return -1;
        int s = seat_of(g, g->dealer);
        dealer = s >= 0 ? g->players[(s + 1) % 3] : g->dealer;
    }
    if (end_deal(g) < 0) return -1;
    g->n_deals++;
    g->dealer = dealer;
    g->tricks.n = 0;
    g->n_tricks = g->n_hands = 0;
    g->deal.n_order = g->deal.seen = 0;
    int s = seat_of(g, dealer);
    g->due = s >= 0 ? (s + 1) % 3 : -1;
    return 0;
}

static int left_line(Game *g, const Tok *a, int n) {
    Text *t = part(&g->deal, P_LEFT, 1);
    int start[3], end[3], groups = 0, from = 0;
    if (!t) return -1;
    for (int i = 0; i <= n; i++) {
        if (i < n && !is(a[i], "/")) continue;
        if (groups == 3 || i == from) return -1;
        start[groups] = from, end[groups] = i, groups++;
        from = i + 1;
    }
    if (groups != 3 || same(a[start[0]], a[start[1]]) || same(a[start[0]], a[start[2]])
        || same(a[start[1]], a[start[2]]) || put_s(t, "{") < 0)
        return -1;
    for (int k = 0; k < 3; k++)
        if ((k && put_s(t, ",") < 0) || put_json(t, a[start[k]]) < 0 || put_s(t, ":") < 0
            || put_cards(t, a + start[k] + 1, end[k] - start[k] - 1, 0) < 0)
            return -1;
    return put_s(t, "}");
}

static int part_line(Game *g, Tok kw, const Tok *a, int n) {
    Text *t;
    if (is(kw, "hand")) {
        if (n < 1 || g->n_hands == MAX_NAMES) return -1;
        for (int i = 0; i < g->n_hands; i++)
            if (same(g->hand_names[i], a[0])) return -1;
        g->hand_names[g->n_hands++] = a[0];
        t = part(&g->deal, P_HANDS, 0);
        return (t->n && put_s(t, ",") < 0) || put_json(t, a[0]) < 0 || put_s(t, ":") < 0
                       || put_cards(t, a + 1, n - 1, 0) < 0 ? -1 : 0;
    }
    if (is(kw, "kitty") || is(kw, "discard")) {
        t = part(&g->deal, is(kw, "kitty") ? P_KITTY : P_DISCARDS, 1);
        return t ? put_cards(t, a, n, 1) : -1;
    }
    if (is(kw, "pass")) {
        t = part(&g->deal, P_PASSES, 0);
        if (n == 1 && is(a[0], "none")) return 0;
        int c = n == 4 ? card_of(a[2]) : -1, r = n == 4 ? card_of(a[3]) : -1;
        return c < 0 || r < 0 || (t->n && put_s(t, ",") < 0) || put_s(t, "{\"from\":") < 0 || put_json(t, a[0]) < 0
                       || put_s(t, ",\"to\":") < 0 || put_json(t, a[1]) < 0 || put_s(t, ",\"card\":") < 0
                       || put_card(t, c) < 0 || put_s(t, ",\"returned\":") < 0 || put_card(t, r) < 0
                       || put_s(t, "}") < 0 ? -1 : 0;
    }
    if (is(kw, "claim")) {
        if ((n != 2 && n != 3) || !(text_is(a[1], "contested") || text_is(a[1], "accepted"))) return -1;
        if (!(t = part(&g->deal, P_CLAIM, 1))) return -1;
        if (put_s(t, "{\"by\":") < 0 || put_json(t, a[0]) < 0
            || put_s(t, text_is(a[1], "accepted") ? ",\"accepted\":true" : ",\"accepted\":false") < 0)
            return -1;
        if (n == 3 && (put_s(t, ",\"statement\":") < 0 || put_json(t, a[2]) < 0)) return -1;
        return put_s(t, "}");
    }
    return left_line(g, a, n);
}

/* One trick of a trick line: [N.] [LEADER: | LEADER :] CARDS, or '-' for a trick of no cards. */
static int trick(Game *g, const Tok *k, int m) {
    int n = g->n_tricks + 1, i = 0;
    if (m && !k[0].quoted && k[0].n > 1 && k[0].p[k[0].n - 1] == '.') {
        Tok num = {k[0].p, k[0].n - 1, 0};
        if (digits(num)) {
            Py_ssize_t z = 0;
            while (z < num.n - 1 && num.p[z] == '0') z++;
            if (num.n - z > 9 || atoi(num.p + z) != n) return -1; /* atoi stops at the '.' */
            i = 1;
        }
    }
    Tok leader = {NULL, 0, 0};
    if (i < m && !k[i].quoted && k[i].n && k[i].p[k[i].n - 1] == ':') {
        leader.p = k[i].p, leader.n = k[i].n - 1, i++;
    } else if (m - i > 1 && is(k[i + 1], ":")) {
        leader = k[i], i += 2;
    } else {
        if (g->due < 0) return -1;
        leader = g->players[g->due];
    }
    int cards[MAX_TOKENS], nc = 0;
    if (!(m - i == 1 && is(k[i], "-"))) {
        if (i == m || (cards[nc++] = card_of(k[i++])) < 0) return -1;
        int suit = cards[0] / 13;
        for (; i < m; i++) {
            int r = rank_of(k[i].p, k[i].n);
            if ((cards[nc++] = r >= 0 ? suit * 13 + r : card_of(k[i])) < 0) return -1;
        }
    }
    Text *t = &g->tricks;
    if ((g->n_tricks && put_s(t, ",") < 0) || put_s(t, "{\"leader\":") < 0 || put_json(t, leader) < 0
        || put_s(t, ",\"cards\":[") < 0)
        return -1;
    for (int j = 0; j < nc; j++)
        if ((j && put_s(t, ",") < 0) || put_card(t, cards[j]) < 0) return -1;
    if (put_s(t, "]}") < 0) return -1;
    g->n_tricks = n;
    int seat = seat_of(g, leader);
    if (seat < 0) {
        g->due = -1;
    } else if (nc) { /* the highest card of the suit led wins (board.trick_winner) */
        int best = cards[0], w = seat;
        for (int j = 1; j < nc; j++)
            if (cards[j] / 13 == cards[0] / 13 && cards[j] > best) best = cards[j], w = (seat + j) % 3;
        g->due = w;
    }
    return 0;
}

static int trick_line(Game *g, const Tok *k, int n) {
    if (!g->n_deals) return -1;
    int from = 0;
    for (int i = 0; i <= n; i++) {
        if (i < n && is(k[i], "/")) return -1;
        if (i < n && !is(k[i], ";")) continue;
        if (i > from && trick(g, k + from, i - from) < 0) return -1;
        from = i + 1;
    }
    return 0;
}

static int line(Game *g, const Tok *k, int n) {
    Tok kw = k[0];
    const Tok *a = k + 1;
    if (is(kw, "deal")) return deal_line(g, a, n - 1);
    if (is(kw, "hand") || is(kw, "kitty") || is(kw, "discard") || is(kw, "pass") || is(kw, "claim")
        || is(kw, "left"))
        return g->n_deals ? part_line(g, kw, a, n - 1) : -1;
    if (is(kw, "game") || is(kw, "players") || is(kw, "stake") || is(kw, "currency") || is(kw, "series")
        || is(kw, "played") || is(kw, "rules") || is(kw, "cards") || is(kw, "note") || is(kw, "ext")
        || is(kw, "claimed"))
        return game_line(g, kw, a, n - 1);
    return trick_line(g, k, n);
}

static int put_record(Game *g, Text *out) {
    const char *format = g->play_only ? "foreman/1.2" : g->claims ? "foreman/1.1" : "foreman/1";
    if (put_s(out, "{\"format\":\"") < 0 || put_s(out, format) < 0 || put_s(out, "\"") < 0) return -1;
    for (int i = 0; i < g->head.n_order; i++) {
        int k = g->head.order[i];
        if (put_s(out, ",\"") < 0 || put_s(out, HEAD_KEY[k]) < 0 || put_s(out, "\":") < 0) return -1;
        if (k != K_CLAIMED) {
            if (put(out, g->head.part[k].b, g->head.part[k].n) < 0) return -1;
            continue;
        }
        if (put_s(out, "{") < 0) return -1;
        for (int j = 0; j < g->claimed.n_order; j++) {
            int c = g->claimed.order[j];
            if ((j && put_s(out, ",") < 0) || put_s(out, "\"") < 0 || put_s(out, CLAIMED_KEY[c]) < 0
                || put_s(out, c == C_PAY ? "\":[" : "\":") < 0 || put(out, g->claimed.part[c].b, g->claimed.part[c].n) < 0
                || (c == C_PAY && put_s(out, "]") < 0))
                return -1;
        }
        if (put_s(out, "}") < 0) return -1;
    }
    return put_s(out, ",\"deals\":[") < 0 || put(out, g->deals.b, g->deals.n) < 0 || put_s(out, "]}") < 0 ? -1 : 0;
}

/* Read a game's lines (its `game` line first) into the record's JSON; -1 where the reference must. */
static int read_game(const char *text, Py_ssize_t size, Game *g, Text *out, char *arena) {
    Tok k[MAX_TOKENS];
    const char *p = text, *end = text + size;
    int first = 1;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        int n = tokens(p, eol, k, &arena);
        if (n < 0) return -1;
        if (first && n) {
            if (!is(k[0], "game") || n != 2) return -1;
            Text *t = part(&g->head, K_ID, 1);
            if (put_json(t, k[1]) < 0) return -1;
            first = 0;
        } else if (n && line(g, k, n) < 0) {
            return -1;
        }
        p = eol + 1;
    }
    if (first || end_deal(g) < 0) return -1;
    return put_record(g, out);
}

PyObject *fmn_game(PyObject *self, PyObject *arg) {
    (void)self;
    Py_ssize_t size;
    const char *text = PyUnicode_AsUTF8AndSize(arg, &size);
    if (!text) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return NULL;
        PyErr_Clear(); /* a lone surrogate: the reference says what it is */
        Py_RETURN_NONE;
    }
    Game *g = (Game *)calloc(1, sizeof(Game));
    char *arena = (char *)malloc((size_t)size + 1); /* unescaped strings: never longer than written */
    Text out = {0};
    if (!g || !arena) {
        free(g);
        free(arena);
        return PyErr_NoMemory();
    }
    int ok = read_game(text, size, g, &out, arena) == 0;
    PyObject *res = ok ? PyUnicode_DecodeUTF8(out.b, out.n, "strict") : (Py_INCREF(Py_None), Py_None);
    parts_free(&g->head);
    parts_free(&g->claimed);
    parts_free(&g->deal);
    free(g->deals.b);
    free(g->tricks.b);
    free(out.b);
    free(arena);
    free(g);
    return res;
}
