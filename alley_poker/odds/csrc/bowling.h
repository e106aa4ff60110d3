/* A seat's balls (scripts.seat_script over ball_tables' tables), and bowl(): one script. */
#ifndef ALLEY_POKER_BOWLING_H
#define ALLEY_POKER_BOWLING_H

#include "hand_values.h"
#include "twister.h"

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

/* The cards a mark of ``kind`` earns: ``base``, or one more than the streak before it (up
 * to ``cap``) when the mark before was of the same kind (record_ball's streak rule). */
static int cards_due(int base, int kind, int previous, int streak_due, int cap)
{
    if (previous != kind)
        return base;
    int more = streak_due + 1 < cap ? streak_due + 1 : cap;
    return base > more ? base : more;
}
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
    if (t->index < 0 || t->index > MT_N) {
        PyErr_SetString(PyExc_ValueError, "bowl(): the twister's index is out of range");
        t = NULL;
        goto done;
    }
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
                due = cards_due(strike_cards, STREAK_STRIKE, previous, streak_due, cap);
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
                    due = cards_due(spare_cards, STREAK_SPARE, previous, streak_due, cap);
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
            due = cards_due(strike ? strike_cards : spare_cards, kind, previous, streak_due, cap);
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

#endif
