#!/usr/bin/env python3
"""DNA-like sequences in two classes, one 'LABEL SEQUENCE' line each (ppk fit hmm's line format).

Each class is a 2-state hidden Markov model over A, C, G, T with the same two states, one
AT-rich and one GC-rich (like isochores or CpG islands), and the same base composition: class +1
stays in a state with probability 0.97 at each step (long segments), class -1 with 0.85 (short
ones). Lengths are uniform in [min-length, max-length]. Deterministic for a seed.
"""
import argparse
import random

CLASSES = {
    +1: {"stay": 0.97, "emissions": [[0.35, 0.15, 0.15, 0.35], [0.15, 0.35, 0.35, 0.15]]},
    -1: {"stay": 0.85, "emissions": [[0.35, 0.15, 0.15, 0.35], [0.15, 0.35, 0.35, 0.15]]},
}


def sample(rng, model, length):
    state = rng.randrange(2)
    out = []
    for _ in range(length):
        out.append(rng.choices("ACGT", weights=model["emissions"][state])[0])
        if rng.random() > model["stay"]:
            state = 1 - state
    return "".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1000, help="number of sequences (half per class)")
    parser.add_argument("--min-length", type=int, default=50)
    parser.add_argument("--max-length", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for i in range(args.n):
        label = +1 if i % 2 == 0 else -1
        length = rng.randint(args.min_length, args.max_length)
        print(f"{label:+d} {sample(rng, CLASSES[label], length)}")


if __name__ == "__main__":
    main()
