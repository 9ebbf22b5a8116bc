// The instruction budget without a cost per instruction.
//
// Lua counts instructions only through a count hook, and while any hook is set every
// instruction of every Lua function takes a slow path: a fifth of a small reducer's time. So a
// call on a state's main thread starts with no hook. A watchdog thread looks at the calls in
// flight every few milliseconds; a call it finds running on two looks in a row gets a signal,
// whose handler (on the call's own thread, as Lua's own interpreter does for Ctrl-C) installs
// the count hook. From then on the budget counts as before. A call that ends sooner never pays
// for the hook; a runaway one is stopped a few milliseconds later than it would have been
// (up to a tenth of a second when it is the first call after a quiet second).
//
// Each state holds a slot in a fixed table whose memory is never freed, so the watchdog and
// the handler can read any slot at any time. A state that finds no free slot gets the hook on
// every call, and its hook and charged library calls look at the clock for its time limit
// (Budget.c): slower, and blind to one long operation in C, but stopped all the same.
//
// The host owns the process's signals, and this must survive what it does with SIGURG:
// - A handler the host had installed is chained: ours runs first, then calls it, except for the
//   signals the watchdog sent itself. Those are known by what they carry (queued with a value
//   only this process knows), not by a flag beside the thread: a flag left set when a thread
//   ended before its signal came took the host's next signal on a new thread given the same id.
//   The other way round is the one left: when the kernel cannot queue a signal's value (its
//   limit of pending signals reached, RLIMIT_SIGPENDING) it delivers the signal bare, and the
//   host's handler gets a stray SIGURG, which SIGURG's handlers bear (it is ignored by default,
//   and out-of-band data can be gone by the time it is read). A host's signal is never lost.
// - A handler the host installs later, or SIG_IGN, replaces ours: the watchdog looks at the
//   disposition on each look and puts ours back, chaining the host's.
// - A thread that blocks the signal: each thread unblocks it on its first call. One that blocks
//   it again later: with every signal, the watchdog also asks the call to arm its own hook at
//   its next allocation or charged library call (`lk_watch_arm_requested`), which unblocks the
//   signal for the thread's later calls. Only a loop that does neither, in the first call
//   after the thread blocked the signal again, cannot be stopped: nothing reaches it.
#define _GNU_SOURCE  // pthread_sigqueue
#include "Watchdog.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

enum { LK_WATCH_SLOTS = 256 };
static const long lk_watch_period_ns = 5 * 1000 * 1000;
static const long lk_watch_idle_period_ns = 100 * 1000 * 1000;
static const int lk_watch_quiet_looks = 200;  // a second of fast looks
#define LK_WATCH_SIGNAL SIGURG  // ignored by default: a stray one does nothing

// Each slot on cache lines of its own (two, against the prefetcher's pairing of lines): every
// call writes its slot's `call` twice, and two VMs on two cores writing neighbouring slots made
// each core wait for the other's line.
typedef struct {
  _Alignas(128) atomic_int owned;  // a state holds the slot
  atomic_uint call;       // odd while a call runs; each call moves it on by two
  atomic_int signalling;  // the watchdog is signalling the slot's thread
  atomic_int armed;       // the handler installed the hook for this call
  atomic_int arm_requested;  // the call should arm its hook as soon as it can
  atomic_int over_time;   // 1: the call ran past its time and must stop; 2: it was told
  _Atomic int64_t time_limit_ns;  // 0: none
  unsigned timed_call;    // the call the watchdog is timing (the watchdog's own)
  int64_t timed_since;    // when the watchdog first saw it in flight (the watchdog's own)
  unsigned seen;          // `call` at the watchdog's last look (the watchdog's own)
  _Atomic(pthread_t) thread;  // written by the owner while `call` is even; read by handlers
                              // on any thread (which compare it with their own)
  lua_State *L;           // the owner's main thread, set when the slot is claimed
  // What the owner gave when it claimed the slot: the watchdog arms and stops a call through
  // them, and knows nothing else of the budget.
  lk_watch_action arm;
  lk_watch_action stop_for_time;
} lk_watch_slot;

