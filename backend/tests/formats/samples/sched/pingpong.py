# Two threads with spaces in their names ping-pong over pipes for ~0.1 s (comm-with-spaces sample).
import ctypes
import os
import threading

libc = ctypes.CDLL(None)
def name(n): libc.prctl(15, n.encode(), 0, 0, 0)
a_r, a_w = os.pipe(); b_r, b_w = os.pipe()
def ping():
    name("io worker 1")
    for _ in range(300):
        os.write(a_w, b"x"); os.read(b_r, 1)
def pong():
    name("io worker 2")
    for _ in range(300):
        os.read(a_r, 1); os.write(b_w, b"y")
t1 = threading.Thread(target=ping); t2 = threading.Thread(target=pong)
t2.start(); t1.start(); t1.join(); t2.join()
