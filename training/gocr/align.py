"""CTC forced alignment (Viterbi) -> the vision row where each target character is read.

Used for guided attention: the CTC head learns per-row characters within ~100 steps, the AR rows
take far longer to learn *where to look*; its alignment tells one attention head where to look.
"""
import numpy as np


def ctc_viterbi(lp, tgt, blank=0):
    """lp (T, V) log-probs, tgt list of ids -> np.array of the first frame emitting each target
    character (len(tgt)), or None if no monotone alignment fits in T frames."""
    T, n = lp.shape[0], len(tgt)
    if n == 0:
        return np.zeros(0, np.int64)
    S = 2 * n + 1
    lab = np.full(S, blank, np.int64)
    lab[1::2] = tgt
    # skip (s-2 -> s) allowed into a char state whose char differs from the previous char
    skip = np.zeros(S, bool)
    skip[3::2] = lab[3::2] != lab[1:-2:2]
    neg = -1e30
    dp = np.full(S, neg)
    dp[0] = lp[0, blank]
    dp[1] = lp[0, lab[1]]
    back = np.zeros((T, S), np.int8)  # 0 stay, 1 from s-1, 2 from s-2
    for t in range(1, T):
        a = dp
        b = np.concatenate([[neg], dp[:-1]])
        c = np.where(skip, np.concatenate([[neg, neg], dp[:-2]]), neg)
        best = np.maximum(np.maximum(a, b), c)
        back[t] = np.where(best == a, 0, np.where(best == b, 1, 2))
        dp = best + lp[t, lab]
    end = S - 1 if dp[S - 1] >= dp[S - 2] else S - 2
    if dp[end] <= neg / 2:
        return None
    s, states = end, np.empty(T, np.int64)
    for t in range(T - 1, -1, -1):
        states[t] = s
        s -= int(back[t, s])
    if s < 0:
        return None
    first = np.full(n, -1, np.int64)
    for t in range(T - 1, -1, -1):
        st = states[t]
        if st % 2 == 1:
            first[st // 2] = t
    return first if (first >= 0).all() else None