static lk_watch_slot lk_watch_slots[LK_WATCH_SLOTS];
static pthread_once_t lk_watch_once = PTHREAD_ONCE_INIT;
static atomic_int lk_watch_started;
// The host's handler, chained from ours; SIG_DFL and SIG_IGN (SIGURG's default) chain nothing.
static atomic_uintptr_t lk_watch_chained_handler;
static atomic_int lk_watch_chained_flags;
static atomic_uint lk_watch_reinstalls;

static void lk_watch_chain(int signal, siginfo_t *info, void *context) {
  uintptr_t handler = atomic_load(&lk_watch_chained_handler);
  if (handler == (uintptr_t)SIG_DFL || handler == (uintptr_t)SIG_IGN) return;
  if (atomic_load(&lk_watch_chained_flags) & SA_SIGINFO) {
    ((void (*)(int, siginfo_t *, void *))handler)(signal, info, context);
  } else {
    ((void (*)(int))handler)(signal);
  }
}

// What the watchdog's signals carry: the address of the slots, which no other process knows.
static void *lk_watch_signal_mark(void) { return (void *)lk_watch_slots; }

// Whether the watchdog sent this signal. The kernel's (out-of-band data) and the host's own
// (`pthread_kill`, `raise`) carry other codes, or no value.
static int lk_watch_sent_it(const siginfo_t *info) {
  return info != NULL && info->si_code == SI_QUEUE && info->si_pid == getpid() &&
         info->si_value.sival_ptr == lk_watch_signal_mark();
}

// Set while our handler runs on this thread. A host that chains to the handler it replaced
// (the usual idiom) found ours there, and the watchdog put ours back over the host's, chaining
// it: ours called the host's, which called ours, ... until the stack ran out. A call of ours
// from within ours returns at once: it has nothing left to do. (Initial-exec: a signal handler
// must not be the first to touch a thread's storage through a call that may allocate.)
static _Thread_local int lk_watch_in_handler __attribute__((tls_model("initial-exec")));

static void lk_watch_signal_handler(int signal, siginfo_t *info, void *context) {
  if (lk_watch_in_handler) return;
  lk_watch_in_handler = 1;
  pthread_t self = pthread_self();
  for (int index = 0; index < LK_WATCH_SLOTS; index++) {
    lk_watch_slot *slot = &lk_watch_slots[index];
    if (!atomic_load(&slot->owned)) continue;
    if (!pthread_equal(atomic_load_explicit(&slot->thread, memory_order_relaxed), self)) continue;
    // A call in flight on this very thread: the one the signal interrupted.
    if ((atomic_load(&slot->call) & 1) && atomic_load(&slot->over_time) == 1) {
      atomic_store(&slot->over_time, 2);
      atomic_store(&slot->armed, 1);
      slot->stop_for_time(slot->L);
    } else if ((atomic_load(&slot->call) & 1) && !atomic_load(&slot->armed)) {
      atomic_store(&slot->armed, 1);
      atomic_store(&slot->arm_requested, 0);
      slot->arm(slot->L);  // lua_sethook may be called from a signal handler
    }
  }
  if (!lk_watch_sent_it(info)) lk_watch_chain(signal, info, context);
  lk_watch_in_handler = 0;
}

static int lk_watch_is_ours(const struct sigaction *action) {
  return (action->sa_flags & SA_SIGINFO) && action->sa_sigaction == lk_watch_signal_handler;
}

// Keeps `action` (unless it is ours) as the handler ours chains to.
static void lk_watch_keep_chained(const struct sigaction *action) {
  if (lk_watch_is_ours(action)) return;
  uintptr_t handler = (action->sa_flags & SA_SIGINFO) ? (uintptr_t)action->sa_sigaction
                                                      : (uintptr_t)action->sa_handler;
  atomic_store(&lk_watch_chained_flags, action->sa_flags);
  atomic_store(&lk_watch_chained_handler, handler);
}

