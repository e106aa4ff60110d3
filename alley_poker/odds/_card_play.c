/* The card play of the fast odds engine, compiled: alley_poker/odds/rollout.py's play_cards
 * and alley_poker/odds/compact.py's HandJudge, rule for rule, over a batch of runs.
 *
 * Why C: after the balls were made cheap, the card play was two thirds of a warm run's CPU
 * (a draw per card, a hand judged per card loss and per showdown), and CPython spends most
 * of that on interpreting, not on the rules.  The Python original stays the reference: the
 * engine falls back to it when this module is not built, and the tests hold the two to the
 * same winners, run for run, on every recorded state (tests/odds/test_compiled_card_play.py).
 *
 * Same picks, same order: every random choice is int(random() * n) with random() CPython's
 * own Mersenne Twister (genrand_res53), started from the state of the Python generator the
 * caller passes, so a batch played here and the same batch played by play_cards with that
 * generator give the same winners, bit for bit.
 *
 * The hand values are hand_keys.natural_key and key_with_wilds over the four 13-bit suit
 * masks, with hand_tables' lookup tables handed over once by setup(): the same integer keys.
 *
 * Layouts (all int32, built by alley_poker/odds/compiled.py):
 *   start: seats, flags, evaluator flags, first-strike bonus, pot cents, good joker, armed
 *          jokers (bit 0: 52, bit 1: 53), first-strike games (bit g), pile count, the pile;
 *          per seat: hole, acquired, first drawn, handicap series, hand count, the hand;
 *          decisions count, (kind, seat) per decision.
 *   runs:  per run, per seat: series, events count, the events (ascending).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MASKS 8192
#define ALL_RANKS 0x1FFFu
#define ACE 14
#define JOKER_A 52
#define JOKER_B 53
#define MAX_SEATS 16
#define MAX_CARDS 64
#define MAX_EVENTS 4096

#define CAT(c) ((uint32_t)(c) << 20)
enum { HIGH_CARD = 1, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS,
       STRAIGHT_FLUSH, FIVE_OF_A_KIND, UNBEATABLE };
#define UNBEATABLE_KEY CAT(UNBEATABLE)
#define NO_COPIES 1
#define WILDS_CAPPED 2

/* flags of the start */
#define FREAKY 1
#define COURTESY 2
#define LOW_DRAW 4
#define MORGAN 8
#define ODD_TO_FIRST 16

#define LOSE_CARD 0
#define END_DRAW 2

static uint32_t TOP[6][MASKS];        /* hand_tables.TOP_RANKS */
static uint32_t GAPS[5][MASKS];       /* hand_tables.STRAIGHT_WITH_GAPS */
static uint8_t CARD_SUIT[52], CARD_RANK[52];  /* suit block (C D H S), rank - 2 */
static uint8_t CARD_ORDER[52];        /* the evaluator's order of cards: rank, then suit */
static uint32_t ACES[6];
static int ready = 0;

/* ---- CPython's Mersenne Twister (Modules/_randommodule.c) ---------------------------- */

#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t state[MT_N];
    int index;
} Twister;

static uint32_t genrand_uint32(Twister *t)
{
    static const uint32_t mag01[2] = {0x0u, 0x9908b0dfu};
    uint32_t y, *mt = t->state;
    if (t->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (mt[kk] & 0x80000000u) | (mt[kk + 1] & 0x7fffffffu);
            mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 1u];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (mt[kk] & 0x80000000u) | (mt[kk + 1] & 0x7fffffffu);
            mt[kk] = mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 1u];
        }
        y = (mt[MT_N - 1] & 0x80000000u) | (mt[0] & 0x7fffffffu);
        mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 1u];
        t->index = 0;
    }
    y = mt[t->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
}

