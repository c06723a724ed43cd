"""The fio probe: read the workload (a job file or ``--fio-args``), work out which files it
touches, run fio once per repeat and read its JSON output.

Behaviour follows fio 3.33 (init.c, options.c, parse.c, filesetup.c); each quirk we mirror
is commented where it is handled, so that the target list the safety check sees is the list
fio will really open.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import stat
import subprocess
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable, Dict, List, Optional, Tuple

__all__ = [
    "FioError",
    "Section",
    "Job",
    "Workload",
    "Resolution",
    "RunRecord",
    "parse_jobfile",
    "jobs_from_sections",
    "load_jobfile",
    "parse_fio_args",
    "resolve_targets",
    "split_fio_list",
    "load_fio_json",
    "utc_now",
    "run_fio",
]


class FioError(ValueError):
    """The workload cannot be used as given; the message names the file/line or option."""


# fio accepts these alternative option names (options.c ``.alias``); we only need the ones
# that decide targets or duration.
ALIASES = {
    "readwrite": "rw",
    "nr_files": "nrfiles",
    "timeout": "runtime",
    "wait_for_previous": "stonewall",
}

# I/O engines that do not open local files: for these, filename= names a host, a pool or
# nothing at all, so they contribute no targets.
DISKLESS_ENGINES = {
    "null", "cpuio", "net", "netsplice", "rdma", "rbd", "rados", "http", "nbd", "dfs",
    "exec", "libhdfs", "gfapi", "gfapi_async", "nfs",
}

# fio command-line options that are not job options. Those that would break the capture are
# refused; the others are passed to fio but cannot go into a job file.
REFUSED_CMDLINE = {
    "output": "the collector sets --output itself",
    "output-format": "the collector sets --output-format=json+ itself",
    "minimal": "the collector needs JSON output",
    "append-terse": "the collector needs JSON output",
    "terse-version": "the collector needs JSON output",
    "status-interval": "it writes extra JSON objects into the output",
    "server": "remote fio is not supported",
    "client": "remote fio is not supported",
    "daemonize": "remote fio is not supported",
    "remote-config": "remote fio is not supported",
    "help": "it does not run a workload",
    "version": "it does not run a workload",
    "cmdhelp": "it does not run a workload",
    "enghelp": "it does not run a workload",
    "showcmd": "it does not run a workload",
    "parse-only": "it does not run a workload",
    "crctest": "it does not run a workload",
    "cpuclock-test": "it does not run a workload",
    "merge-blktrace-only": "it does not run a workload",
}
CMDLINE_ONLY = {
    "eta", "eta-newline", "eta-interval", "readonly", "section", "alloc-size",
    "warnings-fatal", "max-jobs", "idle-prof", "debug", "aux-path", "trigger-file",
    "trigger-timeout", "trigger", "trigger-remote", "bandwidth-log", "inflate-log",
}

# Job options that make fio write files other than its targets (logs, states) into cwd.
LOG_OPTIONS = (
    "write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log", "write_iolog",
)


# ---------------------------------------------------------------------------------------
# Job file parsing


@dataclass
class Section:
    """One ``[name]`` section of a job file, options in file order (value None = bare flag)."""

    name: str
    options: List[Tuple[str, Optional[str]]] = field(default_factory=list)
    line: int = 0

    @property
    def is_global(self) -> bool:
        # fio compares only the first 6 characters: "[globalfoo]" is a global section too.
        return self.name.startswith("global")


@dataclass
class Job:
    """A job with its effective options (the [global] options in force at its section,
    overridden by its own), keys canonicalised through ALIASES."""

    name: str
    options: Dict[str, Optional[str]]
    # fio substitutes ${VAR} in job files, not in command-line options (parse.c
    # option_dup_subs is called from parse_option only).
    substitute_env: bool = True

    def get(self, key: str, default: Optional[str] = None) -> Optional[str]:
        return self.options.get(key, default)

    def flag(self, key: str) -> bool:
        """A boolean option: bare ``key`` or ``key=<non-zero>`` is on."""
        if key not in self.options:
            return False
        value = self.options[key]
        if value is None or value.strip() == "":
            return True
        try:
            return int(value.strip(), 0) != 0
        except ValueError:
            return value.strip().lower() not in ("false", "off", "no")


@dataclass
class Workload:
    """What fio will run: the job file text stored in the bundle and how fio is invoked."""

    jobfile_bytes: bytes
    sections: List[Section]
    jobs: List[Job]
    fio_args: Optional[List[str]] = None  # tokens of --fio-args, None for a job file
    cmdline_only: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)

    @property
    def aux_path(self) -> Optional[str]:
        """fio's --aux-path (where it puts state files), if given in --fio-args."""
        for tok in self.cmdline_only:
            if tok.startswith("--aux-path="):
                return tok[len("--aux-path="):]
        return None


