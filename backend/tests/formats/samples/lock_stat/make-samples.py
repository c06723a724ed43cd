"""Writes every-row-kind.txt and debug-locks-off.txt beside this file: hand-written figures laid out
the way the kernel's seq_header/seq_stats print them (kernel/locking/lockdep_proc.c, version 0.4),
including the 15-byte time buffer that cuts long numbers. Not real measurements: inputs that cover
every kind of row and point the parser must read. Run: python3 make-samples.py
"""
from pathlib import Path

HERE = Path(__file__).resolve().parent
W = 221
def t(ns):  # snprint_time, with the 15-byte buffer
    ns += 5
    s = "%d.%02d" % (ns // 1000, (ns % 1000) // 10)
    return s[:14]
def lt(nr, mn, mx, tot):
    avg = tot // nr if nr else 0
    return "%14d" % nr + "".join(" %14s" % t(v) for v in (mn, mx, tot, avg))
def row(label, cb, wait, ab, hold):
    return "%s%14d %s %14d %s\n" % (label, cb, lt(*wait), ab, lt(*hold))
def cls(name, w=None, r=None, cpts=(), dpts=()):
    out = ""
    if w:
        out += row(("%38s-W:" % name) if r else ("%40s:" % name), *w)
    if r:
        out += row("%38s-R:" % name, *r)
    if (w and w[1][0]) or (r and r[1][0]):
        n = len(name) + (2 if r else 0)
        for pts in (cpts, dpts):
            for i, (c, a, s) in enumerate(pts):
                if i == 0:
                    out += " " * (40 - n) + "-" * n + "\n"
                out += "%40s %14d %29s %s\n" % (name, c, "[<%s>]" % a, s)
        if dpts:
            out += "\n" + "." * W + "\n\n"
    return out
hdr = "lock_stat version 0.4\n" + "-" * W + "\n" + "%40s" % "class name" + "".join(" %14s" % h for h in "con-bounces contentions waittime-min waittime-max waittime-total waittime-avg acq-bounces acquisitions holdtime-min holdtime-max holdtime-total holdtime-avg".split()) + "\n" + "-" * W + "\n\n"
body = ""
# spinlock: plain row, 4 + 4 points, hashed addresses
body += cls("&head->lock",
            w=(52110, (61877, 30, 2110450, 401233780), 410233, (913882, 20, 180550, 311200900)),
            cpts=[(30211, "000000004f3e2d1c", "xlog_grant_head_check+0x7e/0x2c0 [xfs]"), (21087, "000000005a6b7c8d", "xfs_log_ticket_ungrant+0x4d/0x110 [xfs]"), (7001, "000000006e7f8091", "xfs_log_reserve+0xd2/0x260 [xfs]"), (3578, "0000000071829304", "xlog_cil_commit+0x3f1/0x9a0 [xfs]")],
            dpts=[(29110, "000000005a6b7c8d", "xfs_log_ticket_ungrant+0x4d/0x110 [xfs]"), (20230, "000000004f3e2d1c", "xlog_grant_head_check+0x7e/0x2c0 [xfs]"), (9001, "0000000071829304", "xlog_cil_commit+0x3f1/0x9a0 [xfs]"), (3536, "000000006e7f8091", "xfs_log_reserve+0xd2/0x260 [xfs]")])
# rwsem with write and read rows, points in a module
body += cls("&xfs_nondir_ilock_class",
            w=(310, (402, 280, 98123450, 1021340870), 2211, (88421, 90, 5123400, 391234560)),
            r=(95, (133, 410, 20031120, 88410230), 40112, (1283391, 70, 812330, 201100450)),
            cpts=[(301, "00000000d0c1a2b3", "xfs_ilock+0x8e/0x1f0 [xfs]"), (189, "000000001b2c3d4e", "xfs_ilock_data_map_shared+0x2a/0x40 [xfs]"), (45, "00000000aa11bb22", "xfs_iomap_write_unwritten+0x11c/0x3a0 [xfs]")],
            dpts=[(402, "00000000d0c1a2b3", "xfs_ilock+0x8e/0x1f0 [xfs]"), (133, "00000000c3d4e5f6", "xfs_file_dio_write_aligned+0x5c/0x1a0 [xfs]")])
# read-only rwlock: "-R:" alone; contention points only (no contending points, so no dots)
body += cls("tasklist_lock", r=(12, (14, 150, 4410, 23300), 3021, (5590, 110, 2310, 1123400)),
            cpts=[(14, "(____ptrval____)", "do_wait+0x1b1/0x310")])
# name version and subclass suffixes; a point without a symbol
body += cls("&type->i_mutex_dir_key#3/1",
            w=(4, (4, 1200, 88100, 130220), 77, (410, 900, 12000, 1410880)),
            cpts=[(4, "ffffffffc0a1b2c3", "0xffffffffc0a1b2c3")],
            dpts=[(4, "ffffffff8130aa10", "path_openat+0x3c0/0xe10")])
# two classes whose names the kernel cut to the same 37 characters
name = "(work_completion)(&(&sbi->s_err_repo"  # 37 characters kept of longer names
assert len(name) == 36
name = name + "r"
body += cls(name, w=(0, (0, 0, 0, 0), 12, (14, 2000, 9000, 40120)))
body += cls(name, w=(0, (0, 0, 0, 0), 3, (3, 1500, 2100, 5400)))
# uncontended, with a huge hold total (the kernel's 14-character cut, see below)
body += cls("&mapping->i_mmap_rwsem", w=(0, (0, 0, 0, 0), 9001, (123456, 40, 90000000, 123456789012345678)))
body += cls("rcu_read_lock", r=(0, (0, 0, 0, 0), 1, (98765432, 10, 5000, 123456789012340)))
(HERE / "every-row-kind.txt").open("w").write(hdr + body)

warn = hdr.replace("lock_stat version 0.4\n", "lock_stat version 0.4\n*WARNING* lock debugging disabled!! - possibly due to a lockdep warning\n")
(HERE / "debug-locks-off.txt").open("w").write(warn + cls("&rq->__lock", w=(800, (812, 50, 19000, 1200000), 90000, (4000000, 10, 21000, 900000000)), cpts=[(812, "000000002c3d4e5f", "raw_spin_rq_lock_nested+0x1c/0x30")], dpts=[(812, "000000002c3d4e5f", "raw_spin_rq_lock_nested+0x1c/0x30")]))