/* int(random() * n), as rollout's pick makes it */
static int pick(Twister *t, int n)
{
    uint32_t a = genrand_uint32(t) >> 5, b = genrand_uint32(t) >> 6;
    double r = (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
    return (int)(r * (double)n);
}

/* ---- hand values: hand_keys.natural_key and key_with_wilds ----------------------------- */

typedef struct {
    uint32_t suit[4];
    int count;          /* natural cards */
    int wild, dead;     /* the good joker, the bad one */
} Hand;

static inline int popcount(uint32_t x) { return __builtin_popcount(x); }
static inline int bit_length(uint32_t x) { return x ? 32 - __builtin_clz(x) : 0; }
static inline uint32_t max_u(uint32_t a, uint32_t b) { return a > b ? a : b; }

static void best_flush(const uint32_t *s, uint32_t *flush, uint32_t *straight_flush)
{
    *flush = *straight_flush = 0;
    for (int i = 0; i < 4; i++)
        if (popcount(s[i]) >= 5) {
            *flush = max_u(*flush, TOP[5][s[i]]);
            *straight_flush = max_u(*straight_flush, GAPS[0][s[i]]);
        }
}

static uint32_t natural_key(const uint32_t *s, int count)
{
    uint32_t c = s[0], d = s[1], h = s[2], sp = s[3];
    uint32_t ranks = c | d | h | sp;
    int distinct = popcount(ranks);
    int flushy = popcount(c) >= 5 || popcount(d) >= 5 || popcount(h) >= 5 || popcount(sp) >= 5;
    uint32_t flush = 0, straight_flush, straight;
    if (distinct == count) {
        if (distinct >= 5) {
            if (flushy) {
                best_flush(s, &flush, &straight_flush);
                if (straight_flush)
                    return CAT(STRAIGHT_FLUSH) | straight_flush << 16;
                return CAT(FLUSH) | flush;
            }
            straight = GAPS[0][ranks];
            if (straight)
                return CAT(STRAIGHT) | straight << 16;
        }
        return count ? (CAT(HIGH_CARD) | TOP[5][ranks]) : 0;
    }
    if (distinct >= 5 && flushy) {
        best_flush(s, &flush, &straight_flush);
        if (straight_flush)
            return CAT(STRAIGHT_FLUSH) | straight_flush << 16;
    }
    uint32_t cd = c & d, hs = h & sp, c_or_d = c | d, h_or_s = h | sp;
    uint32_t pairs = cd | hs | (c_or_d & h_or_s);
    uint32_t trips = (cd & h_or_s) | (hs & c_or_d);
    uint32_t rank = 0, rank_bit = 0;
    if (trips) {
        uint32_t quads = cd & hs;
        if (quads) {
            rank = TOP[1][quads];
            return CAT(QUADS) | rank << 16 | TOP[1][ranks ^ (1u << (rank - 2))] << 12;
        }
        rank = TOP[1][trips];
        rank_bit = 1u << (rank - 2);
        if (pairs ^ rank_bit)
            return CAT(FULL_HOUSE) | rank << 16 | TOP[1][pairs ^ rank_bit] << 12;
    }
    if (flush)
        return CAT(FLUSH) | flush;
    if (distinct >= 5) {
        straight = GAPS[0][ranks];
        if (straight)
            return CAT(STRAIGHT) | straight << 16;
    }
    if (trips)
        return CAT(TRIPS) | rank << 16 | TOP[2][ranks ^ rank_bit] << 8;
    uint32_t high = TOP[1][pairs], high_bit = 1u << (high - 2), rest = pairs ^ high_bit;
    if (rest) {
        uint32_t low = TOP[1][rest];
        return CAT(TWO_PAIR) | high << 16 | low << 12
               | TOP[1][ranks ^ high_bit ^ (1u << (low - 2))] << 8;
    }
    return CAT(PAIR) | high << 16 | TOP[3][ranks ^ high_bit] << 4;
}

static uint32_t key_with_wilds(const uint32_t *s, int count, int wilds, int flags)
{
    if (!wilds)
        return natural_key(s, count);
    uint32_t c = s[0], d = s[1], h = s[2], sp = s[3];
    uint32_t ranks = c | d | h | sp;
    uint32_t cd = c & d, hs = h & sp, c_or_d = c | d, h_or_s = h | sp;
    uint32_t held[5] = {ALL_RANKS, ranks, cd | hs | (c_or_d & h_or_s),
                        (cd & h_or_s) | (hs & c_or_d), cd & hs};
    int total = count + wilds;
    int copies = !(flags & NO_COPIES);
    uint32_t rank;

    if (total >= 5) {
        if (copies) {
            rank = wilds >= 5 ? ACE : TOP[1][held[5 - wilds]];
            if (rank)
                return CAT(FIVE_OF_A_KIND) | rank << 16;
        }
        if (wilds >= 5)
            return CAT(STRAIGHT_FLUSH) | (uint32_t)ACE << 16;
        uint32_t top = 0;
        for (int i = 0; i < 4; i++)
            top = max_u(top, GAPS[wilds][s[i]]);
        if (top)
            return CAT(STRAIGHT_FLUSH) | top << 16;
    }

    rank = wilds >= 4 ? ACE : TOP[1][held[4 - wilds]];
    if (rank) {
        uint32_t rank_bit = 1u << (rank - 2);
        int held_suits = !!(c & rank_bit) + !!(d & rank_bit) + !!(h & rank_bit)
                         + !!(sp & rank_bit);
        int spare = wilds - (4 - held_suits);
        uint32_t kicker = spare > 0 ? (rank == ACE ? 13 : ACE)
                                    : TOP[1][ranks & ~rank_bit & ALL_RANKS];
        return CAT(QUADS) | rank << 16 | kicker << 12;
    }

    if (total >= 5) {
        uint32_t pairs = held[2];
        if (wilds == 1 && (pairs & (pairs - 1))) {
            uint32_t high = TOP[1][pairs];
            return CAT(FULL_HOUSE) | high << 16 | TOP[1][pairs ^ (1u << (high - 2))] << 12;
        }
        uint32_t flush = 0;
        for (int i = 0; i < 4; i++) {
            if (popcount(s[i]) + wilds < 5)
                continue;
            if (copies) {
                flush = max_u(flush, ACES[wilds] | TOP[5 - wilds][s[i]]);
            } else {
                uint32_t filled = s[i];
                for (int w = 0; w < wilds; w++) {
                    uint32_t missing = ALL_RANKS ^ filled;
                    if (missing)
                        filled |= 1u << (bit_length(missing) - 1);
                }
                flush = max_u(flush, TOP[5][filled]);
            }
        }
        if (flush)
            return CAT(FLUSH) | flush;
        uint32_t top = GAPS[wilds][ranks];
        if (top)
            return CAT(STRAIGHT) | top << 16;
    }

    rank = wilds >= 3 ? ACE : TOP[1][held[3 - wilds]];
    if (rank)
        return CAT(TRIPS) | rank << 16 | TOP[2][ranks & ~(1u << (rank - 2)) & ALL_RANKS] << 8;
    rank = wilds >= 2 ? ACE : TOP[1][ranks];
    if (rank)
        return CAT(PAIR) | rank << 16 | TOP[3][ranks & ~(1u << (rank - 2)) & ALL_RANKS] << 4;
    return CAT(HIGH_CARD) | (uint32_t)ACE << 16;  /* a lone wild is an ace */
}

/* compact.HandJudge._coded */
static uint32_t hand_key(const Hand *hand, int flags)
{
    if (hand->wild && hand->dead)
        return UNBEATABLE_KEY;
    if (hand->wild || hand->dead) {
        int wilds = hand->wild;
        if (flags & WILDS_CAPPED && wilds > hand->count)
            wilds = hand->count;
        if (flags & NO_COPIES && wilds > 52 - hand->count)
            wilds = 52 - hand->count;
        return key_with_wilds(hand->suit, hand->count, wilds, flags);
    }
    return natural_key(hand->suit, hand->count);
}

static void read_hand(Hand *out, const int *cards, int n, int good)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < n; i++) {
        int card = cards[i];
        if (card < JOKER_A) {
            out->suit[CARD_SUIT[card]] |= 1u << CARD_RANK[card];
            out->count++;
        } else if (card == good) {
            out->wild++;
        } else {
            out->dead++;
        }
    }
}