def _strip_comment(line: str) -> str:
    # fio's strip_blank_end() cuts a line at the first ';' and then at the first '#'
    # wherever they are, so "bs=4k ; comment" works and a value can never contain them:
    # "filename=/data/a#1" means "/data/a" to fio as well.
    for ch in (";", "#"):
        pos = line.find(ch)
        if pos >= 0:
            line = line[:pos]
    return line.strip()


def parse_jobfile(text: str, source: str = "job file") -> List[Section]:
    """Parse fio's INI dialect into sections. Raises FioError naming ``source`` and the line.

    ``key=value`` and bare flags; ``;`` and ``#`` comments (whole-line and trailing);
    ``${VAR}`` is kept as written (substituted later, like fio). ``include`` is refused:
    fio resolves it against the job file's own directory, which is not where the collector
    runs the stored copy from.
    """
    sections: List[Section] = []
    current: Optional[Section] = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw)
        if not line:
            continue
        if line.startswith("["):
            if not line.endswith("]") or len(line) < 3:
                # fio itself would silently drop the last character of "[name" (sscanf
                # "[%255[^\n]]" then name[strlen-1] = 0); say so instead.
                raise FioError(
                    f"{source}, line {lineno}: malformed section header {line!r} "
                    "(expected [name])"
                )
            current = Section(name=line[1:-1], line=lineno)
            sections.append(current)
            continue
        if current is None:
            raise FioError(
                f"{source}, line {lineno}: option {line!r} is outside of a [section] "
                "(fio refuses this too)"
            )
        if line == "include" or re.match(r"include\s", line):
            raise FioError(
                f"{source}, line {lineno}: 'include' is not supported by iolens-collect "
                "(the bundle stores one job file); paste the included options in"
            )
        key, sep, value = line.partition("=")
        key = key.strip()
        if not key:
            raise FioError(f"{source}, line {lineno}: option {line!r} has no name")
        current.options.append((key, value.strip() if sep else None))
    return sections


def jobs_from_sections(sections: List[Section], substitute_env: bool = True) -> List[Job]:
    """Expand sections into jobs the way fio does: a [global] section sets defaults for the
    jobs that follow it (fio copies def_thread at each job section), so a second [global]
    only affects later jobs."""
    defaults: Dict[str, Optional[str]] = {}
    jobs: List[Job] = []
    for section in sections:
        target = defaults if section.is_global else dict(defaults)
        for key, value in section.options:
            target[ALIASES.get(key, key)] = value
        if not section.is_global:
            jobs.append(Job(section.name, target, substitute_env))
    return jobs


def load_jobfile(path: str) -> Workload:
    """Read a job file (``-`` = standard input) into a Workload."""
    try:
        if path == "-":
            import sys

            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read()
    except OSError as exc:
        raise FioError(f"cannot read job file {path}: {exc.strerror or exc}") from None
    text = data.decode("utf-8", errors="surrogateescape")
    sections = parse_jobfile(text, source=f"job file {path}")
    jobs = jobs_from_sections(sections, substitute_env=True)
    if not jobs:
        raise FioError(f"job file {path}: no job sections (only [global] or nothing)")
    return Workload(jobfile_bytes=data, sections=sections, jobs=jobs)


