/* Hand values: hand_keys.natural_key and key_with_wilds over four 13-bit suit masks, and
 * compact.HandJudge.automatic_loss; the tables are hand_tables', handed over by setup(). */
#ifndef ALLEY_POKER_HAND_VALUES_H
#define ALLEY_POKER_HAND_VALUES_H

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

/* One candidate of automatic_loss: 1 when losing ``card`` (which leaves ``less``) keeps the
 * whole hand's value; else 0, and ``card`` becomes the best so far if it leaves a stronger
 * hand than every candidate before it (so the first of equals stays). */
static int loss_keeps_whole(const Hand *less, int card, int flags, uint32_t whole,
                            uint32_t *best_value, int *best)
{
    uint32_t value = hand_key(less, flags);
    if (value == whole)
        return 1;
    if (*best < 0 || value > *best_value) {
        *best_value = value;
        *best = card;
    }
    return 0;
}

/* compact.HandJudge.automatic_loss: the card whose loss leaves the strongest hand, the
 * lowest of equals (the bad joker, the good one, then the naturals by the evaluator's
 * order); the first whose loss keeps the whole hand's value is the answer. */
static int automatic_loss(const int *cards, int n, int good, int flags)
{
    Hand whole_hand, less;
    read_hand(&whole_hand, cards, n, good);
    uint32_t whole = hand_key(&whole_hand, flags), best_value = 0;
    int bad = good == JOKER_A ? JOKER_B : JOKER_A, best = -1;
    if (whole_hand.dead) {
        less = whole_hand;
        less.dead--;
        if (loss_keeps_whole(&less, bad, flags, whole, &best_value, &best))
            return bad;
    }
    if (whole_hand.wild) {
        less = whole_hand;
        less.wild--;
        if (loss_keeps_whole(&less, good, flags, whole, &best_value, &best))
            return good;
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
        if (loss_keeps_whole(&less, card, flags, whole, &best_value, &best))
            return card;
    }
    return best;
}

#endif
