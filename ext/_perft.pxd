# perft (RULINGS C8): the number of order sequences of a given length, counted entirely in C.
from libc.stdint cimport uint64_t
from engine._tables cimport Rules
from engine._board cimport Board

cdef enum:
    ORDER_CAPACITY = 8192       # orders one position may have (checked: overflow is an error)
    PERFT_FLUSH = 65536         # a walk adds its leaves to PerftShared.nodes once it holds this many

# The two largest uint64_t values are statuses, never counts (no count gets that large), and
# relaxed atomic access to the shared state below (GCC/Clang builtins; plain moves on x86-64, a
# locked add for ftc_add_u64).
cdef extern from *:
    """
    #define FTC_PERFT_OVERFLOW ((unsigned long long) -1)
    #define FTC_PERFT_STOPPED ((unsigned long long) -2)
    static inline int ftc_load_int(const int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void ftc_store_int(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    static inline unsigned long long ftc_load_u64(const unsigned long long *p) {
        return __atomic_load_n(p, __ATOMIC_RELAXED);
    }
    static inline void ftc_add_u64(unsigned long long *p, unsigned long long v) {
        __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
    }
    """
    # some position had more than ORDER_CAPACITY orders (or there was no memory for the walk)
    const uint64_t PERFT_OVERFLOW "FTC_PERFT_OVERFLOW"
    # PerftShared.stop was set: the walk returned early and its count is lost
    const uint64_t PERFT_STOPPED "FTC_PERFT_STOPPED"
    int ftc_load_int(const int* p) noexcept nogil
    void ftc_store_int(int* p, int v) noexcept nogil
    unsigned long long ftc_load_u64(const unsigned long long* p) noexcept nogil
    void ftc_add_u64(unsigned long long* p, unsigned long long v) noexcept nogil

# The state one perft run shares between the threads that count it and the thread that watches it
# (progress, signals). 128 bytes; a PerftControl owns one (calloc: it never moves while walks run).
#   offset  0  int32   stop    0: count on. Anything else: every walk sharing this state returns
#                              PERFT_STOPPED at its next node of depth >= 2 from the leaves (read
#                              there with a relaxed atomic load; a node of depth 2 takes microseconds).
#                              Written by any thread (PerftControl.stop), never cleared by a walk.
#   offset  4  int32   reason  why it was stopped, set before stop (the CLI: the signal number); 0: none
#   offset  8  56 bytes padding, so `nodes` is on another cache line than the flag every walk reads
#   offset 64  uint64  nodes   leaves counted so far by every walk sharing this state. A walk counts in
#                              its private PerftWalk and adds (relaxed atomic add) every PERFT_FLUSH
#                              leaves and when it returns, so a finished walk has added exactly its
#                              count and a stopped one the leaves below the depth-2 nodes it finished.
#   offset 72  56 bytes padding (the struct fills two cache lines; it is not shared with other data)
cdef struct PerftShared:
    int stop
    int reason
    char _pad0[56]
    unsigned long long nodes
    char _pad1[56]

# One C perft call's own state, on that call's stack (private to its thread).
#   shared   the run's PerftShared (never NULL: a call without a control uses one on its stack)
#   pending  leaves counted at finished depth-2 nodes, not yet added to shared.nodes
cdef struct PerftWalk:
    PerftShared* shared
    uint64_t pending

# Returns the count, PERFT_OVERFLOW when some position had more than ORDER_CAPACITY orders, or
# PERFT_STOPPED when shared.stop was set before it finished. Adds its leaves to shared.nodes.
cdef uint64_t perft(const Rules* rules, const Board* root, int depth, bint cyl_all,
                    PerftShared* shared) noexcept nogil


cdef class PerftControl:
    cdef PerftShared* shared    # calloc'd in __cinit__, freed in __dealloc__