def parse_fio_args(argstring: str) -> Workload:
    """Split ``--fio-args`` as a shell would and build the equivalent job file.

    On fio's command line, options before the first ``--name`` are global and each
    ``--name=X`` starts a new job (init.c parse_cmd_line), which maps onto [global] and
    [X] sections.
    """
    try:
        tokens = shlex.split(argstring)
    except ValueError as exc:
        raise FioError(f"--fio-args: cannot split {argstring!r}: {exc}") from None
    if not tokens:
        raise FioError("--fio-args is empty")
    sections: List[Section] = []
    current: Optional[Section] = None
    cmdline_only: List[str] = []
    for tok in tokens:
        if not tok.startswith("--") or tok == "--":
            raise FioError(
                f"--fio-args: expected options written as --key=value or --flag, got {tok!r}"
                + (" (give a job file with --fio instead)" if not tok.startswith("-") else "")
            )
        key, sep, value = tok[2:].partition("=")
        if key in REFUSED_CMDLINE:
            raise FioError(f"--fio-args: fio option --{key} is not allowed: {REFUSED_CMDLINE[key]}")
        if key in CMDLINE_ONLY:
            cmdline_only.append(tok)
            continue
        if key == "name":
            if not value:
                raise FioError("--fio-args: --name needs a value (--name=JOB)")
            current = Section(name=value)
            sections.append(current)
            continue
        if current is None:
            current = Section(name="global")
            sections.append(current)
        current.options.append((key, value if sep else None))
    jobs = jobs_from_sections(sections, substitute_env=False)
    if not jobs:
        raise FioError(
            "--fio-args: no job: fio needs --name=JOB (each --name starts a job; options "
            "before the first --name apply to all jobs)"
        )
    text, notes = _jobfile_text(tokens, sections, cmdline_only)
    return Workload(
        jobfile_bytes=text.encode("utf-8", errors="surrogateescape"),
        sections=sections,
        jobs=jobs,
        fio_args=tokens,
        cmdline_only=cmdline_only,
        notes=notes,
    )


def _jobfile_text(tokens, sections, cmdline_only) -> Tuple[str, List[str]]:
    lines = [
        "; Built by iolens-collect from --fio-args; fio ran with the arguments themselves:",
        "; fio " + shlex.join(tokens).replace("\n", " "),
    ]
    if cmdline_only:
        lines.append("; fio command-line options (not job options): " + " ".join(cmdline_only))
    notes = []
    for section in sections:
        lines.append(f"[{section.name}]")
        for key, value in section.options:
            lines.append(key if value is None else f"{key}={value}")
            if value and (";" in value or "#" in value or "${" in value):
                notes.append(
                    f"workload/job.fio: {key}={value} would read differently from a job file "
                    "(';', '#' start comments and ${VAR} is substituted there); fio ran the "
                    "command-line form"
                )
    return "\n".join(lines) + "\n", notes


# ---------------------------------------------------------------------------------------
# Target resolution


def split_fio_list(value: str) -> List[str]:
    """Split a colon-separated filename/directory list like fio's get_next_str(): ``\\:``
    escapes a colon, a leading colon is skipped, parsing stops at an empty entry."""
    out: List[str] = []
    cur = ""
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value) and value[i + 1] == ":":
            cur += ":"
            i += 2
            continue
        if ch == ":":
            if cur == "" and not out:
                i += 1  # leading colon: skipped
                continue
            if cur == "":
                break  # empty entry: fio stops here (str_filename_cb: !strlen -> break)
            out.append(cur)
            cur = ""
            i += 1
            continue
        cur += ch
        i += 1
    if cur:
        out.append(cur)
    return out


_ENV_RE = re.compile(r"\$\{([^}]+)\}")


