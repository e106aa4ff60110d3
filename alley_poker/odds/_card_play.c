/* The fast odds engine's runs, compiled: alley_poker/odds/rollout.py's play_cards and
 * compact.py's HandJudge over a batch of runs (csrc/card_play.h, csrc/hand_values.h), and
 * scripts.py's seat_script over the ball tables (csrc/bowling.h), rule for rule.
 *
 * Why C: once the balls came from tables and the hand judge stopped early, a warm run was
 * still ~90 us of CPython interpreting the card play (two thirds) and the bowling; the
 * same rules here take 13-16 us.  The Python stays the reference: the engine falls back to
 * it when this module is not built, and tests/odds/test_compiled.py holds the two to the
 * same odds, to the last digit, on every recorded state.
 *
 * The same random numbers: every draw is CPython's own Mersenne Twister (genrand_res53),
 * started from the state of the Python generator the caller passes, and every pick is
 * int(random() * n), as the Python makes them.  The hand values are the same integer keys,
 * from hand_tables' lookup tables handed over once by setup().
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

/* One translation unit: each part is a header of its own concept (csrc/). */
#include "csrc/twister.h"
#include "csrc/hand_values.h"
#include "csrc/card_play.h"
#include "csrc/bowling.h"

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


static PyMethodDef methods[] = {
    {"setup", setup, METH_VARARGS, "Hand over hand_tables' lookup tables and the cards."},
    {"play_runs", play_runs, METH_VARARGS,
     "play_runs(start, runs, count, twister_state, twister_index) -> "
     "((wins, cents), twister_index): a batch of runs' card play."},
    {"bowl", bowl, METH_VARARGS,
     "bowl(position, rules, forms, twister) -> bytes: a seat's series, count and events."},
    {"setup_balls", setup_balls, METH_VARARGS, "Hand over ball_tables' static tables."},
    {"hand_value", hand_value, METH_VARARGS, "hand_value(cards, good, flags) -> key"},
    {"lose_card", lose_card, METH_VARARGS, "lose_card(cards, good, flags) -> card id"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_card_play",
    "The fast odds engine's card play and balls, compiled (see alley_poker/odds/compiled.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__card_play(void)
{
    return PyModule_Create(&module);
}