// Installs our handler, keeping the one it replaces (unless it is ours) to chain. The one there
// is kept before ours goes in: kept after, a signal in between ran ours, which chained the one
// kept before (a host's handler installed since missed its signal; seen under load). One call
// swaps them: a handler the host installs between the look and the swap is the one replaced,
// so chained.
static int lk_watch_install(void) {
  struct sigaction action = {0}, current, previous;
  action.sa_sigaction = lk_watch_signal_handler;
  action.sa_flags = SA_SIGINFO | SA_RESTART;  // a system call the signal interrupts goes on
  sigemptyset(&action.sa_mask);
  if (sigaction(LK_WATCH_SIGNAL, NULL, &current) == 0) lk_watch_keep_chained(&current);
  if (sigaction(LK_WATCH_SIGNAL, &action, &previous) != 0) return 0;
  lk_watch_keep_chained(&previous);
  return 1;
}

// The host replaced our handler (or ignores the signal now): ours goes back, chaining theirs.
static void lk_watch_keep_handler(void) {
  struct sigaction current;
  if (sigaction(LK_WATCH_SIGNAL, NULL, &current) != 0 || lk_watch_is_ours(&current)) return;
  if (lk_watch_install()) atomic_fetch_add(&lk_watch_reinstalls, 1);
}

int64_t lk_monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

static int64_t lk_watch_now(void) { return lk_monotonic_ns(); }

// Signals the thread of the call `call` on `slot`, if the call is still in flight: announced
// first, so that the call's end (which moves `call` on, then waits for `signalling`) keeps its
// thread alive until the signal is sent.
static void lk_watch_signal(lk_watch_slot *slot, unsigned call) {
  atomic_store(&slot->arm_requested, 1);
  atomic_store(&slot->signalling, 1);
  if (atomic_load(&slot->call) == call) {
    // A signal that cannot be queued (a sandbox refusing the call) is sent plain: the call is
    // still armed, and the host's handler sees a stray SIGURG, which it must bear anyway.
    union sigval mark = {.sival_ptr = lk_watch_signal_mark()};
    pthread_t thread = atomic_load(&slot->thread);
    if (pthread_sigqueue(thread, LK_WATCH_SIGNAL, mark) != 0) pthread_kill(thread, LK_WATCH_SIGNAL);
  }
  atomic_store(&slot->signalling, 0);
}

// Whether the call in flight on `slot` has run past its time; starts timing a new call.
static int lk_watch_over_time(lk_watch_slot *slot, unsigned call, int64_t now) {
  int64_t limit = atomic_load(&slot->time_limit_ns);
  if (limit <= 0 || atomic_load(&slot->over_time)) return 0;
  if (slot->timed_call != call) {
    slot->timed_call = call;
    slot->timed_since = now;
    return 0;
  }
  return now - slot->timed_since >= limit;
}

static void *lk_watchdog(void *unused) {
  (void)unused;
  int quiet_looks = 0;
  for (;;) {
    // Idle for a second (no call seen in flight or made since): look less often, so that a
    // process that has stopped running Lua does not wake 200 times a second. A runaway call
    // that starts then is stopped within a slow period, not a fast one.
    struct timespec period = {
        0, quiet_looks < lk_watch_quiet_looks ? lk_watch_period_ns : lk_watch_idle_period_ns};
    nanosleep(&period, NULL);
    lk_watch_keep_handler();
    int active = 0;
    int64_t now = lk_watch_now();
    for (int index = 0; index < LK_WATCH_SLOTS; index++) {
      lk_watch_slot *slot = &lk_watch_slots[index];
      unsigned call = atomic_load(&slot->call);
      if ((call & 1) || call != slot->seen) active = 1;
      if ((call & 1) && lk_watch_over_time(slot, call, now)) {
        atomic_store(&slot->over_time, 1);
        lk_watch_signal(slot, call);
        slot->seen = call;
        continue;
      }
      if (!(call & 1) || call != slot->seen || atomic_load(&slot->armed)) {
        slot->seen = call;
        continue;
      }
      lk_watch_signal(slot, call);
    }
    quiet_looks = active ? 0 : quiet_looks + 1;
  }
  return NULL;
}

static void lk_watch_start(void) {
  if (!lk_watch_install()) return;
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  if (pthread_create(&thread, &attributes, lk_watchdog, NULL) == 0)
    atomic_store(&lk_watch_started, 1);
  pthread_attr_destroy(&attributes);
}