/* compact.HandJudge.automatic_loss: the card whose loss leaves the strongest hand, the
 * lowest of equals (the bad joker, the good one, then the naturals by the evaluator's
 * order); the first whose loss keeps the whole hand's value is the answer. */
static int automatic_loss(const int *cards, int n, int good, int flags)
{
    Hand whole_hand, less;
    read_hand(&whole_hand, cards, n, good);
    uint32_t whole = hand_key(&whole_hand, flags), value, best_value = 0;
    int bad = good == JOKER_A ? JOKER_B : JOKER_A, best = -1;
    if (whole_hand.dead) {
        less = whole_hand;
        less.dead--;
        value = hand_key(&less, flags);
        if (value == whole)
            return bad;
        best_value = value;
        best = bad;
    }
    if (whole_hand.wild) {
        less = whole_hand;
        less.wild--;
        value = hand_key(&less, flags);
        if (value == whole)
            return good;
        if (best < 0 || value > best_value) {
            best_value = value;
            best = good;
        }
    }
    int naturals[MAX_CARDS], count = 0;
    for (int i = 0; i < n; i++) {
        int card = cards[i];
        if (card >= JOKER_A)
            continue;
        int at = count++;
        while (at > 0 && CARD_ORDER[naturals[at - 1]] > CARD_ORDER[card]) {
            naturals[at] = naturals[at - 1];
            at--;
        }
        naturals[at] = card;
    }
    for (int i = 0; i < count; i++) {
        int card = naturals[i];
        less = whole_hand;
        less.suit[CARD_SUIT[card]] &= ~(1u << CARD_RANK[card]);
        less.count--;
        value = hand_key(&less, flags);
        if (value == whole)
            return card;
        if (best < 0 || value > best_value) {
            best_value = value;
            best = card;
        }
    }
    return best;
}

/* ---- one run's card play: rollout.play_cards ----------------------------------------- */

typedef struct {
    int seats, flags, eval_flags, bonus, good, armed;
    uint32_t first_strike;
    int pile_n, pile[MAX_CARDS];
    int hand_n[MAX_SEATS], hand[MAX_SEATS][MAX_CARDS];
    int hole[MAX_SEATS], acquired[MAX_SEATS], first_drawn[MAX_SEATS];
    Twister *rng;
} Table;

static int joker_bit(int card) { return card == JOKER_A ? 1 : 2; }

static void draw(Table *t, int seat, int count)
{
    int *hand = t->hand[seat];
    for (int k = 0; k < count; k++) {
        int card;
        if (t->hole[seat] < 0) {
            t->hole[seat]++;
            continue;
        }
        if (t->pile_n) {
            int index = pick(t->rng, t->pile_n);
            card = t->pile[index];
            t->pile[index] = t->pile[--t->pile_n];
            if (t->armed && card >= JOKER_A && (t->armed & joker_bit(card))) {
                /* drawing an armed joker swaps the powers and disarms every armed joker */
                t->good = t->good == JOKER_A ? JOKER_B : JOKER_A;
                t->armed = 0;
            }
        } else {
            /* the pile stays empty for this call's draws: once one takes nothing, so do
             * the rest */
            if (!(t->flags & COURTESY))
                break;
            int most = 0, at_most = 0;
            for (int other = 0; other < t->seats; other++) {
                if (t->hand_n[other] > most) {
                    most = t->hand_n[other];
                    at_most = 1;
                } else if (t->hand_n[other] == most) {
                    at_most++;
                }
            }
            if (!most || (t->hand_n[seat] == most && at_most == 1))
                break;
            int candidates[MAX_SEATS], n = 0;
            for (int other = 0; other < t->seats; other++)
                if (other != seat && t->hand_n[other] == most)
                    candidates[n++] = other;
            int victim = n == 1 ? candidates[0] : candidates[pick(t->rng, n)];
            int *from = t->hand[victim];
            int index = pick(t->rng, most);
            card = from[index];
            memmove(from + index, from + index + 1, (size_t)(most - index - 1) * sizeof(int));
            t->hand_n[victim]--;
            if (t->acquired[seat] == 0)
                t->first_drawn[seat] = -1;  /* a card taken is no Morgan Maneuver */
            t->acquired[seat]++;
            hand[t->hand_n[seat]++] = card;
            continue;
        }
        if (t->acquired[seat] == 0)
            t->first_drawn[seat] = card;
        t->acquired[seat]++;
        hand[t->hand_n[seat]++] = card;
    }
}

static void give_back(Table *t, int seat, int card)
{
    int *hand = t->hand[seat], n = t->hand_n[seat];
    for (int i = 0; i < n; i++)
        if (hand[i] == card) {
            memmove(hand + i, hand + i + 1, (size_t)(n - i - 1) * sizeof(int));
            break;
        }
    t->hand_n[seat]--;
    t->pile[t->pile_n++] = card;
    if (t->flags & FREAKY && card >= JOKER_A)
        t->armed |= joker_bit(card);
}

