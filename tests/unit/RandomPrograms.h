#pragma once
// The random small concurrent programs of the differential tests (issues 3 and 4): a few threads over a few
// shared variables, atomics, mutexes, nondet values, assertions and SV-COMP atomic sections; with flags, also
// condition variables and a heap object that may be freed. One seed = one program. Shared by DifferentialTest.cpp (qpor vs dfs) and VhbDifferentialTest.cpp (vhb vs dfs).
#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "core/explore/Explorer.h"
#include "core/frontend/Frontend.h"
#include "core/program/Lower.h"
#include "core/report/Result.h"

namespace skein::testing {

// What the generator may use. The defaults are what the qpor differential has always used (its programs must
// not change: same seeds, same programs); an explorer that does not handle a construct turns it off.
struct GeneratorFlags {
    bool atomicSections = true;
    // Off by default (turning one on changes the programs of a seed): a mutex-protected flag with waits, signals
    // and broadcasts on a condition variable (lost wake-ups and deadlocks included) ...
    bool condVars = false;
    // ... and a calloc'd pair of ints read and written through a shared pointer, which a thread may free
    // (use after free, double free).
    bool heap = false;
    // ... and library and mixed-size accesses of shared memory: memcpy/memset of a struct and an array, strcpy/
    // strcmp/strlen on a char buffer (and single bytes of it: strlen's range moves with them), char/short/int/
    // 64-bit accesses of one union, a pointer cast into an int.
    bool memory = false;
    // ... and threads that stop for good on what they read: __VERIFIER_assume on a shared or atomic value, and
    // spin loops that only read (cut by spin-assume when an iteration changes nothing).
    bool cuts = false;
    // Programs without a data race (with atomicSections off): every access of the shared ints inside a critical
    // section of m0 — several accesses per section, reads whose value the section's own accesses decide among
    // them — plus atomics, nondet values and assertions on what was read.
    bool locked = false;
    // ... and (with condVars / heap) the condition-variable and heap statements sometimes inside an SV-COMP atomic
    // section: a signal or broadcast that finds the waiters some interleaving left, a wait that blocks the section
    // (and so every thread), a free or an access of the object another thread may have freed first.
    bool syncInSections = false;
    // ... and compare-exchanges that succeed or fail by what they read: C11's on the atomics (the outcome kept or
    // not) and GCC's __sync ones on the shared ints (racing with their plain accesses).
    bool cas = false;
    // ... and 8-byte compare-exchanges, loads and adds of an atomic long (two words, whose parents qpor must find to
    // be one write to tell a failing compare-exchange).
    bool wideCas = false;
    // ... and those compare-exchanges (and the atomic long's loads and adds) sometimes alone inside an SV-COMP atomic
    // section: qpor takes a section's accesses as its runs made them, a compare-exchange that failed as a read; and
    // sections that read a word and write it only when another word holds some value.
    bool casInSections = false;
    // ... and stores of part of the compare-exchanged words and memsets of them (a byte of an atomic int, half of the
    // atomic long): the value a compare-exchange then reads is spread over several writes (qpor walks the word's
    // writes back to tell it: QporExplorer::bytesAfter).
    bool casPartial = false;
    // ... and workers that call exit() on what they read (Skein ends only the calling thread, and a join of it blocks
    // for good: nothing may observe that it ended the program), sometimes inside a critical section (its mutex stays
    // held), and main ending with exit() instead of a return.
    bool exits = false;
    // ... and the rest of the thread API: pthread_mutex_trylock (its outcome kept in a local, the critical section
    // taken only when it succeeds), workers that create a child thread (joined or not), pthread_exit() on what a
    // thread read, sometimes inside a critical section (its mutex stays held), and workers that join a worker created
    // before them (the handles are global then; main sometimes joins it too).
    bool threadApi = false;
    // ... and spin loops whose iterations try to change memory and may fail: a trylock spin (then a critical section
    // of that mutex), an exchange spin, a compare-exchange spin. An iteration that changed nothing is cut (spin-assume
    // extended to failed attempts: core/program/LowerInstr.cpp, isSpinLoop); one that changed something is not.
    bool spinAttempts = false;
    // ... and mutex types: m0 recursive and m1 error-checking (glibc's static initializers). A critical section of
    // m0 sometimes relocks it around its statements (and a nested section of m0 is a relock, not a self-deadlock);
    // one of m1 sometimes asserts that a relock returns EDEADLK or a trylock EBUSY. Those answers are the thread's own
    // steps, not events (Builtins.cpp): every explorer sees only the outermost lock and the last unlock.
    bool mutexTypes = false;
    // ... and POSIX semaphores s0 and s1 (counts 0 to 2, set by main before it creates the workers): waits (a deadlock
    // when no post comes), posts, sem_trywait with its outcome kept, sem_getvalue, and s0 taken and given back around
    // an access.
    bool semaphores = false;
    // ... and a reader-writer lock l0: read sections that read a shared int, write sections that write one, tries in
    // both modes (the section taken only when they succeed), and a read lock kept to the thread's end (a writer then
    // waits for good: a deadlock).
    bool rwlocks = false;
    // ... and a barrier b0 for all the workers (main never meets it): each worker meets it once or twice between its
    // statements, and extra waits, with the serial thread's write after one, make some workers meet it more often
    // (the others then wait for good: deadlocks).
    bool barriers = false;
    // ... and pthread_once on o0 and o1: init0 increments x0 (under m0's critical section when there is one, a lock
    // taken inside init), init1 bumps a0 and calls pthread_once on o0 (a nested once); callers read x0 afterwards.
    bool once = false;
    // ... and (with condVars) timed waits on the condition variable, which may time out at any point: one that waits
    // at most once and stores what it answered, and one in the flag-taking loop (a spin loop while it times out).
    bool timedWaits = false;
    // ... and a thread-specific data key k0 that main creates first, with a destructor that adds to a1 and to x0
    // (unlocked: its runs race with each other and with the workers); workers set and read their value.
    bool keys = false;
    // Main initialises the semaphores and the barrier (with those flags), and the mutexes and the condition variable
    // again (without mutexTypes: a normal mutex's init leaves it as its static initialiser did), right after creating
    // the first worker, which may already operate on them (a late initialisation is an event: Events.def, SyncInit).
    bool lateInit = false;
    // Main destroys each mutex (and with condVars the condition variable, sometimes initialising it again at once):
    // right after creating the first worker (an event, dependent with the workers' operations on it: a misuse where
    // it is held or waited on, and any use after it is one) or at its end, after its joins (no event when it has
    // joined every worker: othersJoinedBy).
    bool lateDestroy = false;
};

struct Generator {
    std::mt19937 rng;
    GeneratorFlags flags;
    int vars, mutexes, threads;
    std::ostringstream out;
    int line = 1;
    bool inChild = false; // generating c0, the child thread's function (threadApi): it creates none
    int worker = -1;      // the worker t<worker> being generated (-1: none, or c0)
    std::set<int> joinedByWorker; // workers another worker joins (threadApi): main mostly leaves them alone
    explicit Generator(uint32_t seed, GeneratorFlags f = {}) : rng(seed), flags(f) {
        vars = 1 + int(rng() % 3);
        mutexes = int(rng() % 4);
        threads = 2 + int(rng() % 2);
    }
    int pick(int n) { return int(rng() % uint32_t(n)); }
    void emit(const std::string& s) {
        out << s << "\n";
        ++line;
    }
    std::string var() { return "x" + std::to_string(pick(vars)); }
    // Only drawn when a flag is on, so that the programs of the default flags stay what they were.
    bool extraStatement(int& locals) {
        int kinds = (flags.condVars ? 5 : 0) + (flags.heap ? 4 : 0) + (flags.memory ? 13 : 0) + (flags.cuts ? 6 : 0) +
                    (flags.cas ? 4 : 0) + (flags.wideCas ? 3 : 0) + (flags.exits ? 1 : 0) +
                    (flags.casInSections ? 1 : 0) + (flags.casPartial ? 2 : 0) + (flags.threadApi ? 4 : 0) +
                    (flags.spinAttempts ? 3 : 0) + (flags.semaphores ? 4 : 0) + (flags.rwlocks ? 5 : 0) +
                    (flags.barriers ? 2 : 0) + (flags.once ? 2 : 0) + (flags.timedWaits ? 2 : 0) +
                    (flags.keys ? 2 : 0);
        if (!kinds || pick(4)) return false;
        int k = pick(kinds);
        if (!flags.condVars) k += 5;
        if (!flags.heap && k >= 5) k += 4;
        if (!flags.memory && k >= 9) k += 13;
        if (!flags.cuts && k >= 22) k += 6;
        if (!flags.cas && k >= 28) k += 4;
        if (!flags.wideCas && k >= 32) k += 3;
        if (!flags.exits && k >= 35) k += 1;
        if (!flags.casInSections && k >= 36) k += 1;
        if (!flags.casPartial && k >= 37) k += 2;
        if (!flags.threadApi && k >= 39) k += 4;
        if (!flags.spinAttempts && k >= 43) k += 3;
        if (!flags.semaphores && k >= 46) k += 4;
        if (!flags.rwlocks && k >= 50) k += 5;
        if (!flags.barriers && k >= 55) k += 2;
        if (!flags.once && k >= 57) k += 2;
        if (!flags.timedWaits && k >= 59) k += 2;
        auto v = [&] { return std::to_string(pick(3)); };
        auto local = [&] { return "int r" + std::to_string(locals++); };
        if (flags.syncInSections && k >= 5 && k < 8 && pick(4) == 0) { // a multi-word access of the heap pair
            const bool section = pick(2);
            const std::string begin = section ? "__VERIFIER_atomic_begin(); " : "";
            const std::string end = section ? " __VERIFIER_atomic_end();" : "";
            if (pick(2)) { // a copy from it: its source is the heap object
                const std::string r = "r" + std::to_string(locals++);
                emit("  " + begin + "int " + r + "; { long long w; memcpy(&w, hp, sizeof w); " + r + " = (int)w; }" + end);
            } else {
                emit("  " + begin + "memset(hp, " + v() + ", 2 * sizeof(int));" + end);
            }
            return true;
        }
        // One line: the statement between begin and end — a condition-variable or heap statement
        // (syncInSections), a compare-exchange (casInSections).
        if ((flags.syncInSections && k < 9 && pick(2)) || (flags.casInSections && k >= 28 && k < 35 && pick(2))) {
            std::ostringstream saved;
            std::swap(saved, out);
            --line;
            extraKind(k, locals, v, local);
            std::string stmt = out.str();
            std::swap(saved, out);
            stmt = stmt.substr(2, stmt.size() - 3); // its indent and newline
            emit("  __VERIFIER_atomic_begin(); " + stmt + " __VERIFIER_atomic_end();");
            return true;
        }
        extraKind(k, locals, v, local);
        return true;
    }
    template <class V, class L> void extraKind(int k, int& locals, V&& v, L&& local) {
        switch (k) {
        case 9: emit("  { struct S c = {" + v() + ", " + v() + "}; memcpy(&sr, &c, sizeof c); }"); break;
        case 10: {
            std::string r = "r" + std::to_string(locals++);
            emit("  int " + r + "; { struct S c; memcpy(&c, &sr, sizeof c); " + r + " = c.a + 2 * c.b; }");
            break;
        }
        case 11: emit("  memset(" + std::string(pick(2) ? "&sr" : "sarr") + ", " + v() + ", 8);"); break;
        case 12: emit("  memcpy(sarr, &sr, sizeof sarr);"); break;
        case 13: // a whole string, or one byte past its start: which bytes strlen/strcmp read depends on it
            if (pick(3)) emit(std::string("  strcpy(sb, \"") + (pick(2) ? "ab" : "xyz12") + "\");");
            else emit("  sb[" + std::to_string(pick(2) ? 5 : 2 + pick(3)) + "] = " + (pick(2) ? "'c'" : "0") + ";");
            break;
        case 14: emit("  " + local() + " = strcmp(sb, \"ab\") == 0;"); break;
        case 15: emit("  " + local() + " = strlen(sb);"); break;
        case 16: emit("  su.c[" + std::to_string(pick(4)) + "] = " + v() + ";"); break;
        case 17: emit("  su.s[" + std::to_string(pick(2)) + "] = " + v() + ";"); break;
        case 18: emit("  " + std::string(pick(2) ? "su.i" : "su.l") + " = " + v() + ";"); break;
        case 19: emit("  " + local() + " = " + std::string(pick(2) ? "su.c[" + std::to_string(pick(4)) + "]" : pick(2) ? "su.i" : "(int)(su.l >> 32)") + ";"); break;
        case 20: emit("  ((char *)&" + var() + ")[" + std::to_string(pick(2)) + "] = " + v() + ";"); break;
        case 21: emit("  " + local() + " = sarr[" + std::to_string(pick(2)) + "] + sr.b;"); break;
        case 22: emit("  __VERIFIER_assume(" + var() + " != " + v() + ");"); break;
        case 23: emit("  while (" + var() + " == " + v() + ") ;"); break; // a spin on a plain int (racy)
        case 24: emit("  while (atomic_load(&a" + std::to_string(pick(2)) + ") == 0) ;"); break;
        case 25: {
            std::string r = "r" + std::to_string(locals++);
            emit("  int " + r + " = atomic_load(&a" + std::to_string(pick(2)) + "); __VERIFIER_assume(" + r + " < 2);");
            break;
        }
        case 26: { // a choice, then the cut (not a leaf: DESIGN.md "Cut threads end a node")
            std::string r = "r" + std::to_string(locals++);
            emit("  int " + r + " = __VERIFIER_nondet_int(); __VERIFIER_assume(" + r + ");");
            break;
        }
        case 27: // a thread-local event, then the cut: unconditional (no choice since the last read) without a local
            emit("  if (" + (locals ? "r" + std::to_string(pick(locals)) + " == 1" : std::string("1")) +
                 ") { atomic_thread_fence(memory_order_seq_cst); abort(); }");
            break;
        case 28: // a compare-exchange of an atomic, its outcome dropped: it fails unless the value is what it expects
            emit("  { int e = " + v() + "; atomic_compare_exchange_strong(&a" + std::to_string(pick(2)) + ", &e, " +
                 v() + "); }");
            break;
        case 29: { // ... and kept
            std::string r = "r" + std::to_string(locals++);
            emit("  int " + r + "; { int e = " + v() + "; " + r + " = atomic_compare_exchange_strong(&a" +
                 std::to_string(pick(2)) + ", &e, " + v() + "); }");
            break;
        }
        case 30:
            emit("  " + local() + " = __sync_val_compare_and_swap(&" + var() + ", " + v() + ", " + v() + ");");
            break;
        case 31:
            emit("  " + local() + " = __sync_bool_compare_and_swap(&" + var() + ", " + v() + ", " + v() + ");");
            break;
        case 32: {
            std::string r = "r" + std::to_string(locals++);
            emit("  int " + r + "; { long e = " + v() + "; " + r + " = atomic_compare_exchange_strong(&al, &e, " + v() +
                 "); }");
            break;
        }
        case 33: emit("  " + local() + " = (int)atomic_load(&al);"); break;
        case 34: emit("  atomic_fetch_add(&al, 1);"); break;
        case 35: // the program's end on what the thread read: an event of no resource (the other threads run on)
            emit("  if (" + (locals ? "r" + std::to_string(pick(locals)) : var()) + " == " + v() + ") exit(" + v() + ");");
            break;
        case 36: { // a section that writes a word or only reads it by what it reads of another (the same words in
                   // every run, a write in some): qpor gives each event its run's accesses (SectionSite::runAccesses)
            const std::string r = "r" + std::to_string(locals++), a = var(), b = var();
            emit("  __VERIFIER_atomic_begin(); int " + r + " = " + a + "; if (" + b + " == " + v() + ") " + a + " = " + r +
                 " + 1; __VERIFIER_atomic_end();");
            break;
        }
        case 37: // part of a compare-exchanged word: a byte of an atomic int, or half of the atomic long
            if (flags.wideCas && pick(2)) emit("  ((int *)&al)[" + std::to_string(pick(2)) + "] = " + v() + ";");
            else emit("  ((char *)&a" + std::to_string(pick(2)) + ")[" + std::to_string(pick(2)) + "] = " + v() + ";");
            break;
        case 38: { // all of it, byte by byte
            const std::string a = flags.wideCas && pick(2) ? "al" : "a" + std::to_string(pick(2));
            emit("  memset((void *)&" + a + ", " + v() + ", sizeof " + a + ");");
            break;
        }
        case 39: { // trylock: busy when another thread (or this one) holds the mutex
            const std::string r = "r" + std::to_string(locals++);
            const std::string m = mutexes && pick(2) ? "m" + std::to_string(pick(mutexes)) : std::string("tm");
            emit("  int " + r + " = pthread_mutex_trylock(&" + m + ") == 0; if (" + r + ") { " + var() + " = " + var() +
                 " + 1; pthread_mutex_unlock(&" + m + "); }");
            break;
        }
        case 40: // a child thread (not from a child: one level), joined right away or left running
            if (inChild) emit("  " + var() + " = " + v() + ";");
            else
                emit(std::string("  { pthread_t c; pthread_create(&c, 0, c0, 0);") +
                     (pick(2) ? " pthread_join(c, 0);" : "") + " }");
            break;
        case 41: // the thread ends here on what it read (a mutex it holds stays held)
            emit("  if (" + (locals ? "r" + std::to_string(pick(locals)) : var()) + " == " + v() +
                 ") pthread_exit(0);");
            break;
        case 42: // a worker joins one main created before it (whose handle main wrote before creating this one)
            if (worker > 0) {
                const int j = pick(worker);
                joinedByWorker.insert(j);
                emit("  pthread_join(h[" + std::to_string(j) + "], 0);");
            } else {
                emit("  " + var() + " = " + v() + ";");
            }
            break;
        case 43: { // a spin lock of trylocks (a livelock when this thread holds the mutex already: every run cut)
            const std::string m = mutexes && pick(2) ? "m" + std::to_string(pick(mutexes)) : std::string("sm");
            emit("  while (pthread_mutex_trylock(&" + m + ")) ; " + var() + " = " + var() + " + 1; pthread_mutex_unlock(&" +
                 m + ");");
            break;
        }
        case 44: { // an exchange spin until it reads 0 (one that writes what it read changes nothing), or a spin lock
            const std::string a = "a" + std::to_string(pick(2));
            if (pick(2)) emit("  while (atomic_exchange(&" + a + ", " + v() + ")) ;");
            else emit("  while (atomic_exchange(&" + a + ", 1)) ; " + var() + " = " + var() + " + 1; atomic_store(&" + a + ", 0);");
            break;
        }
        case 45: { // until a compare-exchange succeeds (one that writes the value it found changes nothing either)
            const std::string e = v();
            emit("  { int e = " + e + "; while (!atomic_compare_exchange_strong(&a" + std::to_string(pick(2)) + ", &e, " +
                 v() + ")) e = " + e + "; }");
            break;
        }
        case 46: emit("  sem_wait(&s" + std::to_string(pick(2)) + ");"); break;
        case 47: emit("  sem_post(&s" + std::to_string(pick(2)) + ");"); break;
        case 48: { // a try, or the count read (sem_getvalue)
            const std::string sem = "&s" + std::to_string(pick(2));
            if (pick(2)) {
                emit("  " + local() + " = sem_trywait(" + sem + ") == 0;");
            } else {
                const std::string r = "r" + std::to_string(locals++);
                emit("  int " + r + "; sem_getvalue(" + sem + ", &" + r + ");");
            }
            break;
        }
        case 49: { // s0 as a lock (not one when its count is 0 or 2: a deadlock, or two threads inside)
            const std::string x = var();
            emit("  sem_wait(&s0); " + x + " = " + x + " + 1; sem_post(&s0);");
            break;
        }
        case 50:
            emit("  pthread_rwlock_rdlock(&l0); " + local() + " = " + var() + "; pthread_rwlock_unlock(&l0);");
            break;
        case 51: emit("  pthread_rwlock_wrlock(&l0); " + var() + " = " + v() + "; pthread_rwlock_unlock(&l0);"); break;
        case 52: {
            const std::string r = "r" + std::to_string(locals++);
            emit("  int " + r + " = 0; if (pthread_rwlock_tryrdlock(&l0) == 0) { " + r + " = " + var() +
                 "; pthread_rwlock_unlock(&l0); }");
            break;
        }
        case 53:
            emit("  if (pthread_rwlock_trywrlock(&l0) == 0) { " + var() + " = " + v() +
                 "; pthread_rwlock_unlock(&l0); }");
            break;
        case 54: emit("  pthread_rwlock_rdlock(&l0);"); break; // kept: a writer after it waits for good
        case 55: emit("  pthread_barrier_wait(&b0);"); break;
        case 56:
            emit("  if (pthread_barrier_wait(&b0) == PTHREAD_BARRIER_SERIAL_THREAD) " + var() + " = " + v() + ";");
            break;
        case 57: emit("  pthread_once(&o" + std::to_string(pick(2)) + ", init" + std::to_string(pick(2)) + ");"); break;
        case 58: emit("  pthread_once(&o0, init0); " + local() + " = x0;"); break;
        case 59: // ETIMEDOUT (110), 0 when signalled, or -1 when the flag was set: into a shared int
            emit("  pthread_mutex_lock(&cm); " + var() + " = ready == 0 ? pthread_cond_timedwait(&cv, &cm, &ts0) : -1; "
                 "pthread_mutex_unlock(&cm);");
            break;
        case 60:
            emit("  pthread_mutex_lock(&cm); while (ready == 0) pthread_cond_timedwait(&cv, &cm, &ts0); ready = 0; "
                 "pthread_mutex_unlock(&cm);");
            break;
        case 61: emit("  pthread_setspecific(k0, " + std::string(pick(3) ? "&x0" : "0") + ");"); break;
        case 62: emit("  " + local() + " = pthread_getspecific(k0) != 0;"); break;
        case 0: emit("  pthread_mutex_lock(&cm); ready = 1; pthread_cond_signal(&cv); pthread_mutex_unlock(&cm);"); break;
        case 1: emit("  pthread_mutex_lock(&cm); ready = 1; pthread_cond_broadcast(&cv); pthread_mutex_unlock(&cm);"); break;
        case 2: // waits for a signal and takes the flag (a deadlock when nobody sets it)
            emit("  pthread_mutex_lock(&cm); while (ready == 0) pthread_cond_wait(&cv, &cm); ready = 0; "
                 "pthread_mutex_unlock(&cm);");
            break;
        case 3: // at most one wait: a wake-up lost before it stays lost
            emit("  pthread_mutex_lock(&cm); if (ready == 0) pthread_cond_wait(&cv, &cm); pthread_mutex_unlock(&cm);");
            break;
        case 4: emit("  pthread_cond_signal(&cv);"); break; // without the mutex
        case 5: emit("  hp[" + std::to_string(pick(2)) + "] = " + std::to_string(pick(3)) + ";"); break;
        case 6: emit("  int r" + std::to_string(locals++) + " = hp[" + std::to_string(pick(2)) + "];"); break;
        case 7: emit("  hp[" + std::to_string(pick(2)) + "] = hp[" + std::to_string(pick(2)) + "] + 1;"); break;
        default: emit("  free(hp);"); break;
        }
    }
    void lockedStatement(int& locals) {
        auto r = [&] { return "r" + std::to_string(locals++); };
        auto c = [&] { return std::to_string(pick(3)); };
        switch (pick(7)) {
        case 0: {
            std::string a = r();
            emit("  pthread_mutex_lock(&m0); int " + a + " = " + var() + "; " + var() + " = " + a +
                 " + 1; pthread_mutex_unlock(&m0);");
            break;
        }
        case 1: {
            std::string x = var(), a = r();
            emit("  pthread_mutex_lock(&m0); " + x + " = " + c() + "; int " + a + " = " + var() + "; " + x + " = " + a +
                 " + " + c() + "; pthread_mutex_unlock(&m0);");
            break;
        }
        case 2: {
            std::string x = var(), a = r(), b = r();
            emit("  pthread_mutex_lock(&m0); int " + a + " = " + x + "; if (" + a + " == " + c() + ") " + var() + " = " +
                 c() + "; int " + b + " = " + x + "; pthread_mutex_unlock(&m0);");
            break;
        }
        case 3:
            if (locals) emit("  assert(r" + std::to_string(pick(locals)) + " != " + std::to_string(1 + pick(2)) + ");");
            else emit("  atomic_fetch_add(&a" + std::to_string(pick(2)) + ", 1);");
            break;
        case 4: emit("  int " + r() + " = atomic_load(&a" + std::to_string(pick(2)) + ");"); break;
        case 5: {
            std::string a = r();
            emit("  int " + a + " = __VERIFIER_nondet_int(); pthread_mutex_lock(&m0); if (" + a + ") " + var() +
                 " = 2; pthread_mutex_unlock(&m0);");
            break;
        }
        default: emit("  atomic_fetch_add(&a" + std::to_string(pick(2)) + ", 1);"); break;
        }
    }
    void statement(int depth, int& locals) {
        if (flags.locked) return lockedStatement(locals);
        if (extraStatement(locals)) return;
        switch (pick(depth > 1 ? 9 : 11)) {
        case 0: emit("  " + var() + " = " + std::to_string(pick(3)) + ";"); break;
        case 1: emit("  " + var() + " = " + var() + " + 1;"); break;
        case 2: emit("  int r" + std::to_string(locals++) + " = " + var() + ";"); break;
        case 3: emit("  atomic_fetch_add(&a" + std::to_string(pick(2)) + ", 1);"); break;
        case 4:
            if (locals) emit("  if (r" + std::to_string(pick(locals)) + " == " + std::to_string(pick(2)) + ") " +
                             var() + " = 2;");
            else emit("  " + var() + " = 1;");
            break;
        case 5: emit("  int r" + std::to_string(locals++) + " = atomic_load(&a" + std::to_string(pick(2)) + ");"); break;
        case 8: {
            // A nondeterministic value (the default domain {0,1}): outcomes of one action.
            std::string r = "r" + std::to_string(locals++);
            emit("  int " + r + " = __VERIFIER_nondet_int(); if (" + r + ") " + var() + " = 1;");
            break;
        }
        case 7:
            // An SV-COMP atomic section: one action for qpor, uninterrupted for dfs. Sometimes with a nondet value
            // inside, on which the section's accesses depend (several runs: outcomes of the one action).
            if (int kind = pick(4); !flags.atomicSections) {
                emit("  " + var() + " = " + var() + " + 1;");
            } else if (flags.memory && pick(3) == 0) { // sub-word and library accesses inside a section
                if (pick(2))
                    emit("  __VERIFIER_atomic_begin(); su.c[" + std::to_string(pick(4)) + "] = " + std::to_string(pick(3)) +
                         "; int r" + std::to_string(locals++) + " = su.i; __VERIFIER_atomic_end();");
                else
                    emit("  __VERIFIER_atomic_begin(); if (sr.a == " + std::to_string(pick(3)) +
                         ") memcpy(sarr, &sr, sizeof sarr); else sb[0] = 'q'; __VERIFIER_atomic_end();");
            } else if (kind < 2) {
                emit("  __VERIFIER_atomic_begin(); " + var() + " = " + var() + " + 1; __VERIFIER_atomic_end();");
            } else if (kind == 2) {
                // What the section touches depends on the value it reads.
                emit("  __VERIFIER_atomic_begin(); if (" + var() + " == 1) " + var() + " = 2; else " + var() +
                     " = 3; __VERIFIER_atomic_end();");
            } else {
                std::string r = "r" + std::to_string(locals++);
                emit("  __VERIFIER_atomic_begin(); int " + r + " = __VERIFIER_nondet_int(); if (" + r + ") " + var() +
                     " = " + var() + " + 1; else " + var() + " = 2; __VERIFIER_atomic_end();");
            }
            break;
        case 6:
            // An assertion in a worker: it stops only that thread (ExecStatus).
            if (locals) emit("  assert(r" + std::to_string(pick(locals)) + " != " + std::to_string(1 + pick(2)) + ");");
            else emit("  assert(" + var() + " != 2);");
            break;
        default: {
            if (!mutexes) {
                emit("  " + var() + " = 3;");
                break;
            }
            std::string m = "m" + std::to_string(pick(mutexes));
            emit("  pthread_mutex_lock(&" + m + ");");
            const bool relock = flags.mutexTypes && m == "m0" && pick(2) == 0;
            if (relock) emit("  pthread_mutex_lock(&m0);");
            if (flags.mutexTypes && m == "m1" && pick(2) == 0)
                emit(pick(2) ? "  assert(pthread_mutex_lock(&m1) == 35);"
                             : "  assert(pthread_mutex_trylock(&m1) == 16);");
            int n = 1 + pick(2);
            for (int i = 0; i < n; ++i) statement(depth + 1, locals);
            if (relock) emit("  pthread_mutex_unlock(&m0);");
            emit("  pthread_mutex_unlock(&" + m + ");");
            break;
        }
        }
    }
    std::string program() {
        if (flags.mutexTypes) emit("#define _GNU_SOURCE"); // PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP
        emit("#include <pthread.h>");
        emit("#include <stdatomic.h>");
        emit("#include <assert.h>");
        if (flags.heap || flags.exits) emit("#include <stdlib.h>");
        if (flags.memory || flags.syncInSections || flags.casPartial) emit("#include <string.h>");
        if (flags.semaphores) emit("#include <semaphore.h>");
        emit("void __VERIFIER_atomic_begin(void); void __VERIFIER_atomic_end(void); int __VERIFIER_nondet_int(void);");
        if (flags.cuts) emit("void __VERIFIER_assume(int); void abort(void);");
        for (int v = 0; v < vars; ++v) emit("int x" + std::to_string(v) + ";");
        emit("atomic_int a0, a1;");
        if (flags.wideCas) emit("atomic_long al;");
        if (flags.condVars) {
            emit("pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER; pthread_cond_t cv = PTHREAD_COND_INITIALIZER;");
            emit("int ready;");
            if (flags.timedWaits) emit("struct timespec ts0;");
        }
        if (flags.heap) emit("int *hp;");
        if (flags.memory) {
            emit("struct S { int a, b; } sr; int sarr[2]; char sb[8] = \"ab\";");
            emit("union U { int i; short s[2]; char c[4]; long long l; } su;");
        }
        if (flags.locked) mutexes = std::max(mutexes, 1);
        for (int m = 0; m < mutexes; ++m) {
            const char* init = !flags.mutexTypes ? "PTHREAD_MUTEX_INITIALIZER"
                               : m == 0          ? "PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP"
                               : m == 1          ? "PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP"
                                                 : "PTHREAD_MUTEX_INITIALIZER";
            emit("pthread_mutex_t m" + std::to_string(m) + " = " + init + ";");
        }
        if (flags.spinAttempts) emit("pthread_mutex_t sm = PTHREAD_MUTEX_INITIALIZER;");
        if (flags.semaphores) emit("sem_t s0, s1;");
        if (flags.rwlocks) emit("pthread_rwlock_t l0 = PTHREAD_RWLOCK_INITIALIZER;");
        if (flags.barriers) emit("pthread_barrier_t b0;");
        if (flags.keys) {
            emit("pthread_key_t k0;");
            emit("void kd(void *v) { atomic_fetch_add(&a1, 1); x0 = *(int *)v + 1; }");
        }
        if (flags.once) {
            // (Two calls on one object with different routines are allowed: the first one's runs.)
            emit("pthread_once_t o0 = PTHREAD_ONCE_INIT, o1 = PTHREAD_ONCE_INIT;");
            emit(mutexes ? "void init0(void) { pthread_mutex_lock(&m0); x0 = x0 + 1; pthread_mutex_unlock(&m0); }"
                         : "void init0(void) { x0 = x0 + 1; }");
            emit("void init1(void) { atomic_fetch_add(&a0, 1); pthread_once(&o0, init0); }");
        }
        if (flags.threadApi) {
            emit("pthread_mutex_t tm = PTHREAD_MUTEX_INITIALIZER;");
            emit("void *c0(void *arg) {");
            inChild = true;
            int locals = 0, n = 1 + pick(2);
            for (int i = 0; i < n; ++i) statement(0, locals);
            inChild = false;
            emit("  return 0;");
            emit("}");
        }
        // With the thread API, the handles are global: a worker may join one created before it.
        if (flags.threadApi) emit("pthread_t h[" + std::to_string(threads) + "];");
        // With barriers, every worker meets b0 `phases` times between its statements (the extra statements may add
        // more meetings to one worker: then the others wait for good).
        const int phases = flags.barriers ? 1 + pick(2) : 0;
        for (int t = 0; t < threads; ++t) {
            emit("void *t" + std::to_string(t) + "(void *arg) {");
            worker = t;
            int locals = 0, n = 1 + pick(3);
            for (int i = 0; i < std::max(n, phases); ++i) {
                if (i < n) statement(0, locals);
                if (i < phases) emit("  pthread_barrier_wait(&b0);");
            }
            worker = -1;
            emit("  return 0;");
            emit("}");
        }
        emit("int main() {");
        if (!flags.threadApi) emit("  pthread_t h[" + std::to_string(threads) + "];");
        if (flags.heap) emit("  hp = calloc(2, sizeof(int));");
        std::vector<int> destroyed;     // what main destroys right after its first create (lateDestroy; -1: cv)
        std::vector<std::string> inits; // the semaphores' and the barrier's
        if (flags.semaphores) {
            const std::string k0 = std::to_string(pick(3)), k1 = std::to_string(pick(3));
            inits.push_back("  sem_init(&s0, 0, " + k0 + "); sem_init(&s1, 0, " + k1 + ");");
        }
        if (flags.barriers) inits.push_back("  pthread_barrier_init(&b0, 0, " + std::to_string(threads) + ");");
        if (flags.lateInit && !flags.mutexTypes)
            for (int m = 0; m < mutexes; ++m) inits.push_back("  pthread_mutex_init(&m" + std::to_string(m) + ", 0);");
        if (flags.lateInit && flags.condVars) inits.push_back("  pthread_cond_init(&cv, 0);");
        if (!flags.lateInit)
            for (const std::string& l : inits) emit(l);
        if (flags.keys) emit("  pthread_key_create(&k0, kd);");
        // Sometimes a create or a join happens inside an atomic section, with an access next to it.
        for (int t = 0; t < threads; ++t) {
            std::string create = "pthread_create(&h[" + std::to_string(t) + "], 0, t" + std::to_string(t) + ", 0);";
            if (pick(5) || !flags.atomicSections) emit("  " + create);
            else emit("  __VERIFIER_atomic_begin(); " + create + " " + var() + " = 1; __VERIFIER_atomic_end();");
            if (t == 0 && flags.lateInit)
                for (const std::string& l : inits) emit(l);
            if (t == 0 && flags.lateDestroy) {
                for (int m = 0; m < mutexes; ++m)
                    if (pick(3) == 0) {
                        emit("  pthread_mutex_destroy(&m" + std::to_string(m) + ");");
                        destroyed.push_back(m);
                    }
                if (flags.condVars && pick(3) == 0) {
                    emit("  pthread_cond_destroy(&cv);");
                    if (pick(2)) emit("  pthread_cond_init(&cv, 0);"); // usable again (an event too)
                    else destroyed.push_back(-1); // the condition variable
                }
            }
        }
        // Sometimes main does not join the last worker: its return must not cut the worker short.
        int joins = pick(4) ? threads : threads - 1;
        for (int t = 0; t < joins; ++t) {
            // A worker joined by another is joined by main too in a quarter of the programs: two joiners, whose
            // order decides which one's call fails (qpor and vhb hand those programs over to dfs).
            if (joinedByWorker.count(t) && pick(4)) continue;
            std::string join = "pthread_join(h[" + std::to_string(t) + "], 0);";
            // (Not in a section with the thread API: the global handle's read would start the section, which then
            // blocks midway when the worker never ends — dfs counts each place it entered as a trace when some
            // thread failed, qpor does not start it: the counts differ by design, as for syncInSections.)
            if (pick(5) || !flags.atomicSections || flags.threadApi) emit("  " + join);
            else emit("  __VERIFIER_atomic_begin(); " + join + " " + var() + " = " + var() + " + 1; __VERIFIER_atomic_end();");
        }
        if (pick(2)) {
            std::string check = "assert(" + var() + " != " + std::to_string(1 + pick(3)) + ");";
            emit(flags.locked ? "  pthread_mutex_lock(&m0); " + check + " pthread_mutex_unlock(&m0);" : "  " + check);
        }
        if (flags.lateDestroy) {
            for (int m = 0; m < mutexes; ++m)
                if (std::find(destroyed.begin(), destroyed.end(), m) == destroyed.end())
                    emit("  pthread_mutex_destroy(&m" + std::to_string(m) + ");");
            if (flags.condVars && std::find(destroyed.begin(), destroyed.end(), -1) == destroyed.end())
                emit("  pthread_cond_destroy(&cv);");
        }
        emit(flags.exits && pick(2) ? "  exit(0);" : "  return 0;");
        emit("}");
        return out.str();
    }
};

// An environment variable's number, or `otherwise` (the tests' longer modes: SKEIN_DIFF_PROGRAMS and the like).
inline long envNumber(const char* name, long otherwise) {
    const char* v = std::getenv(name);
    return v ? std::atol(v) : otherwise;
}

// The differential tests' loop: each of `programs` random programs (the source `generate(seed)` gives, seeds from
// `seed0`) small enough for the dfs oracle (within `maxExecutions`), compiled and explored by dfs, handed to
// body(seed, src, program, options, dfs result) under a trace naming the seed and the program. Stops at the first
// failure. Returns how many programs were small enough.
template <class Generate, class Body>
int forEachGeneratedProgram(Generate&& generate, int programs, uint32_t seed0, uint64_t maxExecutions, Body&& body) {
    int checked = 0;
    for (int i = 0; i < programs; ++i) {
        const uint32_t seed = seed0 + uint32_t(i);
        const std::string src = generate(seed);
        auto compiled = skein::frontend::compile({"random.c", src, {}});
        EXPECT_TRUE(compiled) << src;
        if (!compiled) return checked;
        auto prog = skein::program::lower(*compiled);
        EXPECT_TRUE(prog) << src;
        if (!prog) return checked;
        skein::explore::ExploreOptions o;
        o.maxExecutions = maxExecutions;
        auto dfs = skein::explore::findExplorer("dfs")->run(*prog, o, nullptr);
        if (dfs.stoppedEarly) continue; // too big for the oracle
        ++checked;
        SCOPED_TRACE(std::string("seed ") + std::to_string(seed) + "\n" + src);
        body(seed, src, *prog, o, dfs);
        if (::testing::Test::HasFailure()) return checked;
    }
    return checked;
}

// forEachGeneratedProgram over the generator's programs with `flags`.
template <class Body>
int forEachSmallProgram(const GeneratorFlags& flags, int programs, uint32_t seed0, uint64_t maxExecutions, Body&& body) {
    return forEachGeneratedProgram([&](uint32_t seed) { return Generator(seed, flags).program(); }, programs, seed0,
                                   maxExecutions, body);
}

// An error's identity across explorers: its kind and line (a race: both lines, in order).
inline std::set<std::string> errorSet(const skein::report::CheckResult& r) {
    std::set<std::string> s;
    for (auto& e : r.errors) {
        std::string k = std::string(skein::report::errorKindName(e.kind)) + "@" + std::to_string(e.location.line);
        if (e.otherLocation) {
            auto a = e.location.line, b = e.otherLocation->line;
            k = "race@" + std::to_string(std::min(a, b)) + "-" + std::to_string(std::max(a, b));
        }
        s.insert(k);
    }
    return s;
}

} // namespace skein::testing