int lk_watch_claim(lua_State *L, lk_watch_action arm, lk_watch_action stop_for_time) {
  pthread_once(&lk_watch_once, lk_watch_start);
  if (!atomic_load(&lk_watch_started)) return -1;
  for (int index = 0; index < LK_WATCH_SLOTS; index++) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&lk_watch_slots[index].owned, &expected, 1)) continue;
    lk_watch_slot *slot = &lk_watch_slots[index];
    // Nothing of the last owner's.
    atomic_store(&slot->thread, (pthread_t)0);
    atomic_store(&slot->armed, 0);
    atomic_store(&slot->arm_requested, 0);
    atomic_store(&slot->over_time, 0);
    slot->L = L;  // read only while a call of L's is in flight
    lk_watch_slots[index].arm = arm;
    lk_watch_slots[index].stop_for_time = stop_for_time;
    atomic_store(&lk_watch_slots[index].time_limit_ns, 0);
    return index;
  }
  return -1;
}

void lk_watch_release(int index) { atomic_store(&lk_watch_slots[index].owned, 0); }

// Threads of Dispatch's pools start with every signal blocked, which would leave the watchdog's
// signal pending forever: each thread that makes a call unblocks it, once (a system call costs
// a quarter of a small action: not on every call).
static _Thread_local int lk_watch_signal_unblocked;

static int lk_watch_unblock(void) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, LK_WATCH_SIGNAL);
  return pthread_sigmask(SIG_UNBLOCK, &signals, NULL) == 0;
}

int lk_watch_begin(int index, int armed) {
  if (!lk_watch_signal_unblocked) {
    if (!lk_watch_unblock()) return 0;
    lk_watch_signal_unblocked = 1;
  }
  lk_watch_slot *slot = &lk_watch_slots[index];
  pthread_t self = pthread_self();
  if (!pthread_equal(atomic_load_explicit(&slot->thread, memory_order_relaxed), self)) {
    atomic_store_explicit(&slot->thread, self, memory_order_relaxed);
  }
  atomic_store_explicit(&slot->armed, armed, memory_order_relaxed);
  atomic_store_explicit(&slot->arm_requested, 0, memory_order_relaxed);
  atomic_store_explicit(&slot->over_time, 0, memory_order_relaxed);
  unsigned call = atomic_load_explicit(&slot->call, memory_order_relaxed);
  atomic_store_explicit(&slot->call, call + 1, memory_order_release);
  return 1;
}

int lk_watch_end(int index) {
  lk_watch_slot *slot = &lk_watch_slots[index];
  unsigned call = atomic_load_explicit(&slot->call, memory_order_relaxed);
  atomic_store(&slot->call, call + 1);
  while (atomic_load(&slot->signalling)) {
  }
  return atomic_load_explicit(&slot->armed, memory_order_relaxed);
}

_Atomic int *lk_watch_arm_request(int index) { return &lk_watch_slots[index].arm_requested; }

void lk_watch_set_time_limit(int index, double seconds) {
  atomic_store(&lk_watch_slots[index].time_limit_ns, (int64_t)(seconds * 1e9));
}

int lk_watch_arm_requested(int index) {
  lk_watch_slot *slot = &lk_watch_slots[index];
  if (!atomic_load_explicit(&slot->arm_requested, memory_order_relaxed)) return 0;
  if (atomic_load(&slot->over_time) == 1) {  // the signal did not get through: stop here
    atomic_store(&slot->over_time, 2);
    atomic_store(&slot->armed, 1);
    atomic_store(&slot->arm_requested, 0);
    slot->stop_for_time(slot->L);
    return 0;
  }
  if (atomic_exchange(&slot->armed, 1)) return 0;  // the handler did it
  atomic_store(&slot->arm_requested, 0);
  // The signal did not get through: this thread blocks it again. Unblocked, the pending one
  // arrives now (and finds the call armed), and later calls get theirs.
  lk_watch_unblock();
  return 1;
}

unsigned lk_watch_handler_reinstalls(void) { return atomic_load(&lk_watch_reinstalls); }
