"""What report.py writes beside a case: its marks (what the gates distrust, the
stopping rule's target missed, the power cap), what "noisy" means on the
page, and what the peak is where a case measured past it."""

from __future__ import annotations

import json

from membench import results as mr


def marks(case: mr.Case) -> str:
    if case.error:
        return f"FAILED: {case.error}"
    if case.skipped:
        return f"skipped: {case.skipped}"
    found = []
    doubts = case.doubts(mr.NOISE_THRESHOLD)  # the one rule: contended, a slowdown, throttled, noise at or over 5%
    if (case.median("noisy") or 0) >= 1 and not any(d.startswith(("noise", "host-paced, noise")) for d in doubts):
        # The stopping rule's target missed, with noise under the threshold every gate distrusts: judged, marked.
        # Where the launches take turns over placements, the mean's own uncertainty may be what made it noisy.
        turns = case.most("turns_sem_pct")
        found.append(
            f"noisy (±{turns:.2g}% over its placements)" if turns and turns > (case.most("noise_pct") or 0) else "noisy"
        )
    found += doubts
    if (case.most("power_capped") or 0) >= 1:
        found.append("power-capped (its own draw at the board's limit: judged)")
    return "; ".join(found)


def peak_note(above: list[mr.Case]) -> str:
    """What the peak of cases measured past 100% of it is: the model's ceiling where pct_of_peak is the rate over
    model_bytes_per_second (the hierarchy's level, a link), else the DRAM's theoretical peak."""

    def against_model(c: mr.Case) -> bool:
        rate, model, pct = c.median("bytes_per_second"), c.median("model_bytes_per_second"), c.median("pct_of_peak")
        return bool(rate and model and pct) and abs(100 * rate / model - pct) <= 0.01 * pct

    of_model = sum(1 for c in above if against_model(c))
    parts = ([f"{of_model} against the model's ceiling (the model column)"] if of_model else []) + (
        [f"{len(above) - of_model} against the DRAM's theoretical peak"] if of_model < len(above) else []
    )
    return (
        f"% of peak over 100 in {len(above)} case{'s' if len(above) != 1 else ''}, "
        + " and ".join(parts)
        + ": part of their bytes come from a level faster than that peak's."
    )


def noisy_means(doc: dict) -> str:
    """What "noisy" is on this page, beside what the gates distrust: the stopping rule's target (--max_noise, as the
    run's sweep context records it) is far tighter than the gates' thresholds."""
    try:
        target = json.loads(str(doc.get("context", {}).get("sweep", ""))).get("max_noise")
    except (ValueError, AttributeError):
        target = None
    known = isinstance(target, (int, float)) and not isinstance(target, bool)
    return (
        f"the case's noise stayed over the stopping rule's target ({f'{target:g}%' if known else '--max_noise'}) "
        "until --max_time. Such a value is judged: the check, fleet.py and the report distrust a value from "
        f"{mr.NOISE_THRESHOLD:g}% of noise, history.py and export.py from their --noise-threshold (the same by "
        "default), compare.py from its --threshold where too few repetitions allow its rank test"
    )
