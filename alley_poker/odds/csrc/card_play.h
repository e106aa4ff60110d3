/* One run's card play (rollout.play_cards), and play_runs(): a batch of runs in one call. */
#ifndef ALLEY_POKER_CARD_PLAY_H
#define ALLEY_POKER_CARD_PLAY_H

#include "hand_values.h"
#include "twister.h"

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
    /* Every card a card id, 54 at most in all (so neither the pile nor a hand can outgrow
     * its 64 places as cards move), every decision a seat's, the generator's index its. */
    int cards = start.pile_n, bad_card = 0;
    for (int i = 0; i < start.pile_n; i++)
        bad_card |= start.pile[i] < 0 || start.pile[i] > JOKER_B;
    for (int seat = 0; seat < start.seats; seat++) {
        cards += start.hand_n[seat];
        for (int i = 0; i < start.hand_n[seat]; i++)
            bad_card |= start.hand[seat][i] < 0 || start.hand[seat][i] > JOKER_B;
    }
    for (int i = 0; i < decision_n; i++)
        bad_card |= decisions[2 * i + 1] < 0 || decisions[2 * i + 1] >= start.seats;
    if (bad_card || cards > 54 || mt_index < 0 || mt_index > MT_N) {
        PyErr_SetString(PyExc_ValueError,
                        "the start holds a card that is no card, more than 54 cards, a "
                        "decision of no seat, or a generator index out of range");
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

#endif
