"""Off-CPU perf script texts shared by the off-CPU tests (test_offcpu.py, the Python parser and
pairing; test_offcpu_native.py, the native pass against it). Not a test module.

TEXT: a few sched_switch and sched_waking events with call chains, written by hand in perf script's
form: fio blocked in read_events and woken from aio_complete by a kworker, a comm with spaces, a
preemption (R+), an uninterruptible sleep (D) and a task perf could not name (`:-1 ... /-1`)."""

from __future__ import annotations

K = "([kernel.kallsyms])"
TEXT = f"""\
fio  100/101  [001] 10.000000000: sched:sched_switch: prev_comm=fio prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=kworker/1:1 next_pid=50 next_prio=120
\tffffffff821facd8 __schedule+0x1a {K}
\tffffffff821fb643 schedule {K}
\tffffffff8173c1e2 read_events {K}
\t          101829 syscall (/usr/lib/x86_64-linux-gnu/libc.so.6)

kworker/1:1-eve    50/50    [001] 10.000010000: sched:sched_waking: comm=fio pid=101 prio=120 target_cpu=001
\tffffffff813aa9c4 try_to_wake_up {K}
\tffffffff8173ca05 aio_complete {K}
\tffffffff81382dec process_one_work {K}

kworker/1:1-eve    50/50    [001] 10.000012000: sched:sched_switch: prev_comm=kworker/1:1 prev_pid=50 prev_prio=120 prev_state=I ==> next_comm=fio next_pid=101 next_prio=120
\tffffffff821facd8 __schedule {K}
\tffffffff81383898 worker_thread {K}

lto cgu.0 7  3520/7751  [000] 10.000020000: sched:sched_switch: prev_comm=lto cgu.0 7 prev_pid=7751 prev_prio=130 prev_state=R+ ==> next_comm=swapper/0 next_pid=0 next_prio=120
\tffffffff821facd8 __schedule {K}
\tffffffff821f5b70 irqentry_exit_to_user_mode {K}

fio  100/101  [001] 10.000030000: sched:sched_switch: prev_comm=fio prev_pid=101 prev_prio=120 prev_state=D ==> next_comm=swapper/1 next_pid=0 next_prio=120
\tffffffff821facd8 __schedule {K}
\tffffffff821fa675 io_schedule {K}

:-1 13802/-1    [000] 10.000040000: sched:sched_switch: prev_comm=sh prev_pid=13802 prev_prio=120 prev_state=S ==> next_comm=cc1 next_pid=900 next_prio=120
"""