static void lose_automatic(Table *t, int seat)
{
    if (t->hand_n[seat])
        give_back(t, seat, automatic_loss(t->hand[seat], t->hand_n[seat], t->good,
                                          t->eval_flags));
    else
        t->hole[seat]--;
}

static int holds(const Table *t, int seat, int card)
{
    for (int i = 0; i < t->hand_n[seat]; i++)
        if (t->hand[seat][i] == card)
            return 1;
    return 0;
}

/* HandJudge.value: the Morgan Maneuver, else the evaluator's */
static uint32_t showdown_value(const Table *t, int seat)
{
    if (t->flags & MORGAN && t->acquired[seat] == 1 && t->first_drawn[seat] >= JOKER_A
            && holds(t, seat, t->first_drawn[seat]))
        return UNBEATABLE_KEY;
    Hand hand;
    read_hand(&hand, t->hand[seat], t->hand_n[seat], t->good);
    return hand_key(&hand, t->eval_flags);
}

static void end_draw(Table *t, int seat)
{
    if (showdown_value(t, seat) != UNBEATABLE_KEY)
        draw(t, seat, 1);
}

/* ---- the batch ------------------------------------------------------------------------ */

typedef struct {
    const int32_t *data;
    Py_ssize_t n, at;
    int bad;
} Reader;

static int next_int(Reader *r)
{
    if (r->at >= r->n) {
        r->bad = 1;
        return 0;
    }
    return r->data[r->at++];
}

static PyObject *play_runs(PyObject *self, PyObject *args)
{
    Py_buffer start_buf, runs_buf, mt_buf;
    Py_ssize_t runs;
    int mt_index;
    if (!ready) {
        PyErr_SetString(PyExc_RuntimeError, "setup() has not been given the tables");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "y*y*nw*i", &start_buf, &runs_buf, &runs, &mt_buf, &mt_index))
        return NULL;
    PyObject *result = NULL;
    Table start, *t = NULL;
    Twister twister;
    Reader r = {start_buf.buf, start_buf.len / 4, 0, 0};
    memset(&start, 0, sizeof start);
    int decisions[2 * 64], decision_n, handicap[MAX_SEATS];

    if (mt_buf.len != MT_N * 4) {
        PyErr_SetString(PyExc_ValueError, "the generator's state is 624 words");
        goto done;
    }
    memcpy(twister.state, mt_buf.buf, sizeof twister.state);
    twister.index = mt_index;

    start.seats = next_int(&r);
    start.flags = next_int(&r);
    start.eval_flags = next_int(&r);
    start.bonus = next_int(&r);
    int pot = next_int(&r);
    start.good = next_int(&r);
    start.armed = next_int(&r);
    start.first_strike = (uint32_t)next_int(&r);
    start.pile_n = next_int(&r);
    if (start.seats < 1 || start.seats > MAX_SEATS || start.pile_n < 0
            || start.pile_n > MAX_CARDS) {
        PyErr_SetString(PyExc_ValueError, "a start of 1-16 seats and at most 64 cards");
        goto done;
    }
    for (int i = 0; i < start.pile_n; i++)
        start.pile[i] = next_int(&r);
    for (int seat = 0; seat < start.seats; seat++) {
        start.hole[seat] = next_int(&r);
        start.acquired[seat] = next_int(&r);
        start.first_drawn[seat] = next_int(&r);
        handicap[seat] = next_int(&r);
        start.hand_n[seat] = next_int(&r);
        if (start.hand_n[seat] < 0 || start.hand_n[seat] > MAX_CARDS) {
            PyErr_SetString(PyExc_ValueError, "a hand of at most 64 cards");
            goto done;
        }
        for (int i = 0; i < start.hand_n[seat]; i++)
            start.hand[seat][i] = next_int(&r);
    }
    decision_n = next_int(&r);
    if (decision_n < 0 || decision_n > 64) {
        PyErr_SetString(PyExc_ValueError, "at most 64 open decisions");
        goto done;
    }
    for (int i = 0; i < 2 * decision_n; i++)
        decisions[i] = next_int(&r);
    if (r.bad) {
        PyErr_SetString(PyExc_ValueError, "the start is cut short");
        goto done;
    }

    int seats = start.seats;
    double wins[MAX_SEATS] = {0}, cents[MAX_SEATS] = {0};
    t = PyMem_Malloc(sizeof *t);
    if (!t) {
        PyErr_NoMemory();
        goto done;
    }
    Reader runs_reader = {runs_buf.buf, runs_buf.len / 4, 0, 0};
    int events[MAX_EVENTS];
    int seat_from[MAX_SEATS], seat_to[MAX_SEATS], series[MAX_SEATS];
    for (Py_ssize_t run = 0; run < runs; run++) {
        /* each seat's script: its series and its events, in the order they are bowled */
        int event_n = 0;
        for (int seat = 0; seat < seats; seat++) {
            series[seat] = next_int(&runs_reader);
            int count = next_int(&runs_reader);
            if (count < 0 || event_n + count > MAX_EVENTS) {
                runs_reader.bad = 1;
                break;
            }
            seat_from[seat] = event_n;
            for (int i = 0; i < count; i++)
                events[event_n++] = next_int(&runs_reader);
            seat_to[seat] = event_n;
        }
        if (runs_reader.bad) {
            PyErr_SetString(PyExc_ValueError, "the runs are cut short or malformed");
            goto done;
        }
        memcpy(t, &start, sizeof *t);
        t->rng = &twister;

        for (int i = 0; i < decision_n; i++) {
            int kind = decisions[2 * i], seat = decisions[2 * i + 1];
            if (kind == LOSE_CARD)
                lose_automatic(t, seat);
            else if (kind == END_DRAW)
                end_draw(t, seat);
            /* a steal lapses and a buy is declined: nothing moves */
        }
        /* the seats' events merged (each seat's are ascending): the order they are bowled */
        for (;;) {
            int next_seat = -1;
            uint32_t lowest = 0;
            for (int seat = 0; seat < seats; seat++)
                if (seat_from[seat] < seat_to[seat]) {
                    uint32_t event = (uint32_t)events[seat_from[seat]];
                    if (next_seat < 0 || event < lowest) {
                        lowest = event;
                        next_seat = seat;
                    }
                }
            if (next_seat < 0)
                break;
            seat_from[next_seat]++;
            uint32_t event = lowest;
            int seat = (event >> 8) & 15;
            if (event & 60)
                draw(t, seat, (event >> 2) & 15);
            if (event & 2 && t->bonus) {
                uint32_t game = event >> 16;
                uint32_t bit = game < 32 ? 1u << game : 0;
                if (bit && !(t->first_strike & bit)) {
                    t->first_strike |= bit;
                    draw(t, seat, t->bonus);
                }
            }
            if (event & 1) {
                int bad = t->good == JOKER_A ? JOKER_B : JOKER_A;
                if (holds(t, seat, t->good))
                    give_back(t, seat, t->good);
                else if (holds(t, seat, bad))
                    give_back(t, seat, bad);
                else
                    lose_automatic(t, seat);
            }
        }
        if (t->flags & LOW_DRAW) {
            int low = 0;
            for (int seat = 0; seat < seats; seat++) {
                int judged = series[seat] + handicap[seat];
                if (seat == 0 || judged < low)
                    low = judged;
            }
            for (int seat = 0; seat < seats; seat++)
                if (series[seat] + handicap[seat] == low)
                    end_draw(t, seat);
        }
        uint32_t values[MAX_SEATS], best = 0;
        for (int seat = 0; seat < seats; seat++) {
            values[seat] = showdown_value(t, seat);
            if (seat == 0 || values[seat] > best)
                best = values[seat];
        }
        int winners = 0, first = -1;
        for (int seat = 0; seat < seats; seat++)
            if (values[seat] == best) {
                winners++;
                if (first < 0)
                    first = seat;
            }
        int share = pot / winners, odd = pot % winners;
        for (int seat = 0; seat < seats; seat++)
            if (values[seat] == best) {
                wins[seat] += 1.0 / winners;
                cents[seat] += (double)(share + (seat == first && odd && t->flags & ODD_TO_FIRST
                                                 ? odd : 0));
            }
    }
    if (runs_reader.at != runs_reader.n) {
        PyErr_SetString(PyExc_ValueError, "the runs hold more than the count given");
        goto done;
    }
    result = PyTuple_New(2);
    if (!result)
        goto done;
    PyObject *win_list = PyList_New(seats), *cent_list = PyList_New(seats);
    if (!win_list || !cent_list) {
        Py_XDECREF(win_list);
        Py_XDECREF(cent_list);
        Py_CLEAR(result);
        goto done;
    }
    for (int seat = 0; seat < seats; seat++) {
        PyList_SET_ITEM(win_list, seat, PyFloat_FromDouble(wins[seat]));
        PyList_SET_ITEM(cent_list, seat, PyFloat_FromDouble(cents[seat]));
    }
    PyTuple_SET_ITEM(result, 0, win_list);
    PyTuple_SET_ITEM(result, 1, cent_list);
    /* the generator's state after the batch, for the caller to carry on from */
    memcpy(mt_buf.buf, twister.state, sizeof twister.state);
    PyObject *with_index = Py_BuildValue("(Ni)", result, twister.index);
    result = with_index;