def substitute_env(value: str, env, unset: Optional[set] = None) -> str:
    """fio's option_dup_subs(): ``${VAR}`` becomes the variable's value, or nothing when the
    variable is not set (fio does not leave it as written)."""

    def repl(m):
        name = m.group(1)
        if name in env:
            return env[name]
        if unset is not None:
            unset.add(name)
        return ""

    return _ENV_RE.sub(repl, value)


@dataclass
class Resolution:
    targets: List[str]  # absolute, normalised, in order of first use, no duplicates
    by_job: Dict[str, List[str]]
    unknown: List[str]  # reasons why some targets could not be worked out
    notes: List[str]
    side_files: List[str] = field(default_factory=list)  # other files fio writes (verify state)


def _int_option(job: Job, key: str, default: int, value: Optional[str]) -> int:
    if value is None or value.strip() == "":
        return default
    v = value.strip()
    if v == "$ncpus":  # fio keyword (parse.c fio_keyword_replace)
        return os.cpu_count() or 1
    try:
        n = int(v, 0)
    except ValueError:
        raise FioError(f"job [{job.name}]: cannot read {key}={value!r} as a number") from None
    if n < 1:
        raise FioError(f"job [{job.name}]: {key}={value!r} must be at least 1")
    return n


def _exists_and_not_regfile(path: str) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return not stat.S_ISREG(st.st_mode)


def resolve_targets(jobs: List[Job], cwd: Optional[str] = None, env=None,
                    aux_path: Optional[str] = None) -> Resolution:
    """The files each job will open, following fio's rules (init.c add_job, filesetup.c
    add_file, options.c str_filename_cb):

    - ``filename=a:b`` lists the files (shared by all numjobs clones); with ``directory=``
      fio prefixes the first directory to every name, even an absolute one.
    - without filename, each clone j of numjobs gets ``nrfiles`` files named by
      ``filename_format`` (default ``$jobname.$jobnum.$filenum``) in directory j modulo the
      number of ``directory=`` entries, else in the current directory.
    - fio quirk: with nrfiles=1 and no filename, if something that is not a regular file
      exists at the job's name (``[/dev/sdb]``), fio uses that as the file.

    Besides its targets, a job with ``verify=`` makes fio save its verify state at the end
    (verify_state_save=1 is the default) as ``local-<jobname>-<N>-verify.state`` in the
    current directory or ``--aux-path``, N counting every job and clone from 0 in order.
    Those go into ``side_files``.
    """
    cwd = cwd or os.getcwd()
    env = os.environ if env is None else env
    targets: List[str] = []
    seen = set()
    by_job: Dict[str, List[str]] = {}
    unknown: List[str] = []
    notes: List[str] = []
    unset: set = set()

    def value(job: Job, key: str) -> Optional[str]:
        v = job.get(key)
        if v is None:
            return None
        return substitute_env(v, env, unset) if job.substitute_env else v

    def add(job: Job, path: str):
        full = os.path.normpath(os.path.join(cwd, path))
        by_job.setdefault(job.name, [])
        if full not in by_job[job.name]:
            by_job[job.name].append(full)
        if full not in seen:
            seen.add(full)
            targets.append(full)

    side_files: List[str] = []
    thread_index = 0
    for job in jobs:
        numjobs = _int_option(job, "numjobs", 1, value(job, "numjobs"))
        verify = (value(job, "verify") or "none").strip()
        state_save = (value(job, "verify_state_save") or "1").strip()
        if "verify" in job.options and verify not in ("none", "0") and state_save != "0":
            for n in range(thread_index, thread_index + numjobs):
                side_files.append(os.path.normpath(os.path.join(
                    cwd, aux_path or "", f"local-{job.name}-{n}-verify.state")))
        thread_index += numjobs
        engine = (value(job, "ioengine") or "").split(":", 1)[0].strip()
        if engine in DISKLESS_ENGINES:
            notes.append(f"fio job [{job.name}]: ioengine={engine} uses no local files; no targets")
            by_job.setdefault(job.name, [])
            continue
        if job.get("opendir") is not None:
            unknown.append(f"job [{job.name}] uses opendir= (files found at run time)")
            continue
        filename = value(job, "filename")
        if (job.get("read_iolog") is not None or job.get("read_iolog_file") is not None) \
                and not filename:
            unknown.append(f"job [{job.name}] replays an I/O log (read_iolog=) whose files are not checked")
            continue
        directory = value(job, "directory")
        dirs = split_fio_list(directory) if directory else []
        if filename:
            names = split_fio_list(filename)
            if not names:
                unknown.append(f"job [{job.name}]: filename={job.get('filename')!r} names no file")
            for name in names:
                if name == "-":
                    notes.append(f"fio job [{job.name}]: filename=- (standard input/output) is not a file")
                    continue
                add(job, (dirs[0] + "/" + name) if dirs else name)
            continue
        nrfiles = _int_option(job, "nrfiles", 1, value(job, "nrfiles"))
        fmt = value(job, "filename_format") or "$jobname.$jobnum.$filenum"
        for jobnum in range(numjobs):
            prefix = (dirs[jobnum % len(dirs)] + "/") if dirs else ""
            if nrfiles == 1 and _exists_and_not_regfile(os.path.join(cwd, job.name)):
                add(job, prefix + job.name)
                continue
            for filenum in range(nrfiles):
                name = (
                    fmt.replace("$jobname", job.name)
                    .replace("$jobnum", str(jobnum))
                    .replace("$filenum", str(filenum))
                )
                add(job, prefix + name)
    for name in sorted(unset):
        notes.append(
            f"job file uses ${{{name}}}, which is not set: fio substitutes an empty string"
        )
    for job in jobs:
        # Logs asked for with --fio-logs (fiologs.py) go into the bundle: no note for those.
        used = [k for k in LOG_OPTIONS if k in job.options
                and not (job.options[k] or "").startswith("${IOLENS_FIO_LOGS}")]
        if used:
            notes.append(
                f"fio job [{job.name}] writes {', '.join(used)} files in the current directory; "
                "they are not in the bundle"
            )
    side_files = [p for p in side_files if p not in seen]
    return Resolution(targets=targets, by_job=by_job, unknown=unknown, notes=notes,
                      side_files=side_files)


