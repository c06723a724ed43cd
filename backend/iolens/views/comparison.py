"""What sets captures apart before their numbers are compared (issue: comparisons of two kernels):

- the kernel release and the .config options that matter (preempt model, HZ, LOCK_STAT,
  BLK_DEV_IO_TRACE, the debug options), read from the whole .config (table kernel_config) or, for a
  bundle that kept only the summary, from host.kernel.config.options;
- the workload facts that differ (table workload_facts: fio options per job, a cmd's command);
- warnings when the numbers are not comparable as a kernel change: the accelerator (tcg, kvm, a
  VM, bare metal), the CPU count or model, the workload, the debug options that cost time (the rule
  of which options are debug options, and which of them cost time: store/rules/kernel_debug.py).
"""

from __future__ import annotations

from .. import models
from ..store.db import Store
from ..store.rules.kernel_debug import COSTLY, COSTLY_WHY, NO_COST, NO_COST_WHY

# (option, why) in the order shown. The preempt model is one choice over several options.
PREEMPT = (("CONFIG_PREEMPT_RT", "rt"), ("CONFIG_PREEMPT_LAZY", "lazy"), ("CONFIG_PREEMPT", "full"),
           ("CONFIG_PREEMPT_VOLUNTARY", "voluntary"), ("CONFIG_PREEMPT_NONE", "none"))
KEY_OPTIONS = (
    ("CONFIG_HZ", "timer tick rate: scheduler latency and the cost of ticks"),
    ("CONFIG_LOCK_STAT", "lock statistics: every lock acquisition is timed (slower locking); a debug option"),
    ("CONFIG_BLK_DEV_IO_TRACE", "blktrace support: needed for block traces, cheap when off"),
    ("CONFIG_PREEMPT_DYNAMIC", "preempt model chosen at boot (preempt= on the command line)"),
    ("CONFIG_NO_HZ_FULL", "tickless CPUs"),
)
_OPTIONS_FACT = "kernel.config.options."
_WHERE = frozenset({"directory", "filename", "filename_format", "opendir"})


def _facts(store: Store, ids: list[str], keys: list[str]) -> dict[str, dict[str, str | None]]:
    rows = store.query(
        "SELECT capture_id, key, value FROM host_facts WHERE list_contains($ids, capture_id) AND list_contains($keys, key)",
        {"ids": ids, "keys": keys},
    ).rows
    out: dict[str, dict[str, str | None]] = {i: {} for i in ids}
    for cid, key, value in rows:
        out[cid][key] = value
    return out


def _configs(store: Store, ids: list[str]) -> dict[str, dict[str, str]]:
    """Each capture's .config options: the whole file when kept, else the collector's summary."""
    out: dict[str, dict[str, str]] = {}
    for cid, option, value in store.query(
        "SELECT capture_id, option, value FROM kernel_config WHERE list_contains($ids, capture_id)", {"ids": ids}
    ).rows:
        out.setdefault(cid, {})[option] = value
    summary = store.query(
        f"""SELECT capture_id, substr(key, {len(_OPTIONS_FACT) + 1}), value FROM host_facts
            WHERE list_contains($ids, capture_id) AND starts_with(key, '{_OPTIONS_FACT}')""",
        {"ids": ids},
    ).rows
    partial: dict[str, dict[str, str]] = {}
    for cid, option, value in summary:
        partial.setdefault(cid, {})[option] = value or "n"
    for cid, opts in partial.items():
        out.setdefault(cid, opts)
    return out


def _whole(store: Store, ids: list[str]) -> set[str]:
    return {r[0] for r in store.query(
        "SELECT DISTINCT capture_id FROM kernel_config WHERE list_contains($ids, capture_id)", {"ids": ids}).rows}


def _preempt(opts: dict[str, str]) -> str | None:
    return next((name for opt, name in PREEMPT if opts.get(opt) == "y"), None)


def _differ(values: dict[str, str | None]) -> bool:
    return len(set(values.values())) > 1


def _execution(facts: dict[str, str | None]) -> str:
    """How the kernel ran: tcg (emulated), kvm (a lab guest), a VM (the collector's virtualization
    fact), or bare metal."""
    accel = facts.get("lab.accelerator")
    if accel:
        return f"{accel} (lab guest{', emulated CPU' if accel == 'tcg' else ''})"
    virt = facts.get("virtualization")
    if virt and virt not in ("none", "false"):
        return f"VM ({virt})"
    return "bare metal"


def differing_facts(store: Store, table: str, ids: list[str]) -> list[tuple[str, dict[str, str | None]]]:
    """(key, {capture: value}) of a key/value facts table (host_facts, workload_facts) where the value
    is not the same in every capture; a fact missing in one capture counts as a difference."""
    assert table in ("host_facts", "workload_facts"), table
    rows = store.query(
        f"""WITH k AS (SELECT DISTINCT key FROM {table} WHERE list_contains($ids, capture_id)),
                grid AS (SELECT k.key, c.id AS capture_id FROM k CROSS JOIN unnest($ids) AS c(id)),
                v AS (SELECT g.key, g.capture_id, f.value
                      FROM grid g LEFT JOIN {table} f USING (key, capture_id))
           SELECT key, map_from_entries(list(struct_pack(k := capture_id, v := value))) AS vals
           FROM v GROUP BY key
           HAVING count(DISTINCT value) + (count(*) FILTER (WHERE value IS NULL) > 0)::INTEGER > 1""",
        {"ids": ids},
    ).rows
    return [(k, dict(v)) for k, v in rows]