done:
    PyMem_Free(t);
    PyBuffer_Release(&start_buf);
    PyBuffer_Release(&runs_buf);
    PyBuffer_Release(&mt_buf);
    return result;
}

static PyObject *setup(PyObject *self, PyObject *args)
{
    Py_buffer buf;
    if (!PyArg_ParseTuple(args, "y*", &buf))
        return NULL;
    Py_ssize_t want = (6 + 5) * MASKS + 3 * 52;
    if (buf.len != want * 4) {
        PyBuffer_Release(&buf);
        return PyErr_Format(PyExc_ValueError, "the tables are %zd words, not %zd",
                            buf.len / 4, want);
    }
    const uint32_t *words = buf.buf;
    memcpy(TOP, words, sizeof TOP);
    words += 6 * MASKS;
    memcpy(GAPS, words, sizeof GAPS);
    words += 5 * MASKS;
    for (int card = 0; card < 52; card++) {
        CARD_SUIT[card] = (uint8_t)words[card];
        CARD_RANK[card] = (uint8_t)words[52 + card];
        CARD_ORDER[card] = (uint8_t)words[104 + card];
    }
    for (int k = 0; k < 6; k++) {
        ACES[k] = 0;
        for (int i = 0; i < k; i++)
            ACES[k] |= (uint32_t)ACE << (4 * (4 - i));
    }
    ready = 1;
    PyBuffer_Release(&buf);
    Py_RETURN_NONE;
}

static PyObject *hand_value(PyObject *self, PyObject *args)
{
    Py_buffer buf;
    int good, flags;
    if (!PyArg_ParseTuple(args, "y*ii", &buf, &good, &flags))
        return NULL;
    Hand hand;
    int n = (int)(buf.len / 4);
    if (n > MAX_CARDS) {
        PyBuffer_Release(&buf);
        return PyErr_Format(PyExc_ValueError, "a hand of at most %d cards", MAX_CARDS);
    }
    read_hand(&hand, buf.buf, n, good);
    PyBuffer_Release(&buf);
    return PyLong_FromUnsignedLong(hand_key(&hand, flags));
}