# ---------------------------------------------------------------------------------------
# Running fio


def load_fio_json(text: str):
    """The JSON object in fio's output, or None.

    With --output=FILE fio also sends its own error messages to that file (init.c: ``f_err =
    f_out``), so lines like "fio: ..." may come before the JSON: start at the first line
    that begins with "{" and ignore anything after the object.
    """
    start = None
    pos = 0
    for line in text.splitlines(keepends=True):
        if line.startswith("{"):
            start = pos
            break
        pos += len(line)
    if start is None:
        return None
    try:
        obj, _ = json.JSONDecoder().raw_decode(text, start)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass
class RunRecord:
    run_id: str
    index: int
    repeat: int
    started_at: str
    ended_at: str
    exit_code: Optional[int]
    cmdline: List[str]  # as stored: paths relative to the bundle
    output_rel: str
    stderr_rel: str
    stdout_rel: Optional[str]
    json: Optional[dict]
    elapsed: float
    signal: Optional[int] = None


def run_fio(
    fio_bin: str,
    stage: str,
    run_id: str,
    index: int,
    repeat: int,
    workload: Workload,
    jobfile_rel: str,
    cwd: Optional[str] = None,
    tick: Optional[Callable[[float], None]] = None,
    tick_interval: float = 0.5,
    preexec_fn: Optional[Callable[[], None]] = None,
    on_start: Optional[Callable[[subprocess.Popen], None]] = None,
    logs: bool = False,
) -> RunRecord:
    """Run fio once with its output in ``stage/runs/<run_id>/``.

    The command that runs uses absolute paths into the stage; the one recorded uses the same
    paths relative to the bundle. fio's stdout is a file, so fio prints no ETA line (its
    default eta=auto shows it only on a terminal) and does not fight with our progress.
    ``preexec_fn`` runs in the child before exec (the cgroup and CPU affinity of --cgroup and
    --cpus); ``on_start`` gets the process once it runs (to read /proc/PID/cgroup). With ``logs``
    (--fio-logs, fiologs.py) fio writes its time-series logs into ``runs/<run_id>/logs``.
    """
    run_rel = f"runs/{run_id}"
    run_dir = os.path.join(stage, run_rel)
    os.makedirs(run_dir, exist_ok=True)
    output_rel = f"{run_rel}/fio.json"
    stderr_rel = f"{run_rel}/fio.stderr"
    stdout_rel = f"{run_rel}/fio.stdout"
    head = ["--output-format=json+"]
    if workload.fio_args is not None:
        tail_real = list(workload.fio_args)
        tail_rec = list(workload.fio_args)
    else:
        tail_real = [os.path.join(stage, jobfile_rel)]
        tail_rec = [jobfile_rel]
    # argv[0] is "fio" as recorded (fio names itself by argv[0] in its messages); the
    # binary found on PATH is passed as the executable.
    env = None
    if logs:  # fiologs.py: ${IOLENS_FIO_LOGS} is the run's log folder
        logs_rel = f"{run_rel}/logs"
        os.makedirs(os.path.join(stage, logs_rel), exist_ok=True)
        env = dict(os.environ, IOLENS_FIO_LOGS=os.path.join(stage, logs_rel))
        tail_real = [t.replace("${IOLENS_FIO_LOGS}", env["IOLENS_FIO_LOGS"]) for t in tail_real]
        tail_rec = [t.replace("${IOLENS_FIO_LOGS}", logs_rel) for t in tail_rec]
    argv = ["fio"] + head + ["--output=" + os.path.join(stage, output_rel)] + tail_real
    recorded = ["fio"] + head + ["--output=" + output_rel] + tail_rec

    started = utc_now()
    t0 = time.monotonic()
    with open(os.path.join(stage, stderr_rel), "wb") as err, \
            open(os.path.join(stage, stdout_rel), "wb") as out:
        proc = subprocess.Popen(argv, executable=fio_bin, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, cwd=cwd, preexec_fn=preexec_fn, env=env)
        try:
            if on_start is not None:
                on_start(proc)
            while True:
                try:
                    proc.wait(timeout=tick_interval)
                    break
                except subprocess.TimeoutExpired:
                    if tick:
                        tick(time.monotonic() - t0)
        except BaseException:
            _stop(proc)
            raise
    elapsed = time.monotonic() - t0
    ended = utc_now()

    rc = proc.returncode
    sig = None
    if rc is not None and rc < 0:  # killed by a signal: report it the way a shell does
        sig = -rc
        rc = 128 + sig
    try:
        with open(os.path.join(stage, output_rel), "r", encoding="utf-8", errors="replace") as f:
            obj = load_fio_json(f.read())
    except OSError:
        obj = None
        open(os.path.join(stage, output_rel), "wb").close()  # fio never opened it
    keep_stdout = os.path.getsize(os.path.join(stage, stdout_rel)) > 0
    if not keep_stdout:
        os.unlink(os.path.join(stage, stdout_rel))
    return RunRecord(
        run_id=run_id, index=index, repeat=repeat, started_at=started, ended_at=ended,
        exit_code=rc, cmdline=recorded, output_rel=output_rel, stderr_rel=stderr_rel,
        stdout_rel=stdout_rel if keep_stdout else None, json=obj, elapsed=elapsed, signal=sig,
    )


def _stop(proc: subprocess.Popen) -> None:
    """Stop fio on interrupt: SIGINT first (fio stops its jobs and exits), then SIGKILL."""
    if proc.poll() is not None:
        return
    try:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    except OSError:
        pass