def workload_diff(store: Store, ids: list[str]) -> list[models.HostDiff]:
    rows = differing_facts(store, "workload_facts", ids)
    order = ("workload.kind", "cmd.command", "sweep.", "fio.")

    def rank(key: str) -> tuple[int, bool, str]:
        # where the files were (a mount point per file system) after what the I/O was
        where = key.rsplit(".", 1)[-1] in _WHERE
        return next((i for i, p in enumerate(order) if key.startswith(p)), len(order)), where, key

    return sorted((models.HostDiff(key=k, values=v) for k, v in rows), key=lambda d: rank(d.key))


def _phrase(values: dict[str, str | None], labels: dict[str, str]) -> str:
    return " vs ".join(f"{v if v is not None else 'unknown'} ({labels.get(c, c)})" for c, v in values.items())


def comparison_facts(store: Store, ids: list[str], labels: dict[str, str] | None = None) -> models.ComparisonFacts:
    labels = labels or {}
    host = _facts(store, ids, ["kernel.release", "lab.accelerator", "virtualization", "cpu.model", "cpu.count"])
    kernels = {i: host[i].get("kernel.release") for i in ids}
    configs = _configs(store, ids)
    has_config = {i: i in configs for i in ids}

    options: list[models.KernelOption] = []
    if any(has_config.values()) and len(ids) > 1:
        def vals(f) -> dict[str, str | None]:
            return {i: (f(configs[i]) if i in configs else None) for i in ids}

        pre = vals(_preempt)
        if _differ(pre):
            options.append(models.KernelOption(option="preempt model", values=pre,
                                               why="kernel preemption (CONFIG_PREEMPT_NONE/VOLUNTARY/PREEMPT/LAZY/RT): latency vs throughput"))
        shown = {o for o, _ in KEY_OPTIONS}
        for opt, why in (*KEY_OPTIONS, *((d, COSTLY_WHY) for d in COSTLY if d not in shown),
                         *((d, NO_COST_WHY) for d in NO_COST)):
            v = vals(lambda c, o=opt: c.get(o, "n"))
            if _differ(v):
                options.append(models.KernelOption(option=opt, values=v, why=why))

    whole = _whole(store, ids)
    diff_count = len(kernel_config_diff(store, ids).options) if len(ids) > 1 and whole == set(ids) else None

    work = workload_diff(store, ids) if len(ids) > 1 else []
    warnings: list[models.Incomparable] = []
    if len(ids) > 1:
        execution = {i: _execution(host[i]) for i in ids}
        if _differ(execution):
            warnings.append(models.Incomparable(
                what="accelerator", values=execution,
                message=f"The kernels ran on different machines: {_phrase(execution, labels)}. "
                        "Emulated and virtual figures are not bare-metal figures; compare like with like."))
        cpu = {i: (f"{host[i].get('cpu.count') or '?'} x {host[i].get('cpu.model') or 'unknown CPU'}") for i in ids}
        if _differ(cpu):
            warnings.append(models.Incomparable(
                what="cpu", values=cpu, message=f"The CPUs differ: {_phrase(cpu, labels)}."))
        # where the files were (a mount point per file system) is listed, but is not different work
        what = [d for d in work if d.key.rsplit(".", 1)[-1] not in _WHERE]
        if what:
            shown = ", ".join(f"{d.key} {' vs '.join(d.values.get(i) or '(none)' for i in ids)}" for d in what[:4])
            more = f" and {len(what) - 4} more" if len(what) > 4 else ""
            warnings.append(models.Incomparable(
                what="workload", values={i: str(sum(1 for d in what if d.values.get(i) is not None)) for i in ids},
                message=f"The workloads differ ({shown}{more}): the numbers measure different work, not only a different kernel."))
        debug = [o for o in options if o.option in COSTLY]  # the debugfs-only ones are listed, no warning
        if debug:
            names = ", ".join(o.option.removeprefix("CONFIG_") for o in debug)
            warnings.append(models.Incomparable(
                what="kernel-config", values={i: ",".join(o.option.removeprefix("CONFIG_") for o in debug if o.values.get(i) not in ("n", None)) or "none" for i in ids},
                message=f"Debug options differ ({names}): they slow the kernel down by themselves."))
    return models.ComparisonFacts(kernels=kernels, has_config=has_config, kernel_options=options,
                                  config_diff_count=diff_count, warnings=warnings, workload_diff=work)


def kernel_config_diff(store: Store, ids: list[str]) -> models.KernelConfigDiff:
    """Every option of the whole .config files whose value differs ('n' when a file lacks it)."""
    whole = _whole(store, ids)
    rows = store.query(
        """WITH k AS (SELECT DISTINCT option FROM kernel_config WHERE list_contains($ids, capture_id)),
                grid AS (SELECT k.option, c.id AS capture_id FROM k CROSS JOIN unnest($have) AS c(id)),
                v AS (SELECT g.option, g.capture_id, coalesce(kc.value, 'n') AS value
                      FROM grid g LEFT JOIN kernel_config kc USING (option, capture_id))
           SELECT option, map_from_entries(list(struct_pack(k := capture_id, v := value))) AS vals,
                  count(DISTINCT value) > 1 AS differs
           FROM v GROUP BY option ORDER BY option""",
        {"ids": ids, "have": [i for i in ids if i in whole] or [""]},
    ).rows
    return models.KernelConfigDiff(
        captures=ids, has_config={i: i in whole for i in ids},
        options=[models.HostDiff(key=o, values={i: dict(v).get(i) for i in ids}) for o, v, d in rows if d],
        total_options=len(rows),
    )