static PyObject *lose_card(PyObject *self, PyObject *args)
{
    Py_buffer buf;
    int good, flags;
    if (!PyArg_ParseTuple(args, "y*ii", &buf, &good, &flags))
        return NULL;
    int n = (int)(buf.len / 4);
    if (n < 1 || n > MAX_CARDS) {
        PyBuffer_Release(&buf);
        return PyErr_Format(PyExc_ValueError, "a hand of 1 to %d cards", MAX_CARDS);
    }
    int card = automatic_loss(buf.buf, n, good, flags);
    PyBuffer_Release(&buf);
    return PyLong_FromLong(card);
}


/* ---- a seat's balls: scripts.seat_script over ball_tables' tables ------------------------ */

#define FULL_RACK 1023
#define FRAMES 88
#define KINDS 10
#define CLASSES 32
#define MAX_LEAVES 64

/* ball_tables.FRAME_OUTCOMES: kind (0 open, 1 spare, 2 strike), pins, second, lost, gutter */
static int FRAME_OUTCOME[FRAMES][5];
/* ball_tables._KIND_LEAVES: each kind's leaves (masks) and running totals */
static int KIND_N[KINDS], KIND_LEAVE[KINDS][MAX_LEAVES];
static double KIND_TOTAL[KINDS][MAX_LEAVES];
/* ball_tables._CLASS_OF, as an index into a table's (gutter, clear) pairs */
static int CLASS_OF[FULL_RACK + 1];
/* ball_tables._miss_leaves of every mask: its leaves (descending subsets) and totals */
static int MISS_AT[FULL_RACK + 2];
static int *MISS_LEAVE;
static double *MISS_TOTAL;
static int bowl_ready = 0;

/* A game's form as ball_tables.BallTable holds it (compiled.table_words). */
typedef struct {
    double foul, gutter, strike;
    double kinds[KINDS];
    double frames[FRAMES];
    double later[CLASSES][2];   /* per conversion class: gutter, clear (running totals) */
} FormTable;

static double uniform(Twister *t)
{
    uint32_t a = genrand_uint32(t) >> 5, b = genrand_uint32(t) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* bisect.bisect_right */
static int bisect_right(const double *totals, int n, double u)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (u < totals[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo < n ? lo : n - 1;
}

/* BallTable.ball: pins down, the mask left, foul, gutter */
static void table_ball(const FormTable *f, int mask, Twister *t, int *pins, int *after,
                       int *foul, int *gutter)
{
    double u = uniform(t);
    *foul = *gutter = 0;
    if (u < f->foul) {
        *pins = 0;
        *after = mask;
        *foul = 1;
        return;
    }
    if (mask == FULL_RACK) {
        if (u < f->gutter) {
            *pins = 0;
            *after = mask;
            *gutter = 1;
            return;
        }
        if (u < f->strike) {
            *pins = 10;
            *after = 0;
            return;
        }
        int kind = bisect_right(f->kinds, KINDS, u);
        int n = KIND_N[kind];
        const double *totals = KIND_TOTAL[kind];
        *after = KIND_LEAVE[kind][bisect_right(totals, n, uniform(t) * totals[n - 1])];
        *pins = 10 - popcount((uint32_t)*after);
        return;
    }
    const double *later = f->later[CLASS_OF[mask]];
    if (u < later[0]) {
        *pins = 0;
        *after = mask;
        *gutter = 1;
        return;
    }
    if (u < later[1]) {
        *pins = popcount((uint32_t)mask);
        *after = 0;
        return;
    }
    int from = MISS_AT[mask], n = MISS_AT[mask + 1] - from;
    const double *totals = MISS_TOTAL + from;
    *after = MISS_LEAVE[from + bisect_right(totals, n, uniform(t) * totals[n - 1])];
    *pins = popcount((uint32_t)mask) - popcount((uint32_t)*after);
}

typedef struct { int pins, strike, spare; } Credited;

/* scripts.game_score (of a whole game: a ball past the last counts 0, never read) */
static int game_score(const Credited *balls, int n)
{
#define PINS_AT(i) ((i) < n ? balls[(i)].pins : 0)
    int total = 0, index = 0;
    for (int frame = 0; frame < 9 && index < n; frame++) {
        if (balls[index].strike) {
            total += 10 + PINS_AT(index + 1) + PINS_AT(index + 2);
            index += 1;
        } else {
            int spare = index + 1 < n && balls[index + 1].spare;
            total += spare ? 10 + PINS_AT(index + 2) : balls[index].pins + PINS_AT(index + 1);
            index += 2;
        }
    }
    for (; index < n; index++)
        total += balls[index].pins;
    return total;
#undef PINS_AT
}

enum { STREAK_NONE, STREAK_STRIKE, STREAK_SPARE };
enum { OPEN_FRAME, SPARE_FRAME, STRIKE_FRAME };

/* bowl(position, rules, forms, twister) -> bytes: the seat's series, its events' count and
 * its events (uint32), as fast.py packs a seat's script.  position: game, frame, ball,
 * full rack, standing mask, rack's first ball, balls in game, series, streak kind, streak
 * cards, seat, credited count, then (pins, strike, spare) per credited ball; rules: games,
 * strike cards, spare cards, streak cap, streaks span games, full-rack gutters, scores;
 * forms: one FormTable (bytes) per game left; twister: 624 words and the index. */
static PyObject *bowl(PyObject *self, PyObject *args)
{
    Py_buffer pos_buf, rules_buf, twister_buf;
    PyObject *forms;
    if (!bowl_ready) {
        PyErr_SetString(PyExc_RuntimeError, "setup_balls() has not been called");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "y*y*O!w*", &pos_buf, &rules_buf, &PyTuple_Type, &forms,
                          &twister_buf))
        return NULL;
    PyObject *result = NULL;
    uint32_t out[2 + 4 * 64];
    Credited credited[32];
    const int32_t *pos = pos_buf.buf, *rules = rules_buf.buf;
    Twister *t = NULL;
    if (pos_buf.len < 12 * 4 || rules_buf.len != 7 * 4
            || twister_buf.len != (MT_N + 1) * 4) {
        PyErr_SetString(PyExc_ValueError, "bowl(): the position, rules or twister is malformed");
        goto done;
    }
    /* the twister's words are followed by its index: one buffer, changed in place */
    t = (Twister *)twister_buf.buf;
    int game = pos[0], frame = pos[1], number = pos[2], full = pos[3], mask = pos[4];
    int first = pos[5], in_game = pos[6], series = pos[7], streak = pos[8], streak_due = pos[9];
    int seat = pos[10], credited_n = pos[11];
    int games = rules[0], strike_cards = rules[1], spare_cards = rules[2], cap = rules[3];
    int spans = rules[4], full_rack_gutters = rules[5], scores = rules[6];
    int event_n = 0;
    if (credited_n < 0 || credited_n > 21 || pos_buf.len != (12 + 3 * credited_n) * 4
            || mask < 0 || mask > FULL_RACK || seat < 0 || seat > 15) {
        PyErr_SetString(PyExc_ValueError, "bowl(): the position is malformed");
        goto done;
    }
    if (PyTuple_GET_SIZE(forms) < games - game) {
        PyErr_SetString(PyExc_ValueError, "bowl(): a form for every game left");
        goto done;
    }
    for (int i = 0; i < credited_n; i++) {
        credited[i].pins = pos[12 + 3 * i];
        credited[i].strike = pos[13 + 3 * i];
        credited[i].spare = pos[14 + 3 * i];
    }
    int form_at = 0;
    const FormTable *f = NULL;
    if (game < games) {
        PyObject *bytes = PyTuple_GET_ITEM(forms, 0);
        if (!PyBytes_Check(bytes) || PyBytes_GET_SIZE(bytes) != sizeof(FormTable)) {
            PyErr_SetString(PyExc_ValueError, "bowl(): a form is a FormTable's bytes");
            goto done;
        }
        f = (const FormTable *)PyBytes_AS_STRING(bytes);
    }
    uint32_t head = (((uint32_t)(game + 1) << 4 | frame) << 4) | seat;
    while (game < games) {
        if (event_n > 4 * 64 - 4 || credited_n > 21) {
            PyErr_SetString(PyExc_ValueError, "bowl(): a game of more balls than a game has");
            goto done;
        }
        if (number == 1 && frame < 10) {
            const int *o = FRAME_OUTCOME[bisect_right(f->frames, FRAMES, uniform(t))];
            int kind = o[0], pins = o[1], second = o[2], lost = o[3], gutter = o[4];
            int previous = (in_game || spans) ? streak : STREAK_NONE;
            int due;
            if (kind == STRIKE_FRAME) {
                due = strike_cards;
                if (previous == STREAK_STRIKE) {
                    int more = streak_due + 1 < cap ? streak_due + 1 : cap;
                    due = due > more ? due : more;
                }
                streak = STREAK_STRIKE;
                streak_due = due;
                out[2 + event_n++] = head << 8 | (uint32_t)due << 2 | 2;
                in_game += 1;
                if (scores)
                    credited[credited_n++] = (Credited){10, 1, 0};
            } else {
                if (lost)
                    out[2 + event_n++] = head << 8 | 1;
                if (kind == SPARE_FRAME) {
                    due = spare_cards;
                    if (previous == STREAK_SPARE) {
                        int more = streak_due + 1 < cap ? streak_due + 1 : cap;
                        due = due > more ? due : more;
                    }
                    streak = STREAK_SPARE;
                    streak_due = due;
                    if (due)
                        out[2 + event_n++] = (head << 2 | 1) << 6 | (uint32_t)due << 2;
                } else {
                    streak = STREAK_NONE;
                    if (gutter && !full_rack_gutters)
                        out[2 + event_n++] = (head << 2 | 1) << 6 | 1;
                }
                in_game += 2;
                if (scores) {
                    credited[credited_n++] = (Credited){pins, 0, 0};
                    credited[credited_n++] = (Credited){second, 0, kind == SPARE_FRAME};
                }
            }
            frame += 1;
            head = (((uint32_t)(game + 1) << 4 | frame) << 4) | seat;
            continue;
        }
        int count = popcount((uint32_t)mask), pins, after, foul, gutter;
        table_ball(f, mask, t, &pins, &after, &foul, &gutter);
        int left = count - pins;
        int strike = full && !foul && pins == 10;
        int spare = first && !foul && left == 0;
        int ends = frame < 10 ? (strike || number == 2)
                              : (number == 3 || (number == 2 && first && !spare));
        int previous = (in_game == 0 && !spans) ? STREAK_NONE : streak;
        int due = 0;
        if (strike || spare) {
            int kind = strike ? STREAK_STRIKE : STREAK_SPARE;
            due = strike ? strike_cards : spare_cards;
            if (previous == kind) {
                int more = streak_due + 1 < cap ? streak_due + 1 : cap;
                due = due > more ? due : more;
            }
            streak = kind;
            streak_due = due;
        } else if (ends) {
            streak = STREAK_NONE;
        } else {
            streak = previous;  /* its cards stay as they were */
        }
        int lost = foul ? 0 : full_rack_gutters ? (full && pins == 0) : gutter;
        if (due || strike || lost)
            out[2 + event_n++] = ((head << 2 | (uint32_t)(number - 1)) << 6)
                                 | (uint32_t)due << 2 | (uint32_t)strike << 1 | (uint32_t)lost;
        in_game += 1;
        if (scores)
            credited[credited_n++] = (Credited){pins, strike, spare};
        if (ends) {
            if (frame == 10) {
                if (scores)
                    series += game_score(credited, credited_n);
                game += 1;
                if (game >= games)
                    break;
                PyObject *bytes = PyTuple_GET_ITEM(forms, ++form_at);
                if (!PyBytes_Check(bytes) || PyBytes_GET_SIZE(bytes) != sizeof(FormTable)) {
                    PyErr_SetString(PyExc_ValueError, "bowl(): a form is a FormTable's bytes");
                    goto done;
                }
                f = (const FormTable *)PyBytes_AS_STRING(bytes);
                frame = 1;
                in_game = credited_n = 0;
            } else {
                frame += 1;
            }
            head = (((uint32_t)(game + 1) << 4 | frame) << 4) | seat;
            number = 1;
            full = 1;
            mask = FULL_RACK;
            first = 0;
        } else if (left == 0) {  /* the 10th frame's fill ball at a fresh rack */
            number += 1;
            full = 1;
            mask = FULL_RACK;
            first = 0;
        } else {
            number += 1;
            full = 0;
            mask = after;
            first = 1;
        }
    }
    out[0] = (uint32_t)series;
    out[1] = (uint32_t)event_n;
    result = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)(2 + event_n) * 4);
done:
    PyBuffer_Release(&pos_buf);
    PyBuffer_Release(&rules_buf);
    PyBuffer_Release(&twister_buf);
    return result;
}

static long comb(int n, int k)
{
    long value = 1;
    for (int i = 1; i <= k; i++)
        value = value * (n - k + i) / i;
    return value;
}

/* setup_balls(frame outcomes, kind leaves, kind totals, class of each mask): the static
 * tables of ball_tables; the misses' tables are worked out here as _miss_leaves works them. */
static PyObject *setup_balls(PyObject *self, PyObject *args)
{
    Py_buffer outcomes, leaves, totals, classes;
    if (!PyArg_ParseTuple(args, "y*y*y*y*", &outcomes, &leaves, &totals, &classes))
        return NULL;
    PyObject *result = NULL;
    if (outcomes.len != FRAMES * 5 * 4 || classes.len != (FULL_RACK + 1) * 4
            || leaves.len != KINDS * (MAX_LEAVES + 1) * 4
            || totals.len != KINDS * MAX_LEAVES * 8) {
        PyErr_SetString(PyExc_ValueError, "setup_balls(): tables of the wrong size");
        goto done;
    }
    memcpy(FRAME_OUTCOME, outcomes.buf, sizeof FRAME_OUTCOME);
    const int32_t *words = leaves.buf;
    for (int kind = 0; kind < KINDS; kind++) {
        KIND_N[kind] = words[kind * (MAX_LEAVES + 1)];
        memcpy(KIND_LEAVE[kind], words + kind * (MAX_LEAVES + 1) + 1, MAX_LEAVES * 4);
    }
    memcpy(KIND_TOTAL, totals.buf, sizeof KIND_TOTAL);
    const int32_t *class_of = classes.buf;
    for (int mask = 0; mask <= FULL_RACK; mask++) {
        if (class_of[mask] < 0 || class_of[mask] >= CLASSES) {
            PyErr_SetString(PyExc_ValueError, "setup_balls(): a class out of range");
            goto done;
        }
        CLASS_OF[mask] = class_of[mask];
    }
    if (!MISS_LEAVE) {
        int size = 0;
        for (int mask = 0; mask <= FULL_RACK; mask++)
            size += (1 << popcount((uint32_t)mask)) - 1;
        MISS_LEAVE = PyMem_Malloc(sizeof(int) * (size_t)size);
        MISS_TOTAL = PyMem_Malloc(sizeof(double) * (size_t)size);
        if (!MISS_LEAVE || !MISS_TOTAL) {
            PyErr_NoMemory();
            goto done;
        }
        int at = 0;
        for (int mask = 0; mask <= FULL_RACK; mask++) {
            MISS_AT[mask] = at;
            int n = popcount((uint32_t)mask);
            double running = 0.0;
            for (int subset = mask; subset; subset = (subset - 1) & mask) {
                int fallen = n - popcount((uint32_t)subset);
                running += (fallen == 0 ? 1.0 : 2.0) / (double)comb(n, n - fallen);
                MISS_LEAVE[at] = subset;
                MISS_TOTAL[at] = running;
                at++;
            }
        }
        MISS_AT[FULL_RACK + 1] = at;
    }
    bowl_ready = 1;
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&outcomes);
    PyBuffer_Release(&leaves);
    PyBuffer_Release(&totals);
    PyBuffer_Release(&classes);
    return result;
}

static PyObject *form_size(PyObject *self, PyObject *args)
{
    return PyLong_FromSize_t(sizeof(FormTable));
}

static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS, "Hand over hand_tables' lookup tables and the cards."},
    {"play_runs", play_runs, METH_VARARGS,
     "play_runs(start, runs, count, twister_state, twister_index) -> "
     "((wins, cents), twister_index): a batch of runs' card play."},
    {"bowl", bowl, METH_VARARGS,
     "bowl(position, rules, forms, twister) -> bytes: a seat's series, count and events."},
    {"setup_balls", setup_balls, METH_VARARGS, "Hand over ball_tables' static tables."},
    {"form_size", form_size, METH_NOARGS, "The bytes of one game's form table."},
    {"hand_value", hand_value, METH_VARARGS, "hand_value(cards, good, flags) -> key"},
    {"lose_card", lose_card, METH_VARARGS, "lose_card(cards, good, flags) -> card id"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_card_play",
    "The fast odds engine's card play, compiled (see alley_poker/odds/compiled.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__card_play(void)
{
    return PyModule_Create(&module);
}
